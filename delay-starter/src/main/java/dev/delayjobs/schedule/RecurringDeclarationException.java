package dev.delayjobs.schedule;

import org.springframework.beans.factory.BeanInitializationException;

/** A {@code @Recurring} method that declares no schedule this release can run: refused at startup. */
public final class RecurringDeclarationException extends BeanInitializationException {

    private final String action;

    RecurringDeclarationException(String message, String action, Throwable cause) {
        super(message, cause);
        this.action = action;
    }

    /** What to do, for the failure analysis. */
    public String action() {
        return action;
    }

    /** An attribute that cannot be read: what each one takes. */
    static RecurringDeclarationException badAttribute(String message, Throwable cause) {
        return new RecurringDeclarationException(message, "Set exactly one of cron (six fields, with seconds, as Spring's "
                + "CronExpression reads them, for example \"0 0 2 * * *\") and fixedRate (a duration of at least 100 ms: "
                + "\"10s\", \"PT1M\" or milliseconds); zone (cron only) takes a zone id such as \"Europe/Berlin\"; misfire "
                + "is FIRE_ONE, FIRE_ALL or FIRE_NONE; overlap is RUN or SKIP; the name has 1 to 200 letters, digits, "
                + "'.', '_', '-' or ':'. Placeholders must resolve (see docs/schedules.md).", cause);
    }

    /** A {@code @Recurring} without {@code @DelayedHandler}. */
    static RecurringDeclarationException withoutHandler(String message) {
        return new RecurringDeclarationException(message, "Put @DelayedHandler(queue = \"...\") on the same method: the "
                + "schedule's ticks are jobs of that queue, handled by this method.", null);
    }

    /** One schedule declared twice with different specs. */
    static RecurringDeclarationException twice(String message) {
        return new RecurringDeclarationException(message, "Give the two schedules different names, or declare the same "
                + "cron, zone, fixedRate, misfire and overlap on both.", null);
    }
}
