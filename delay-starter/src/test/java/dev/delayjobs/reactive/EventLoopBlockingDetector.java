package dev.delayjobs.reactive;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import reactor.blockhound.BlockHound;
import reactor.blockhound.BlockingOperationError;

/**
 * BlockHound watching the event-loop threads of Reactor Netty's HTTP server ({@code webflux-http-*}),
 * and only while a test asks it to: installed once per JVM, it stays installed, so the other test
 * classes of the same JVM (whose threads, Redisson's Netty threads among them, may block on purpose)
 * must not be watched. The integrations' allowances (Reactor's, Netty's) are kept, their choice of
 * threads is not. A blocking call found is recorded and thrown as BlockHound does.
 */
final class EventLoopBlockingDetector {

    private static volatile boolean watching;
    private static final List<String> found = new CopyOnWriteArrayList<>();

    private EventLoopBlockingDetector() {
    }

    static synchronized void install() {
        if (!installed) {
            BlockHound.builder()
                    .loadIntegrations()
                    .dynamicThreadPredicate(any -> EventLoopBlockingDetector::isHttpEventLoop)
                    .nonBlockingThreadPredicate(any -> thread -> watching && isHttpEventLoop(thread))
                    .blockingMethodCallback(method -> {
                        found.add(method + " on " + Thread.currentThread().getName());
                        throw new BlockingOperationError(method);
                    })
                    .install();
            installed = true;
        }
    }

    private static boolean installed;

    static void watch(boolean on) {
        watching = on;
    }

    /** The blocking calls found on the event loops so far. */
    static List<String> found() {
        return List.copyOf(found);
    }

    static void clear() {
        found.clear();
    }

    static boolean isHttpEventLoop(Thread thread) {
        // Boot names Reactor Netty's server loops webflux-http-*; Reactor Netty's own default is reactor-http-*
        return thread.getName().startsWith("webflux-http-") || thread.getName().startsWith("reactor-http-");
    }
}
