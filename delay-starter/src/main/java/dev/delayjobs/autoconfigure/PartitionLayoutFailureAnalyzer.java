package dev.delayjobs.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

import dev.delayjobs.partition.PartitionLayoutException;

/** A queue's configured partition count would strand the jobs or consumers under the one Redis records. */
final class PartitionLayoutFailureAnalyzer extends AbstractFailureAnalyzer<PartitionLayoutException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, PartitionLayoutException cause) {
        return new FailureAnalysis(cause.getMessage(), cause.action(), cause);
    }
}
