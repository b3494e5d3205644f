package dev.delayjobs.bridge;

import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.List;

import dev.delayjobs.core.PayloadCodec;
import dev.delayjobs.core.RedisDelayPublisher;
import dev.delayjobs.redis.RedissonQueueStore.Adoption;
import dev.delayjobs.redis.RedissonQueueStore.Element;

/**
 * Turns elements of a bridged queue into native jobs: each is read with its codec as the handler's
 * payload type and written as the native JSON payload, under a new id. An element that cannot be
 * read becomes a dead job with the reason, so the queue behind it keeps moving.
 */
final class ElementConversion {

    private final ElementFormat format;
    private final PayloadCodec payloads;
    private final Type payloadType;

    ElementConversion(ElementFormat format, PayloadCodec payloads, Type payloadType) {
        this.format = format;
        this.payloads = payloads;
        this.payloadType = payloadType;
    }

    List<Adoption> convert(List<Element> elements) {
        List<Adoption> adoptions = new ArrayList<>(elements.size());
        for (Element element : elements) {
            adoptions.add(convert(element));
        }
        return adoptions;
    }

    private Adoption convert(Element element) {
        try {
            Object payload = format.read(element.value(), payloadType);
            return new Adoption(element, newId(), payloads.write(payload), null);
        }
        catch (ElementFormat.UnreadableElementException ex) {
            return new Adoption(element, newId(), null, ex.getMessage());
        }
        catch (IllegalArgumentException ex) {
            return new Adoption(element, newId(), null, "element could not be stored as a job: " + ex.getMessage());
        }
    }

    /** An id as the publisher draws them: the job is new, whatever element it came from. */
    private static String newId() {
        return RedisDelayPublisher.newId();
    }
}
