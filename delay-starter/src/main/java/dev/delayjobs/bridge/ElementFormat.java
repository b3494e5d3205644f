package dev.delayjobs.bridge;

import java.lang.reflect.Type;

import org.redisson.client.codec.Codec;

/**
 * How the elements of one bridged queue are written and read: the Redisson codec its producers use
 * ({@code delay.queues.<queue>.redisson-codec}), and how its bytes become the handler's payload type.
 */
public interface ElementFormat {

    /** The codec the {@code RDelayedQueue} is opened with. */
    Codec codec();

    /** What is offered to the {@code RDelayedQueue} for {@code payload}: by default the payload itself, for the codec to write. */
    default Object toElement(Object payload) {
        return payload;
    }

    /**
     * Reads an element's bytes as {@code type}; throws when it cannot, with a reason that names no
     * payload content.
     */
    Object read(byte[] value, Type type) throws UnreadableElementException;

    /** "StringCodec (JSON text)", for the startup log and the endpoint. */
    String describe();

    /** An element that cannot become a payload of the handler's type; the message is its dead job's error. */
    final class UnreadableElementException extends Exception {

        private static final long serialVersionUID = 1L;

        public UnreadableElementException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
