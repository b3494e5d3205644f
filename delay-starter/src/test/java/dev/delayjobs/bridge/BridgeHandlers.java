package dev.delayjobs.bridge;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.redisson.client.codec.Codec;
import org.redisson.codec.Kryo5Codec;
import org.redisson.codec.SerializationCodec;
import org.redisson.codec.TypedJsonJacksonCodec;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.delayjobs.DelayedHandler;

/** The handler of the bridged queue {@code ${test.queue}} in the compatibility-mode tests, and a Kryo codec bean. */
@Configuration(proxyBeanMethods = false)
class BridgeHandlers {

    /** The payload the old producers offer (Serializable for SerializationCodec's producers). */
    public record OrderClose(long orderId, String reason) implements java.io.Serializable {
    }

    /** When each order's close ran, epoch ms, by order id; and every id handled more than once. */
    static final class Closed {

        final Map<Long, Long> handledAt = new ConcurrentHashMap<>();
        final Set<Long> twice = ConcurrentHashMap.newKeySet();

        @DelayedHandler(queue = "${test.queue}", concurrency = "4")
        void close(OrderClose order) {
            if (handledAt.putIfAbsent(order.orderId(), System.currentTimeMillis()) != null) {
                twice.add(order.orderId());
            }
        }
    }

    @Bean
    Closed closed() {
        return new Closed();
    }

    @Bean
    Codec kryo() {
        return new Kryo5Codec();
    }

    @Bean
    Codec typedJson() {
        return new TypedJsonJacksonCodec(OrderClose.class);
    }

    @Bean
    Codec javaSerialization() {
        return new SerializationCodec();
    }
}
