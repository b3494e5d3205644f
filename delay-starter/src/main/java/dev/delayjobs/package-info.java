/**
 * The starter's public API: {@link dev.delayjobs.DelayPublisher} to publish and manage jobs,
 * {@link dev.delayjobs.DelayedHandler} to handle them, {@link dev.delayjobs.DelayQueueControl} to
 * pause and rate-limit queues.
 *
 * <p>Types are non-null unless annotated {@code @Nullable} (JSpecify's {@code @NullMarked}), so
 * Kotlin sees them as {@code String} or {@code String?}, never as platform types.
 */
@NullMarked
package dev.delayjobs;

import org.jspecify.annotations.NullMarked;
