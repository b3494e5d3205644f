package dev.delayjobs.payload;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.delayjobs.PayloadUpcaster;
import tools.jackson.databind.JsonNode;

/**
 * The application's {@link PayloadUpcaster}s by payload type and version: brings a stored payload
 * up to its handler's version, one step at a time, and finds the mistakes in a chain at startup.
 */
public final class Upcasters {

    /** No upcasters: only payloads at their handler's version are read. */
    public static final Upcasters NONE = new Upcasters(List.of());

    /** Per type, the upcasters by the version they read; the first one given wins a duplicate. */
    private final Map<Class<?>, TreeMap<Integer, PayloadUpcaster>> byType = new HashMap<>();
    private final List<String> duplicates = new ArrayList<>();

    public Upcasters(List<PayloadUpcaster> upcasters) {
        for (PayloadUpcaster upcaster : upcasters) {
            PayloadUpcaster earlier = byType.computeIfAbsent(upcaster.type(), t -> new TreeMap<>())
                    .putIfAbsent(upcaster.fromVersion(), upcaster);
            if (earlier != null) {
                duplicates.add("two upcasters of " + upcaster.type().getName() + " from version " + upcaster.fromVersion()
                        + " (" + earlier + " and " + upcaster + ")");
            }
        }
    }

    /**
     * {@code payload}, stored at version {@code from}, as {@code type} at version {@code to}; throws
     * {@link PayloadVersionException} naming the versions when {@code from} is newer or a step is missing.
     */
    public JsonNode upcast(JsonNode payload, Class<?> type, int from, int to) {
        if (from > to || from < 1) {
            throw new PayloadVersionException("payload version " + from + " of " + type.getSimpleName()
                    + (from < 1 ? " is not a version" : " is newer than the version this handler reads (" + to
                            + "): it was published by a newer release; requeue it once that release runs"));
        }
        TreeMap<Integer, PayloadUpcaster> steps = byType.getOrDefault(type, new TreeMap<>());
        JsonNode current = payload;
        for (int version = from; version < to; version++) {
            PayloadUpcaster step = steps.get(version);
            if (step == null) {
                throw new PayloadVersionException("payload version " + from + " of " + type.getSimpleName()
                        + " cannot be brought to version " + to + ": no upcaster from version " + version + " to "
                        + (version + 1));
            }
            try {
                current = step.upcast(current);
            }
            catch (RuntimeException ex) {
                // its message may quote the payload: the class name only
                throw new PayloadVersionException("the upcaster of " + type.getSimpleName() + " from version " + version
                        + " failed: " + ex.getClass().getName(), ex);
            }
            if (current == null) {
                throw new PayloadVersionException("the upcaster of " + type.getSimpleName() + " from version " + version
                        + " returned null");
            }
        }
        return current;
    }

    /**
     * What is wrong with the chain of {@code type} at its declared version, or null: a step missing
     * between its oldest upcaster and that version, an upcaster from that version or past it, or
     * two upcasters of one step. A type with no upcasters has no chain (its old versions retired,
     * or it never had any).
     */
    public String mistake(Class<?> type) {
        int version = PayloadVersions.of(type);
        for (String duplicate : duplicates) {
            if (duplicate.startsWith("two upcasters of " + type.getName() + " ")) {
                return duplicate;
            }
        }
        TreeMap<Integer, PayloadUpcaster> steps = byType.get(type);
        if (steps == null || steps.isEmpty()) {
            return null;
        }
        if (steps.lastKey() >= version) {
            return steps.lastEntry().getValue() + " goes past the type's version: " + type.getName()
                    + " is at @PayloadVersion(" + version + "), so its last upcaster is from version " + (version - 1);
        }
        for (int from = steps.firstKey(); from < version; from++) {
            if (!steps.containsKey(from)) {
                return "no upcaster of " + type.getName() + " from version " + from + " to " + (from + 1)
                        + ": its chain goes from version " + steps.firstKey() + " to " + version;
            }
        }
        return null;
    }
}
