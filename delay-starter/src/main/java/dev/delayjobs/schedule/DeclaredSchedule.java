package dev.delayjobs.schedule;

import dev.delayjobs.queue.QueueName;

/** A schedule an application declares ({@code @Recurring}), with the payload of its ticks. */
record DeclaredSchedule(QueueName queue, String name, ScheduleSpec spec, String payload, String where) {

    static final int MAX_NAME_LENGTH = 200;

    DeclaredSchedule {
        checkName(name);
    }

    /** Names go into job ids ({@code name@tick}) and key fields: a small alphabet, bounded. */
    static void checkName(String name) {
        if (name == null || name.isEmpty() || name.length() > MAX_NAME_LENGTH || !name.matches("[A-Za-z0-9._:-]+")) {
            throw new IllegalArgumentException("schedule name '" + name + "' must be 1 to " + MAX_NAME_LENGTH
                    + " letters, digits, '.', '_', '-' or ':'");
        }
    }
}
