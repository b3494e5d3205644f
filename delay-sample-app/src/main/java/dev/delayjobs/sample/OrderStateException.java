package dev.delayjobs.sample;

/** A status change that the order's current status does not allow (answered with 409). */
class OrderStateException extends RuntimeException {

    OrderStateException(String message) {
        super(message);
    }
}
