package dev.delayjobs.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.redisson.spring.starter.RedissonAutoConfigurationV4;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalyzedException;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.LifecycleProcessor;
import org.springframework.context.support.AbstractApplicationContext;
import org.springframework.context.support.DefaultLifecycleProcessor;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.DelayQueueControl;
import dev.delayjobs.DelayedHandler;
import dev.delayjobs.actuate.DelayQueuesEndpoint;
import dev.delayjobs.actuate.DelayQueuesHealthIndicator;
import dev.delayjobs.bridge.RedissonQueueBridge;
import dev.delayjobs.listener.ListenerContainerRegistry;
import dev.delayjobs.partition.PartitionedQueues;
import dev.delayjobs.partition.QueueLayout;
import dev.delayjobs.redis.QueueLayoutStore;
import dev.delayjobs.redis.RedisJobStore;
import dev.delayjobs.test.TestRedis;
import dev.delayjobs.timer.QueueWatchdog;
import dev.delayjobs.queue.QueueName;

/**
 * The starter calls Redis when the application starts, not while its beans are built: the context
 * is built without a connection, and the checks that stop a startup still do, with their analyses,
 * however early the application publishes.
 */
class StartupChecksTest {

    private final String prefix = TestRedis.uniquePrefix();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RedissonAutoConfigurationV4.class, JacksonAutoConfiguration.class,
                    DelayAutoConfiguration.class))
            .withPropertyValues("spring.data.redis.host=" + TestRedis.host(), "spring.data.redis.port=" + TestRedis.port(),
                    "delay.key-prefix=" + prefix);

    static class OrderTimeouts {

        @DelayedHandler(queue = "orders")
        void close(String orderId) {
        }
    }

    @Test
    void theBeansAreBuiltWithoutAConnectionToRedisWhichTheStartOpens() throws Exception {
        try (CountingProxy redis = new CountingProxy()) {
            new ApplicationContextRunner()
                    .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, EndpointAutoConfiguration.class,
                            DelayAutoConfiguration.class, DelayActuatorAutoConfiguration.class,
                            DelayBridgeAutoConfiguration.class))
                    .withPropertyValues("delay.key-prefix=" + prefix, "delay.queues.orders.partitions=3",
                            "delay.queues.legacy.redisson-delayed-queue=legacy-list", "delay.queues.legacy.redisson-codec=string",
                            "management.endpoints.web.exposure.include=delayqueues")
                    .withBean(RedissonClient.class, () -> lazyClient(redis.port()), bean -> bean.setDestroyMethodName("shutdown"))
                    .withBean(OrderTimeouts.class)
                    // the lifecycles start when the test says so, not with the refresh
                    .withBean(AbstractApplicationContext.LIFECYCLE_PROCESSOR_BEAN_NAME, LifecycleProcessor.class, StartWhenAsked::new)
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        for (Class<?> type : List.of(DelayPublisher.class, DelayQueueControl.class, RedisJobStore.class,
                                PartitionedQueues.class, QueueWatchdog.class, ListenerContainerRegistry.class,
                                StartupChecks.class, DelayQueuesEndpoint.class, DelayQueuesHealthIndicator.class,
                                RedissonQueueBridge.class)) {
                            assertThat(context).as(type.getSimpleName()).hasSingleBean(type);
                        }
                        assertThat(context.getBean(ListenerContainerRegistry.class).getContainers()).hasSize(1);
                        assertThat(redis.connections()).as("connections to Redis before the start").isZero();

                        context.start();
                        assertThat(redis.connections()).as("connections to Redis once started").isPositive();
                        assertThat(new QueueLayoutStore(TestRedis.sharedClient(), prefix).recorded(QueueName.of("orders"))).isEqualTo(3);
                        assertThat(context.getBean(ListenerContainerRegistry.class).getContainer("orders").orElseThrow()
                                .partitions()).isEqualTo(3);
                        context.stop();
                    });
        }
    }

    /** Publishes while the context is built, as from a {@code @PostConstruct}. */
    static class PublishesEarly implements InitializingBean {

        private final DelayPublisher publisher;
        private String id;

        PublishesEarly(DelayPublisher publisher) {
            this.publisher = publisher;
        }

        @Override
        public void afterPropertiesSet() {
            id = publisher.publish("orders", "order-1", java.time.Duration.ofMinutes(5));
        }
    }

    @Test
    void aPublishWhileTheContextIsBuiltRoutesByTheConfiguredPartitionCount() {
        runner.withPropertyValues("delay.queues.orders.partitions=3").withBean(PublishesEarly.class).run(context -> {
            assertThat(context).hasNotFailed();
            String id = context.getBean(PublishesEarly.class).id;
            QueueLayout layout = context.getBean(PartitionedQueues.class).layout(QueueName.of("orders"));
            assertThat(layout.size()).isEqualTo(3);
            assertThat(context.getBean(RedisJobStore.class).find(layout.partitionOf(id), id)).as("job in its partition")
                    .isPresent();
            assertThat(new QueueLayoutStore(TestRedis.sharedClient(), prefix).recorded(QueueName.of("orders"))).isEqualTo(3);
        });
    }

    @Test
    void aPublishWhileTheContextIsBuiltToAQueueThatCannotBeLaidOutAnewFailsWithTheAnalysis() {
        new QueueLayoutStore(TestRedis.sharedClient(), prefix).record(QueueName.of("orders"), 2, 1);
        new RedisJobStore(TestRedis.sharedClient(), prefix).publish(QueueLayout.of(QueueName.of("orders"), 2).all().get(1),
                List.of(new dev.delayjobs.redis.NewJob("a", true, 60_000, false, "1")));
        runner.withPropertyValues("delay.queues.orders.partitions=3").withBean(PublishesEarly.class).run(context -> {
            assertThat(context).hasFailed();
            org.springframework.boot.diagnostics.FailureAnalysis analysis = new PartitionLayoutFailureAnalyzer()
                    .analyze(context.getStartupFailure());
            assertThat(analysis.getDescription()).contains("Queue 'orders' is laid out in 2 partition(s)").contains("asks for 3");
        });
    }

    @Test
    void aNameMapperOfAClientThatIsNotARedissonIsRefusedWhenTheApplicationStarts() {
        Config config = new Config();
        config.useSingleServer().setAddress("redis://" + TestRedis.host() + ":" + TestRedis.port()).setNameMapper(new org.redisson.config.NameMapper() {
            @Override
            public String map(String name) {
                return "tenant-1:" + name;
            }

            @Override
            public String unmap(String name) {
                return name.substring("tenant-1:".length());
            }
        });
        RedissonClient mapped = Redisson.create(config);
        try {
            // a proxy, as tracing instrumentations wrap the client: its NameMapper cannot be read
            RedissonClient proxied = (RedissonClient) Proxy.newProxyInstance(getClass().getClassLoader(),
                    new Class<?>[] { RedissonClient.class }, (proxy, method, args) -> {
                        try {
                            return method.invoke(mapped, args);
                        }
                        catch (InvocationTargetException ex) {
                            throw ex.getCause();
                        }
                    });
            new ApplicationContextRunner()
                    .withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, DelayAutoConfiguration.class))
                    .withPropertyValues("delay.key-prefix=" + prefix)
                    .withBean(RedissonClient.class, () -> proxied)
                    .run(context -> {
                        assertThat(context).hasFailed();
                        FailureAnalyzedException analyzed = DelayAutoConfigurationTest.causeOfType(context.getStartupFailure(),
                                FailureAnalyzedException.class);
                        assertThat(analyzed).isNotNull();
                        assertThat(analyzed.getMessage()).contains("a NameMapper is configured");
                        assertThat(analyzed.analysis().getAction()).contains("Remove the nameMapper");
                    });
        }
        finally {
            mapped.shutdown();
        }
    }

    /** A client that connects at its first command, not when it is built. */
    private static RedissonClient lazyClient(int port) {
        Config config = new Config();
        config.setLazyInitialization(true);
        config.useSingleServer().setAddress("redis://127.0.0.1:" + port);
        return Redisson.create(config);
    }

    /** Starts the lifecycles on {@code context.start()} only. */
    static final class StartWhenAsked extends DefaultLifecycleProcessor {

        @Override
        public void onRefresh() {
        }
    }

    /** A TCP proxy to the test Redis that counts the connections opened through it. */
    private static final class CountingProxy implements AutoCloseable {

        private final ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        private final AtomicInteger connections = new AtomicInteger();
        private final Queue<Socket> sockets = new ConcurrentLinkedQueue<>();

        CountingProxy() throws IOException {
            Thread acceptor = new Thread(this::accept, "redis-proxy");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        int port() {
            return server.getLocalPort();
        }

        int connections() {
            return connections.get();
        }

        private void accept() {
            while (!server.isClosed()) {
                try {
                    Socket client = server.accept();
                    connections.incrementAndGet();
                    Socket upstream = new Socket(TestRedis.host(), TestRedis.port());
                    sockets.add(client);
                    sockets.add(upstream);
                    pump(client, upstream);
                    pump(upstream, client);
                }
                catch (IOException closed) {
                    return;
                }
            }
        }

        private static void pump(Socket from, Socket to) {
            Thread thread = new Thread(() -> {
                try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                    in.transferTo(out);
                }
                catch (IOException closed) {
                    // one side closed: the test is over or Redisson dropped the connection
                }
            }, "redis-proxy-pump");
            thread.setDaemon(true);
            thread.start();
        }

        @Override
        public void close() throws IOException {
            server.close();
            for (Socket socket : sockets) {
                socket.close();
            }
        }
    }
}
