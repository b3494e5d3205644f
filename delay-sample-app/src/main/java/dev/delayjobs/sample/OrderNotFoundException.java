package dev.delayjobs.sample;

/** No order has this id (answered with 404). */
class OrderNotFoundException extends RuntimeException {

    OrderNotFoundException(long id) {
        super("no order " + id);
    }
}
