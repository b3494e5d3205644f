package dev.delayjobs.aot;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;

import org.junit.jupiter.api.Test;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.aot.test.generate.TestGenerationContext;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.core.io.support.SpringFactoriesLoader;

import dev.delayjobs.DelayedHandler;
import dev.delayjobs.DelayedJob;
import dev.delayjobs.Recurring;

/** The hints a native image of an application needs, registered the Spring way (aot.factories). */
class DelayRuntimeHintsTest {

    record OrderTimeout(long orderId, Customer customer) {
    }

    record Customer(String name) {
    }

    record Receipt(long orderId) {
    }

    static class Handlers {

        @DelayedHandler(queue = "order-timeout")
        void close(OrderTimeout timeout) {
        }

        @DelayedHandler(queue = "receipts")
        void mail(DelayedJob<Receipt> job) {
        }

        void notAHandler(String value) {
        }
    }

    record Report(String customer) {
    }

    static class Reports {

        @DelayedHandler(queue = "reports")
        @Recurring(name = "nightly", cron = "0 0 2 * * *", zone = "Europe/Berlin")
        void nightly(DelayedJob<Report> tick) {
        }
    }

    private static final SpringFactoriesLoader AOT_FACTORIES = SpringFactoriesLoader.forResourceLocation("META-INF/spring/aot.factories");

    @Test
    void theLuaScriptsAndTheDashboardAreResources() {
        RuntimeHints hints = new RuntimeHints();
        AOT_FACTORIES.load(RuntimeHintsRegistrar.class).forEach(registrar -> registrar.registerHints(hints, getClass().getClassLoader()));
        for (String script : new String[] { "_record.lua", "publish.lua", "claim.lua", "ack.lua", "fast-forward.lua",
                "pause.lua", "resume.lua", "rate-limit.lua", "control-state.lua", "_ticks.lua", "tick.lua", "schedules-due.lua",
                "schedule-declare.lua", "schedules-page.lua" }) {
            assertThat(RuntimeHintsPredicates.resource().forResource("dev/delayjobs/redis/" + script)).accepts(hints);
        }
        for (String file : new String[] { "index.html", "dashboard.js", "dashboard.css" }) {
            assertThat(RuntimeHintsPredicates.resource().forResource("dev/delayjobs/dashboard/" + file)).accepts(hints);
        }
    }

    @Test
    void handlerMethodsAreInvocableAndTheirPayloadTypesBindable() throws Exception {
        DefaultListableBeanFactory beans = new DefaultListableBeanFactory();
        beans.registerBeanDefinition("handlers", new RootBeanDefinition(Handlers.class));
        BeanRegistrationAotProcessor processor = AOT_FACTORIES.load(BeanRegistrationAotProcessor.class).stream()
                .filter(p -> p.getClass().getSimpleName().equals("DelayedHandlerAotProcessor")).findFirst().orElseThrow();
        BeanRegistrationAotContribution contribution = processor.processAheadOfTime(RegisteredBean.of(beans, "handlers"));
        TestGenerationContext generation = new TestGenerationContext();
        contribution.applyTo(generation, null);
        RuntimeHints hints = generation.getRuntimeHints();

        Method close = Handlers.class.getDeclaredMethod("close", OrderTimeout.class);
        Method mail = Handlers.class.getDeclaredMethod("mail", DelayedJob.class);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(close)).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(mail)).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Handlers.class.getDeclaredMethod("notAHandler", String.class)))
                .rejects(hints);
        for (Class<?> payload : new Class<?>[] { OrderTimeout.class, Customer.class, Receipt.class }) {
            assertThat(RuntimeHintsPredicates.reflection().onType(payload)).as(payload.getSimpleName()).accepts(hints);
        }
        assertThat(RuntimeHintsPredicates.reflection().onType(OrderTimeout.class)
                .withMemberCategory(MemberCategory.INVOKE_DECLARED_CONSTRUCTORS)).accepts(hints);
    }

    /** A {@code @Recurring} method is a {@code @DelayedHandler} method: the same hints make its ticks run in a native image. */
    @Test
    void recurringMethodsAreInvocableAndTheirPayloadTypesBindable() throws Exception {
        DefaultListableBeanFactory beans = new DefaultListableBeanFactory();
        beans.registerBeanDefinition("reports", new RootBeanDefinition(Reports.class));
        TestGenerationContext generation = new TestGenerationContext();
        for (BeanRegistrationAotProcessor processor : AOT_FACTORIES.load(BeanRegistrationAotProcessor.class)) {
            BeanRegistrationAotContribution contribution = processor.processAheadOfTime(RegisteredBean.of(beans, "reports"));
            if (contribution != null) {
                contribution.applyTo(generation, null);
            }
        }
        RuntimeHints hints = generation.getRuntimeHints();
        Method nightly = Reports.class.getDeclaredMethod("nightly", DelayedJob.class);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(nightly)).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onType(Report.class)
                .withMemberCategory(MemberCategory.INVOKE_DECLARED_CONSTRUCTORS)).accepts(hints);
    }

    @Test
    void beansWithoutHandlersContributeNothing() {
        DefaultListableBeanFactory beans = new DefaultListableBeanFactory();
        beans.registerBeanDefinition("plain", new RootBeanDefinition(Customer.class));
        AOT_FACTORIES.load(BeanRegistrationAotProcessor.class).stream()
                .filter(p -> p.getClass().getSimpleName().equals("DelayedHandlerAotProcessor"))
                .forEach(p -> assertThat(p.processAheadOfTime(RegisteredBean.of(beans, "plain"))).isNull());
    }
}
