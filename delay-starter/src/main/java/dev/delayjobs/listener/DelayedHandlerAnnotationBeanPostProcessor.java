package dev.delayjobs.listener;

import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import java.util.function.Function;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.BeanInitializationException;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanExpressionContext;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.AnnotatedElementUtils;

import dev.delayjobs.DelayedHandler;
import dev.delayjobs.DelayedJob;
import dev.delayjobs.JobFailurePolicy;
import dev.delayjobs.queue.QueueName;
import dev.delayjobs.core.PayloadCodec;
import tools.jackson.databind.JavaType;

/**
 * Finds {@link DelayedHandler} methods on every bean, checks their signature (failing startup with
 * the bean and method named), resolves their attributes, and registers one endpoint per queue with
 * the {@link ListenerContainerRegistry} once all singletons exist.
 */
public final class DelayedHandlerAnnotationBeanPostProcessor
        implements BeanPostProcessor, BeanFactoryAware, SmartInitializingSingleton {

    private ConfigurableListableBeanFactory beanFactory;
    private final Set<Class<?>> withoutHandlers = ConcurrentHashMap.newKeySet();
    private final List<Found> found = new ArrayList<>();

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        this.beanFactory = (ConfigurableListableBeanFactory) beanFactory;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) throws BeansException {
        Class<?> target = AopUtils.getTargetClass(bean);
        if (withoutHandlers.contains(target)) {
            return bean;
        }
        Map<Method, DelayedHandler> methods = handlerMethods(target);
        if (methods.isEmpty()) {
            withoutHandlers.add(target);
            return bean;
        }
        methods.forEach((method, annotation) -> {
            Type payloadType = payloadType(beanName, method);
            if (SuspendingHandler.isSuspending(method)) {
                SuspendingHandler.requireBridge(beanFactory.getBeanClassLoader(), HandlerEndpoint.describe(beanName, method));
            }
            Method invocable;
            try {
                invocable = AopUtils.selectInvocableMethod(method, bean.getClass());
            }
            catch (IllegalStateException ex) {
                throw new BeanInitializationException("@DelayedHandler " + HandlerEndpoint.describe(beanName, method)
                        + " cannot be called on the bean: " + ex.getMessage(), ex);
            }
            synchronized (found) {
                found.add(new Found(beanName, bean, invocable, annotation, payloadType));
            }
        });
        return bean;
    }

    @Override
    public void afterSingletonsInstantiated() {
        ListenerContainerRegistry registry = beanFactory.getBean(ListenerContainerRegistry.class);
        QueueSettings.Source settings = beanFactory.getBean(QueueSettings.Source.class);
        PayloadCodec codec = beanFactory.getBean(PayloadCodec.class);
        JobFailurePolicy policy = beanFactory.getBeanProvider(JobFailurePolicy.class).getIfAvailable();
        synchronized (found) {
            for (Found f : found) {
                registry.register(endpoint(f, settings, codec, policy));
            }
            found.clear();
        }
    }

    /** @param policy the context's failure policy; null for the queue's backoff, and no exception class not retried */
    private HandlerEndpoint endpoint(Found f, QueueSettings.Source source, PayloadCodec codec, JobFailurePolicy policy) {
        String where = HandlerEndpoint.describe(f.beanName, f.method);
        QueueName queue;
        try {
            queue = QueueName.of(resolve("queue", f.annotation.queue()));
        }
        catch (IllegalArgumentException ex) {
            throw new BeanInitializationException("@DelayedHandler on " + where + ": " + ex.getMessage(), ex);
        }
        QueueSettings settings = source.forQueue(queue.value());
        try {
            settings = apply(settings, "concurrency", f.annotation.concurrency(), Integer::parseInt,
                    QueueSettings::withConcurrency);
            settings = apply(settings, "maxAttempts", f.annotation.maxAttempts(), Integer::parseInt,
                    QueueSettings::withMaxAttempts);
            settings = apply(settings, "autoStartup", f.annotation.autoStartup(), this::parseBoolean,
                    QueueSettings::withAutoStartup);
            settings = apply(settings, "handlerTimeout", f.annotation.handlerTimeout(), DurationStyle::detectAndParse,
                    QueueSettings::withHandlerTimeout);
            QueueSettings.ExponentialBackoff b = settings.backoff();
            b = new QueueSettings.ExponentialBackoff(
                    orElse("backoffInitial", f.annotation.backoffInitial(), DurationStyle::detectAndParse, b.initial()),
                    orElse("backoffMultiplier", f.annotation.backoffMultiplier(), Double::parseDouble, b.multiplier()),
                    orElse("backoffMax", f.annotation.backoffMax(), DurationStyle::detectAndParse, b.max()), b.jitter());
            settings = settings.withBackoff(b);
        }
        catch (IllegalArgumentException ex) {
            throw new BeanInitializationException("@DelayedHandler(queue = \"" + queue + "\") on " + where
                    + " has an invalid attribute: " + ex.getMessage(), ex);
        }
        boolean wantsJob = f.method.getParameterTypes()[0] == DelayedJob.class;
        JavaType payloadType = codec.type(f.payloadType);
        try {
            codec.checkReadable(payloadType);
        }
        catch (IllegalStateException ex) {
            throw new BeanInitializationException("@DelayedHandler(queue = \"" + queue + "\") on " + where + ": "
                    + ex.getMessage(), ex);
        }
        if (policy == null) {
            return new HandlerEndpoint(f.beanName, f.bean, f.method, queue, settings, payloadType, f.payloadType, wantsJob);
        }
        return new HandlerEndpoint(f.beanName, f.bean, f.method, queue, settings, payloadType, f.payloadType,
                wantsJob, policy);
    }

    private <T> QueueSettings apply(QueueSettings settings, String name, String attribute, Function<String, T> parse,
            BiFunction<QueueSettings, T, QueueSettings> with) {
        String value = resolve(name, attribute);
        return value.isEmpty() ? settings : with.apply(settings, parseNamed(name, value, parse));
    }

    private <T> T orElse(String name, String attribute, Function<String, T> parse, T fallback) {
        String value = resolve(name, attribute);
        return value.isEmpty() ? fallback : parseNamed(name, value, parse);
    }

    private static <T> T parseNamed(String name, String value, Function<String, T> parse) {
        try {
            return parse.apply(value);
        }
        catch (RuntimeException ex) {
            throw new IllegalArgumentException(name + " = '" + value + "' cannot be read (" + ex.getMessage() + ")", ex);
        }
    }

    private Boolean parseBoolean(String value) {
        if (!value.equalsIgnoreCase("true") && !value.equalsIgnoreCase("false")) {
            throw new IllegalArgumentException("expected true or false");
        }
        return Boolean.valueOf(value);
    }

    /**
     * Resolves placeholders, then SpEL, to a trimmed string; a failure is an
     * {@link IllegalArgumentException} naming the attribute.
     */
    private String resolve(String name, String value) {
        if (value == null || value.isEmpty()) {
            return "";
        }
        try {
            return resolve(value);
        }
        catch (RuntimeException ex) {
            throw new IllegalArgumentException(name + " = '" + value + "' cannot be resolved: " + ex.getMessage(), ex);
        }
    }

    private String resolve(String value) {
        String resolved = beanFactory.resolveEmbeddedValue(value);
        Object evaluated = resolved;
        if (resolved != null && beanFactory.getBeanExpressionResolver() != null) {
            evaluated = beanFactory.getBeanExpressionResolver().evaluate(resolved, new BeanExpressionContext(beanFactory, null));
        }
        return evaluated == null ? "" : evaluated.toString().trim();
    }

    /** The {@code @DelayedHandler} methods of a class, with their (merged) annotations. */
    public static Map<Method, DelayedHandler> handlerMethods(Class<?> type) {
        return MethodIntrospector.selectMethods(type, (MethodIntrospector.MetadataLookup<DelayedHandler>) method ->
                AnnotatedElementUtils.findMergedAnnotation(method, DelayedHandler.class));
    }

    static Type payloadType(String beanName, Method method) {
        String where = HandlerEndpoint.describe(beanName, method);
        int parameters = SuspendingHandler.declaredParameterCount(method); // a suspend fun's Continuation is not one
        if (parameters != 1) {
            throw new BeanInitializationException("@DelayedHandler " + where + " must take exactly one parameter: the "
                    + "payload, or DelayedJob<PayloadType>; it takes " + parameters);
        }
        if (method.getParameterTypes()[0] != DelayedJob.class) {
            return method.getGenericParameterTypes()[0];
        }
        ResolvableType payload = ResolvableType.forMethodParameter(method, 0).getGeneric(0);
        if (payload.resolve() == null) {
            throw new BeanInitializationException("@DelayedHandler " + where + " takes a DelayedJob without its payload "
                    + "type: declare it, as in DelayedJob<OrderTimeout>");
        }
        return payload.getType();
    }

    private record Found(String beanName, Object bean, Method method, DelayedHandler annotation, Type payloadType) {
    }

}
