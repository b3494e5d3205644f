package dev.delayjobs.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

import dev.delayjobs.payload.UpcasterChainException;

/** A payload type's upcaster chain misses a step (or has one twice, or goes past the type's version). */
final class UpcasterChainFailureAnalyzer extends AbstractFailureAnalyzer<UpcasterChainException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, UpcasterChainException cause) {
        return new FailureAnalysis(cause.getMessage(), cause.action(), cause);
    }
}
