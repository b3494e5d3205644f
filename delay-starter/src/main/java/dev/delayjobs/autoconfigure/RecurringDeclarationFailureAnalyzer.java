package dev.delayjobs.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

import dev.delayjobs.schedule.RecurringDeclarationException;

/** A {@code @Recurring} method with an attribute that cannot be read, without a handler, or declared twice differently. */
final class RecurringDeclarationFailureAnalyzer extends AbstractFailureAnalyzer<RecurringDeclarationException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, RecurringDeclarationException cause) {
        return new FailureAnalysis(cause.getMessage(), cause.action(), cause);
    }
}
