package dev.delayjobs.bridge;

import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.List;

import dev.delayjobs.core.ErrorText;
import dev.delayjobs.core.PayloadCodec;
import dev.delayjobs.core.RedisDelayPublisher;
import dev.delayjobs.redis.RedissonQueueStore.Adoption;
import dev.delayjobs.redis.RedissonQueueStore.Element;

/**
 * Turns elements of a bridged queue into native jobs: each is read with its codec as the handler's
 * payload type and written as the native JSON payload, under a new id. An element that cannot be
 * read, whatever reading it throws, becomes a dead job with the reason (escaped as the native
 * path escapes errors), so the queue behind it keeps moving; one longer than the
 * {@link ReadLimits} allow is not read at all.
 */
final class ElementConversion {

    private final ElementFormat format;
    private final PayloadCodec payloads;
    private final Type payloadType;
    private final ReadLimits limits;

    ElementConversion(ElementFormat format, PayloadCodec payloads, Type payloadType) {
        this.format = format;
        this.payloads = payloads;
        this.payloadType = payloadType;
        this.limits = new ReadLimits(payloads.maxPayloadBytes());
    }

    List<Adoption> convert(List<Element> elements) {
        List<Adoption> adoptions = new ArrayList<>(elements.size());
        for (Element element : elements) {
            adoptions.add(convert(element));
        }
        return adoptions;
    }

    private Adoption convert(Element element) {
        String tooLong = limits.tooLong(element.value().length);
        if (tooLong != null) {
            return dead(element, tooLong);
        }
        try {
            Object payload = format.read(element.value(), payloadType);
            return new Adoption(element, newId(), payloads.write(payload), null);
        }
        catch (ElementFormat.UnreadableElementException ex) {
            return dead(element, ex.getMessage());
        }
        catch (IllegalArgumentException ex) {
            return dead(element, "element could not be stored as a job: " + ex.getMessage());
        }
        catch (Throwable ex) {
            // a codec's own code (a custom readObject, a serializer), a stack overflow, memory: the
            // element would fail the same way every time, and must not stop the queue behind it;
            // the message is left out, it may quote the element
            return dead(element, "element could not be read with " + codecName() + ": " + ex.getClass().getName());
        }
    }

    private Adoption dead(Element element, String reason) {
        return new Adoption(element, newId(), null, ErrorText.of(reason));
    }

    private String codecName() {
        String described = format.describe();
        int space = described.indexOf(' ');
        return space < 0 ? described : described.substring(0, space);
    }

    /** An id as the publisher draws them: the job is new, whatever element it came from. */
    private static String newId() {
        return RedisDelayPublisher.newId();
    }
}
