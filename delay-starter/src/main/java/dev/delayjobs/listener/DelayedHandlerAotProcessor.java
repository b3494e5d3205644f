package dev.delayjobs.listener;

import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.util.Map;

import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.util.ClassUtils;

import dev.delayjobs.DelayedHandler;

/**
 * At build time (Spring AOT), registers for every bean with {@code @DelayedHandler} methods what a
 * native image needs to run them: each method for reflective invocation, and its payload type for
 * JSON binding (Jackson reads it reflectively), as spring-kafka does for its listener methods.
 */
final class DelayedHandlerAotProcessor implements BeanRegistrationAotProcessor {

    private final BindingReflectionHintsRegistrar bindings = new BindingReflectionHintsRegistrar();

    @Override
    public BeanRegistrationAotContribution processAheadOfTime(RegisteredBean registeredBean) {
        Class<?> type = ClassUtils.getUserClass(registeredBean.getBeanClass());
        Map<Method, DelayedHandler> handlers = DelayedHandlerAnnotationBeanPostProcessor.handlerMethods(type);
        if (handlers.isEmpty()) {
            return null;
        }
        String beanName = registeredBean.getBeanName();
        return (context, code) -> handlers.keySet().forEach(method -> {
            context.getRuntimeHints().reflection().registerMethod(method, ExecutableMode.INVOKE);
            Type payload = DelayedHandlerAnnotationBeanPostProcessor.payloadType(beanName, method);
            bindings.registerReflectionHints(context.getRuntimeHints().reflection(), payload);
        });
    }
}
