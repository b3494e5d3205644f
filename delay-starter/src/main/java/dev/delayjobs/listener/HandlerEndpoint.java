package dev.delayjobs.listener;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.util.List;
import java.time.Instant;

import org.springframework.util.ReflectionUtils;

import dev.delayjobs.DelayedJob;
import dev.delayjobs.JobFailurePolicy;
import dev.delayjobs.payload.PayloadVersions;
import dev.delayjobs.queue.QueueName;
import dev.delayjobs.store.StoredJob;
import tools.jackson.databind.JavaType;

/**
 * One {@code @DelayedHandler} method, ready to be called: its bean, its queue, its resolved
 * settings and the type its payload is read as.
 */
final class HandlerEndpoint {

    private final String beanName;
    private final Object bean;
    private final Method method;
    private final QueueName queue;
    private final QueueSettings settings;
    private final JavaType payloadType;
    private final Type declaredPayloadType;
    private final boolean wantsJob;
    private final JobFailurePolicy failurePolicy;
    /** A Kotlin {@code suspend fun}: called through {@link SuspendingHandler}. */
    private final boolean suspending;

    HandlerEndpoint(String beanName, Object bean, Method method, QueueName queue, QueueSettings settings,
            JavaType payloadType, Type declaredPayloadType, boolean wantsJob) {
        this(beanName, bean, method, queue, settings, payloadType, declaredPayloadType, wantsJob,
                new ConfiguredFailurePolicy(q -> settings.backoff(), q -> List.of()));
    }

    HandlerEndpoint(String beanName, Object bean, Method method, QueueName queue, QueueSettings settings,
            JavaType payloadType, Type declaredPayloadType, boolean wantsJob, JobFailurePolicy failurePolicy) {
        this.failurePolicy = failurePolicy;
        this.declaredPayloadType = declaredPayloadType;
        this.beanName = beanName;
        this.bean = bean;
        this.method = method;
        this.queue = queue;
        this.settings = settings;
        this.payloadType = payloadType;
        this.wantsJob = wantsJob;
        this.suspending = SuspendingHandler.isSuspending(method);
        ReflectionUtils.makeAccessible(method);
    }

    String queue() {
        return queue.value();
    }

    /** The queue's name, checked where the annotation was read. */
    QueueName queueName() {
        return queue;
    }

    QueueSettings settings() {
        return settings;
    }

    /** Decides between a retry and the dead set when the handler fails. */
    JobFailurePolicy failurePolicy() {
        return failurePolicy;
    }

    /** The same method with other settings (those a {@code DelayContainerCustomizer} changed), and the same failure policy. */
    HandlerEndpoint withSettings(QueueSettings other) {
        return new HandlerEndpoint(beanName, bean, method, queue, other, payloadType, declaredPayloadType, wantsJob, failurePolicy);
    }

    JavaType payloadType() {
        return payloadType;
    }

    /** The payload type as the method declares it (the {@code T} of a {@code DelayedJob<T>} parameter). */
    Type declaredPayloadType() {
        return declaredPayloadType;
    }

    /** "bean 'orderTimeouts' method OrderTimeouts.close(OrderTimeout)", for messages. */
    String describe() {
        return describe(beanName, method);
    }

    static String describe(String beanName, Method method) {
        StringBuilder params = new StringBuilder();
        Class<?>[] types = method.getParameterTypes();
        for (int i = 0; i < SuspendingHandler.declaredParameterCount(method); i++) {
            params.append(params.isEmpty() ? "" : ", ").append(types[i].getSimpleName());
        }
        return "bean '" + beanName + "' method " + method.getDeclaringClass().getSimpleName() + "." + method.getName()
                + "(" + params + ")";
    }

    /**
     * Calls the method (a {@code suspend fun} to the end of its coroutine); an exception it throws
     * comes out unwrapped.
     */
    void invoke(StoredJob job, Object payload) throws Throwable {
        Object argument = wantsJob ? new DelayedJob<>(queue.value(), job.id(), payload, job.attempts(),
                Instant.ofEpochMilli(job.dueAt()), Instant.ofEpochMilli(job.publishedAt()),
                PayloadVersions.stored(job.headers()), job.group()) : payload;
        if (suspending) {
            SuspendingHandler.invoke(method, bean, argument);
            return;
        }
        try {
            method.invoke(bean, argument);
        }
        catch (InvocationTargetException ex) {
            throw ex.getTargetException();
        }
    }
}
