package dev.delayjobs.queue;

import java.util.regex.Pattern;

/**
 * A queue's name, checked once where it enters (a publish, a control call, the endpoint, a
 * property): 1 to {@value #MAX_LENGTH} letters, digits, '.', '_' or '-', starting with a letter or
 * digit. Every layer below takes this type, so none checks the name again.
 *
 * @param value the name as the user wrote it
 */
public record QueueName(String value) implements Comparable<QueueName> {

    /** Longest queue name accepted. */
    public static final int MAX_LENGTH = 100;

    private static final Pattern VALID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0," + (MAX_LENGTH - 1) + "}");

    /** @throws IllegalArgumentException naming the name and the rule it breaks */
    public QueueName {
        if (value == null) {
            throw new IllegalArgumentException("queue name must not be null");
        }
        if (!VALID.matcher(value).matches()) {
            throw new IllegalArgumentException("invalid queue name '" + value + "': use 1 to " + MAX_LENGTH
                    + " letters, digits, '.', '_' or '-', starting with a letter or digit");
        }
    }

    /** The name {@code value}, checked. */
    public static QueueName of(String value) {
        return new QueueName(value);
    }

    /** The queue's single partition when it is not partitioned (named as the queue). */
    public Partition whole() {
        return Partition.of(this, 0, 1);
    }

    @Override
    public int compareTo(QueueName other) {
        return value.compareTo(other.value);
    }

    @Override
    public String toString() {
        return value;
    }
}
