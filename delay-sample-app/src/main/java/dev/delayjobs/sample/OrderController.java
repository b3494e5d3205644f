package dev.delayjobs.sample;

import java.net.URI;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

/**
 * {@code POST /orders} places an order that must be paid within the payment timeout,
 * {@code POST /orders/{id}/pay} pays it, {@code GET /orders/{id}} shows it.
 */
@RestController
@RequestMapping("/orders")
class OrderController {

    private final OrderStore orders;
    private final OrderTimeouts timeouts;
    private final OrderProperties properties;

    OrderController(OrderStore orders, OrderTimeouts timeouts, OrderProperties properties) {
        this.orders = orders;
        this.timeouts = timeouts;
        this.properties = properties;
    }

    /** 201 with the new order; its timeout job is published before the answer. */
    @PostMapping
    ResponseEntity<Order> place() {
        Order order = orders.create(properties.paymentTimeout());
        try {
            timeouts.schedule(order.id(), properties.paymentTimeout());
        }
        catch (RuntimeException ex) {
            orders.remove(order.id()); // no order without its timeout
            throw ex;
        }
        return ResponseEntity.created(URI.create("/orders/" + order.id())).body(order);
    }

    /** 200 with the paid order, 404 if unknown, 409 if it is paid or closed already. */
    @PostMapping("/{id}/pay")
    Order pay(@PathVariable long id) {
        Order paid = orders.pay(id).orElseThrow(() -> notFound(id));
        timeouts.cancel(id);
        return paid;
    }

    /** 200 with the order, 404 if unknown. */
    @GetMapping("/{id}")
    Order get(@PathVariable long id) {
        return orders.find(id).orElseThrow(() -> notFound(id));
    }

    @ExceptionHandler
    ProblemDetail conflict(OrderStateException ex) {
        return ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT, ex.getMessage());
    }

    private static ResponseStatusException notFound(long id) {
        return new ResponseStatusException(HttpStatus.NOT_FOUND, "no order " + id);
    }
}
