package dev.delayjobs.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The one check of queue names: what it accepts, and the message users get for what it does not. */
class QueueNameTest {

    @Test
    void acceptsLettersDigitsDotsUnderscoresAndDashesStartingWithALetterOrDigit() {
        assertThat(QueueName.of("order-timeout.v2_eu").value()).isEqualTo("order-timeout.v2_eu");
        assertThat(QueueName.of("7").toString()).isEqualTo("7");
        assertThat(QueueName.of("a".repeat(100)).value()).hasSize(QueueName.MAX_LENGTH);
    }

    @Test
    void refusesAnythingElseNamingTheNameAndTheRule() {
        assertThatThrownBy(() -> QueueName.of(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("queue name must not be null");
        for (String bad : new String[] { "", " ", "-orders", ".orders", "or ders", "orders{x}", "orders#1", "a".repeat(101),
                "ordérs", "orders\n" }) {
            assertThatThrownBy(() -> QueueName.of(bad)).as(bad).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("invalid queue name '" + bad + "': use 1 to 100 letters, digits, '.', '_' or '-', "
                            + "starting with a letter or digit");
        }
    }

    @Test
    void equalAndOrderedByTheName() {
        assertThat(QueueName.of("a")).isEqualTo(QueueName.of("a")).hasSameHashCodeAs(QueueName.of("a"))
                .isLessThan(QueueName.of("b"));
    }

    @Test
    void anUnpartitionedQueueIsItsOwnSinglePartition() {
        Partition whole = QueueName.of("orders").whole();
        assertThat(whole.name()).isEqualTo("orders");
        assertThat(whole.index()).isZero();
        assertThat(whole.count()).isEqualTo(1);
        assertThat(whole.describe()).isEqualTo("Queue 'orders'");
    }
}
