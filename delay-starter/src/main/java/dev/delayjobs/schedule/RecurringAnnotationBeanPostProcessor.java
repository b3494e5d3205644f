package dev.delayjobs.schedule;

import java.lang.reflect.Method;
import java.time.DateTimeException;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.config.BeanExpressionContext;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;

import dev.delayjobs.DelayedHandler;
import dev.delayjobs.Recurring;
import dev.delayjobs.queue.QueueName;

/**
 * Finds {@link Recurring} methods, which must be {@link DelayedHandler} methods too, and resolves
 * them to the schedules this application declares (failing startup with the method and the
 * attribute named).
 */
public final class RecurringAnnotationBeanPostProcessor implements BeanPostProcessor, BeanFactoryAware {

    /** The payload of a declared schedule's ticks. */
    static final String DECLARED_PAYLOAD = "{}";

    private ConfigurableListableBeanFactory beanFactory;
    private final Set<Class<?>> without = ConcurrentHashMap.newKeySet();
    private final List<DeclaredSchedule> declared = new ArrayList<>();

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        this.beanFactory = (ConfigurableListableBeanFactory) beanFactory;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) throws BeansException {
        Class<?> target = AopUtils.getTargetClass(bean);
        if (without.contains(target)) {
            return bean;
        }
        Map<Method, Recurring> methods = MethodIntrospector.selectMethods(target,
                (MethodIntrospector.MetadataLookup<Recurring>) m -> AnnotatedElementUtils.findMergedAnnotation(m, Recurring.class));
        if (methods.isEmpty()) {
            without.add(target);
            return bean;
        }
        methods.forEach((method, recurring) -> {
            DeclaredSchedule schedule = declare(beanName + "." + method.getName(), method, recurring);
            synchronized (declared) {
                for (DeclaredSchedule other : declared) {
                    if (other.queue().equals(schedule.queue()) && other.name().equals(schedule.name())
                            && !other.spec().equals(schedule.spec())) {
                        throw RecurringDeclarationException.twice("@Recurring(name = \"" + schedule.name() + "\") on "
                                + schedule.where() + " and on " + other.where() + " declare one schedule of queue '"
                                + schedule.queue() + "' twice, differently");
                    }
                }
                declared.add(schedule);
            }
        });
        return bean;
    }

    /** The schedules declared so far, one per queue and name. */
    List<DeclaredSchedule> declared() {
        synchronized (declared) {
            Map<String, DeclaredSchedule> unique = new HashMap<>();
            declared.forEach(d -> unique.putIfAbsent(d.queue() + "\n" + d.name(), d));
            return List.copyOf(unique.values());
        }
    }

    private DeclaredSchedule declare(String where, Method method, Recurring recurring) {
        DelayedHandler handler = AnnotatedElementUtils.findMergedAnnotation(method, DelayedHandler.class);
        if (handler == null) {
            throw RecurringDeclarationException.withoutHandler("@Recurring(name = \"" + recurring.name() + "\") on " + where
                    + " needs @DelayedHandler on the same method: its ticks are jobs of that handler's queue");
        }
        try {
            QueueName queue = QueueName.of(resolve("queue", handler.queue()));
            String name = resolve("name", recurring.name());
            String cron = resolve("cron", recurring.cron());
            String rate = resolve("fixedRate", recurring.fixedRate());
            String zone = resolve("zone", recurring.zone());
            String misfireText = resolve("misfire", recurring.misfire());
            String overlapText = resolve("overlap", recurring.overlap());
            Overlap overlap;
            try {
                overlap = Overlap.valueOf(overlapText);
            }
            catch (IllegalArgumentException ex) {
                throw new IllegalArgumentException("overlap = '" + overlapText + "' must be RUN or SKIP", ex);
            }
            Misfire misfire;
            try {
                misfire = Misfire.valueOf(misfireText);
            }
            catch (IllegalArgumentException ex) {
                throw new IllegalArgumentException("misfire = '" + misfireText + "' must be FIRE_ONE, FIRE_ALL or FIRE_NONE", ex);
            }
            if (cron.isEmpty() == rate.isEmpty()) {
                throw new IllegalArgumentException("exactly one of cron and fixedRate must be set");
            }
            ScheduleSpec spec;
            if (!cron.isEmpty()) {
                ZoneId zoneId;
                try {
                    zoneId = zone.isEmpty() ? ZoneId.systemDefault() : ZoneId.of(zone);
                }
                catch (DateTimeException ex) {
                    throw new IllegalArgumentException("zone = '" + zone + "' is not a zone id: " + ex.getMessage(), ex);
                }
                spec = ScheduleSpec.cron(cron, zoneId, misfire);
            }
            else {
                if (!zone.isEmpty()) {
                    throw new IllegalArgumentException("zone applies to cron only, not to fixedRate");
                }
                try {
                    spec = ScheduleSpec.fixedRate(DurationStyle.detectAndParse(rate), misfire);
                }
                catch (IllegalArgumentException ex) {
                    throw new IllegalArgumentException("fixedRate = '" + rate + "': " + ex.getMessage(), ex);
                }
            }
            return new DeclaredSchedule(queue, name, spec.withOverlap(overlap), DECLARED_PAYLOAD, where);
        }
        catch (IllegalArgumentException ex) {
            throw RecurringDeclarationException.badAttribute("@Recurring(name = \"" + recurring.name() + "\") on " + where
                    + ": " + ex.getMessage(), ex);
        }
    }

    /** Resolves placeholders, then SpEL, to a trimmed string, as for {@code @DelayedHandler}. */
    private String resolve(String attribute, String value) {
        if (value == null || value.isEmpty()) {
            return "";
        }
        try {
            String resolved = beanFactory.resolveEmbeddedValue(value);
            Object evaluated = resolved;
            if (resolved != null && beanFactory.getBeanExpressionResolver() != null) {
                evaluated = beanFactory.getBeanExpressionResolver().evaluate(resolved,
                        new BeanExpressionContext(beanFactory, null));
            }
            return evaluated == null ? "" : evaluated.toString().trim();
        }
        catch (RuntimeException ex) {
            throw new IllegalArgumentException(attribute + " = '" + value + "' cannot be resolved: " + ex.getMessage(), ex);
        }
    }
}
