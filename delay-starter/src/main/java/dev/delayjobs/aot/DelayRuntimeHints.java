package dev.delayjobs.aot;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * What a native image of an application needs from the starter itself: the Lua scripts, read from
 * the classpath when the Redis layer loads, and the dashboard's page, script and style sheet. (The handler methods and payload types of the
 * application are registered by {@code DelayedHandlerAotProcessor}.)
 */
public final class DelayRuntimeHints implements RuntimeHintsRegistrar {

    @Override
    public void registerHints(RuntimeHints hints, ClassLoader classLoader) {
        hints.resources().registerPattern("dev/delayjobs/redis/*.lua");
        hints.resources().registerPattern("dev/delayjobs/dashboard/*");
    }
}
