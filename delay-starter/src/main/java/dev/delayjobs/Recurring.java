package dev.delayjobs;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Declares a recurring schedule whose ticks are jobs of the queue of the {@link DelayedHandler}
 * method it annotates: one job per tick across every instance, never before its instant, with the
 * retries of any job. Each instance declares it when it starts; instances declaring the same
 * schedule make one, and a changed one replaces the pending tick (see docs/schedules.md). The tick's
 * job has the id {@code <name>@<tick epoch ms>}, its tick as {@link DelayedJob#dueAt()} and the
 * payload {@code {}}. Every attribute takes placeholders and SpEL, as {@code @DelayedHandler}'s do.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface Recurring {

    /**
     * The schedule's name, unique in its queue.
     *
     * @return letters, digits, '.', '_', '-' or ':', at most 200 characters
     */
    String name();

    /**
     * A cron expression with seconds, as Spring's {@code CronExpression} reads it.
     *
     * @return six fields, or empty when {@link #fixedRate()} is set (exactly one of the two)
     */
    String cron() default "";

    /**
     * The zone the cron expression is read in.
     *
     * @return a zone id such as {@code Europe/Berlin}; empty for the JVM's default zone
     */
    String zone() default "";

    /**
     * The time between two ticks.
     *
     * @return a duration ({@code 1s}, {@code PT1M}, or milliseconds), at least 100 ms; empty when
     *     {@link #cron()} is set
     */
    String fixedRate() default "";

    /**
     * What ticks missed while no instance ran become.
     *
     * @return {@code FIRE_ONE} (the default), {@code FIRE_ALL} or {@code FIRE_NONE}
     */
    String misfire() default "FIRE_ONE";

    /**
     * What a tick does while the job of the previous tick has not ended (waits, runs, or waits for a
     * retry): {@code RUN} makes it a job all the same, {@code SKIP} skips it (recorded as the
     * schedule's last outcome, {@code skipped}; the next tick comes all the same).
     *
     * @return {@code RUN} (the default) or {@code SKIP}
     */
    String overlap() default "RUN";
}
