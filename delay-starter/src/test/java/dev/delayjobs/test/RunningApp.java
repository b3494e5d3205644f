package dev.delayjobs.test;

import java.util.List;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.springframework.context.ConfigurableApplicationContext;

import dev.delayjobs.DelayPublisher;

/**
 * One application for all tests of a class, on the shared Redis under a fresh key prefix: started
 * before the class's {@code @BeforeAll} methods, closed after its {@code @AfterAll} methods.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final RunningApp<Handlers> app = RunningApp.of(Handlers.class, "delay.max-payload-size=1KB");
 * }</pre>
 *
 * @param <H> the bean holding the test's handler methods
 */
public final class RunningApp<H> implements BeforeAllCallback, AfterAllCallback {

    private final Class<H> handlerType;
    private final boolean web;
    private final String[] properties;
    private ConfigurableApplicationContext context;

    private RunningApp(Class<H> handlerType, boolean web, String[] properties) {
        this.handlerType = handlerType;
        this.web = web;
        this.properties = properties;
    }

    /** An application without a web server. */
    public static <H> RunningApp<H> of(Class<H> handlerType, String... properties) {
        return new RunningApp<>(handlerType, false, properties);
    }

    /** A web application on a random port. */
    public static <H> RunningApp<H> web(Class<H> handlerType, String... properties) {
        return new RunningApp<>(handlerType, true, properties);
    }

    @Override
    public void beforeAll(ExtensionContext extension) {
        String prefix = TestRedis.uniquePrefix();
        context = web ? TestApps.runWeb(prefix, List.of(handlerType), properties)
                : TestApps.run(prefix, List.of(handlerType), properties);
    }

    @Override
    public void afterAll(ExtensionContext extension) {
        if (context != null) {
            context.close();
        }
    }

    public ConfigurableApplicationContext context() {
        return context;
    }

    public H handlers() {
        return context.getBean(handlerType);
    }

    public DelayPublisher publisher() {
        return context.getBean(DelayPublisher.class);
    }
}
