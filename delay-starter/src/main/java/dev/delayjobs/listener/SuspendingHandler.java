package dev.delayjobs.listener;

import java.lang.reflect.Method;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

import org.reactivestreams.Publisher;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;
import org.springframework.beans.factory.BeanInitializationException;
import org.springframework.core.CoroutinesUtils;
import org.springframework.core.KotlinDetector;
import org.springframework.util.ClassUtils;

/**
 * Calls a Kotlin {@code suspend} handler method through Spring's coroutine bridge (as Spring does
 * for {@code @Scheduled} and controller methods) and blocks its worker until the coroutine
 * completes: the worker stays the job's slot, so concurrency and the handler timeout mean what
 * they mean for a plain method. An interrupt of the waiting worker (the handler timeout, or the
 * container stopping) cancels the coroutine; the worker does not wait for it to finish cancelling.
 *
 * <p>Loaded only when a suspend handler exists: its Reactive Streams, Reactor and coroutine
 * classes are then needed, and checked at startup ({@link #requireBridge}).
 */
final class SuspendingHandler {

    /** What Spring's bridge needs besides the Kotlin standard library: kotlinx-coroutines-reactor and kotlin-reflect. */
    private static final String COROUTINES_REACTOR = "kotlinx.coroutines.reactor.MonoKt";
    private static final String KOTLIN_REFLECT = "kotlin.reflect.jvm.ReflectJvmMapping";

    private SuspendingHandler() {
    }

    /** Whether the method is a Kotlin {@code suspend fun}: its last JVM parameter is the Continuation. */
    static boolean isSuspending(Method method) {
        return KotlinDetector.isKotlinPresent() && KotlinDetector.isSuspendingFunction(method);
    }

    /** The parameters the method declares in Kotlin: without the Continuation of a suspend function. */
    static int declaredParameterCount(Method method) {
        return isSuspending(method) ? method.getParameterCount() - 1 : method.getParameterCount();
    }

    /** Fails startup, naming the handler and the missing library, when a suspend handler cannot be called. */
    static void requireBridge(ClassLoader loader, String where) {
        String missing = !ClassUtils.isPresent(COROUTINES_REACTOR, loader)
                ? "org.jetbrains.kotlinx:kotlinx-coroutines-reactor (with kotlinx-coroutines-core)"
                : !ClassUtils.isPresent(KOTLIN_REFLECT, loader) ? "org.jetbrains.kotlin:kotlin-reflect" : null;
        if (missing != null) {
            throw new BeanInitializationException("@DelayedHandler " + where + " is a Kotlin suspend function: "
                    + "calling it needs " + missing + " on the classpath (or the dev.delayjobs:delay-kotlin module, "
                    + "which brings it); add it, or make the handler a plain function");
        }
    }

    /** Runs the suspend function to its end on the calling worker; its exception comes out unwrapped. */
    static void invoke(Method method, Object bean, Object argument) throws Throwable {
        Publisher<?> result = CoroutinesUtils.invokeSuspendingFunction(method, bean, argument);
        Completion completion = new Completion();
        result.subscribe(completion);
        completion.await();
    }

    /** Waits for the coroutine's Mono; cancels it when the waiting thread is interrupted. */
    private static final class Completion implements Subscriber<Object> {

        private final CompletableFuture<Subscription> subscription = new CompletableFuture<>();
        private final CompletableFuture<Void> done = new CompletableFuture<>();

        @Override
        public void onSubscribe(Subscription s) {
            subscription.complete(s);
            s.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(Object value) {
            // a handler's return value is ignored, as for a plain method
        }

        @Override
        public void onError(Throwable error) {
            done.completeExceptionally(error);
        }

        @Override
        public void onComplete() {
            done.complete(null);
        }

        void await() throws Throwable {
            try {
                done.get();
            }
            catch (ExecutionException ex) {
                throw ex.getCause();
            }
            catch (InterruptedException ex) {
                subscription.thenAccept(Subscription::cancel);
                throw ex;
            }
        }
    }
}
