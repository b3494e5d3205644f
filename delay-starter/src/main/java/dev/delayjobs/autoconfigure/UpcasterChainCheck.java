package dev.delayjobs.autoconfigure;

import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;

import dev.delayjobs.PayloadUpcaster;
import dev.delayjobs.core.PayloadCodec;
import dev.delayjobs.listener.ListenerContainer;
import dev.delayjobs.listener.ListenerContainerRegistry;
import dev.delayjobs.payload.UpcasterChainException;

/**
 * Refuses to start when the upcaster chain of a handler's payload type (or of any type an
 * upcaster names) has a gap, goes past the type's version, or has a step twice: once every
 * singleton exists, before anything starts, and without Redis.
 */
final class UpcasterChainCheck implements SmartInitializingSingleton {

    private final PayloadCodec codec;
    private final ObjectProvider<ListenerContainerRegistry> registry;
    private final ObjectProvider<PayloadUpcaster> upcasters;

    UpcasterChainCheck(PayloadCodec codec, ObjectProvider<ListenerContainerRegistry> registry,
            ObjectProvider<PayloadUpcaster> upcasters) {
        this.codec = codec;
        this.registry = registry;
        this.upcasters = upcasters;
    }

    @Override
    public void afterSingletonsInstantiated() {
        Map<Class<?>, String> types = new LinkedHashMap<>();
        ListenerContainerRegistry containers = registry.getIfAvailable();
        if (containers != null) {
            for (ListenerContainer container : containers.getContainers()) {
                types.putIfAbsent(codec.type(container.payloadType()).getRawClass(),
                        "The handler of queue '" + container.queue() + "'");
            }
        }
        upcasters.orderedStream().forEach(upcaster -> types.putIfAbsent(upcaster.type(), "The upcasters"));
        types.forEach((type, where) -> {
            String mistake = codec.upcasters().mistake(type);
            if (mistake != null) {
                throw new UpcasterChainException(where + " (payload type " + type.getName() + ")", mistake);
            }
        });
    }
}
