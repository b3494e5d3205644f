package dev.delayjobs.sample;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;

import org.springframework.stereotype.Component;

/**
 * The sample's orders, in memory. Status changes are atomic per order, so a payment and the
 * timeout job racing for the same order cannot both win.
 */
@Component
class OrderStore {

    private final Map<Long, Order> orders = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();
    private final Clock clock = Clock.systemUTC();

    Order create(Duration paymentTimeout) {
        long id = ids.incrementAndGet();
        var now = clock.instant();
        Order order = Order.pending(id, now, now.plus(paymentTimeout));
        orders.put(id, order);
        return order;
    }

    Optional<Order> find(long id) {
        return Optional.ofNullable(orders.get(id));
    }

    void remove(long id) {
        orders.remove(id);
    }

    /**
     * Marks a pending order paid.
     * @return the paid order, or empty if there is no such order
     * @throws OrderStateException if the order is not pending
     */
    Optional<Order> pay(long id) {
        return update(id, order -> order.paid(clock.instant()));
    }

    /**
     * Closes the order if it is still pending.
     * @return the closed order, or empty if there is no such order or it was not pending
     */
    Optional<Order> closeIfUnpaid(long id) {
        try {
            return update(id, order -> order.closed(clock.instant()));
        }
        catch (OrderStateException paidOrAlreadyClosed) {
            return Optional.empty();
        }
    }

    private Optional<Order> update(long id, UnaryOperator<Order> change) {
        return Optional.ofNullable(orders.computeIfPresent(id, (key, order) -> change.apply(order)));
    }
}
