package dev.delayjobs.payload;

/**
 * A stored payload that cannot be brought to its handler's version: published by a newer version
 * of the type (a rollback), or with a step of the upcaster chain missing. Its message names the
 * type and the versions, and none of the payload.
 */
public final class PayloadVersionException extends IllegalArgumentException {

    PayloadVersionException(String message) {
        super(message);
    }

    PayloadVersionException(String message, Throwable cause) {
        super(message, cause);
    }
}
