package dev.delayjobs.actuate;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * A page of dead jobs, newest first: {@code page} is its number, null when read with
 * {@code after}; {@code next} is what to pass as {@code after} for the page that follows, null
 * when this one is not full.
 */
public record DeadJobsPage(@Nullable Integer page, int size, long total, List<DeadJobView> jobs, @Nullable String next) {
}
