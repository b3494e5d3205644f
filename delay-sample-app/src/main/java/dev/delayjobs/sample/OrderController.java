package dev.delayjobs.sample;

import java.math.BigDecimal;
import java.net.URI;
import java.util.stream.Collectors;

import jakarta.validation.Valid;
import jakarta.validation.constraints.Digits;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Positive;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.bind.MethodArgumentNotValidException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

import dev.delayjobs.DelayQueueException;

/**
 * {@code POST /orders} places an order that must be paid within the payment timeout,
 * {@code POST /orders/{id}/pay} pays it, {@code GET /orders/{id}} shows it. Errors are RFC 9457
 * problem details: 400 for a bad request, 404 for an unknown order, 409 for paying a closed order,
 * 503 when Redis cannot be reached (a new order is then not saved; a payment may be, and paying
 * again completes it).
 */
@RestController
@RequestMapping("/orders")
class OrderController {

    private final OrderService orders;

    OrderController(OrderService orders) {
        this.orders = orders;
    }

    /** The body of {@code POST /orders}: {@code {"amount": 42.00}}. */
    record PlaceOrder(@NotNull @Positive @Digits(integer = 10, fraction = 2) BigDecimal amount) {
    }

    /** 201 with the new order, waiting for its payment; its timeout job is published before the answer. */
    @PostMapping
    ResponseEntity<CustomerOrder> place(@Valid @RequestBody PlaceOrder request) {
        CustomerOrder order = orders.place(request.amount());
        return ResponseEntity.created(URI.create("/orders/" + order.id())).body(order);
    }

    /** 200 with the paid order, also when it was paid already. */
    @PostMapping("/{id}/pay")
    CustomerOrder pay(@PathVariable long id) {
        return orders.pay(id);
    }

    /** 200 with the order. */
    @GetMapping("/{id}")
    CustomerOrder get(@PathVariable long id) {
        return orders.find(id);
    }

    @ExceptionHandler
    ProblemDetail notFound(OrderNotFoundException ex) {
        return ProblemDetail.forStatusAndDetail(HttpStatus.NOT_FOUND, ex.getMessage());
    }

    @ExceptionHandler
    ProblemDetail conflict(OrderStateException ex) {
        return ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT, ex.getMessage());
    }

    /** Names every invalid field, where the default says only "Invalid request content." */
    @ExceptionHandler
    ProblemDetail invalid(MethodArgumentNotValidException ex) {
        String detail = ex.getBindingResult().getFieldErrors().stream()
                .map(error -> error.getField() + " " + error.getDefaultMessage())
                .sorted()
                .collect(Collectors.joining("; "));
        return ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, detail);
    }

    /** A body that is missing, not JSON, or has an amount that is not a number. */
    @ExceptionHandler
    ProblemDetail unreadable(HttpMessageNotReadableException ex) {
        return ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST,
                "the body must be JSON with a decimal amount, such as {\"amount\": 42.00}");
    }

    @ExceptionHandler
    ProblemDetail queueUnavailable(DelayQueueException ex) {
        return ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE,
                "the job queue is unavailable; try again later");
    }
}
