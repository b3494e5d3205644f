package dev.delayjobs.payload;

import java.util.LinkedHashMap;
import java.util.Map;

import dev.delayjobs.PayloadVersion;

/**
 * Where a job's payload version lives: in the headers stored with the job (see
 * {@code redis.JobEnvelope}), under {@link #HEADER}, only when it is above 1. A job without it is
 * at version 1, as every job published before versions existed, so neither the record layout nor
 * the scripts changed.
 */
public final class PayloadVersions {

    /** The header holding a version above 1. */
    public static final String HEADER = "pv";

    private static final ClassValue<Integer> DECLARED = new ClassValue<>() {
        @Override
        protected Integer computeValue(Class<?> type) {
            PayloadVersion version = type.getAnnotation(PayloadVersion.class);
            if (version == null) {
                return 1;
            }
            if (version.value() < 1) {
                throw new IllegalArgumentException("@PayloadVersion(" + version.value() + ") on " + type.getName()
                        + ": a version is 1 or more");
            }
            return version.value();
        }
    };

    private PayloadVersions() {
    }

    /** The version {@code type} declares ({@link PayloadVersion}), 1 without one. */
    public static int of(Class<?> type) {
        return DECLARED.get(type);
    }

    /**
     * The version of a stored job from its headers: 1 without the header. A header that is not a
     * positive number reads as 0, which no handler is at, so such a job goes to the dead set with
     * the version named rather than being read as another version.
     */
    public static int stored(Map<String, String> headers) {
        String text = headers.get(HEADER);
        if (text == null) {
            return 1;
        }
        try {
            int version = Integer.parseInt(text);
            return version >= 1 ? version : 0;
        }
        catch (NumberFormatException ex) {
            return 0;
        }
    }

    /** {@code headers} (a trace context, say) with {@code version} added when it is above 1. */
    public static Map<String, String> stamped(Map<String, String> headers, int version) {
        if (version <= 1) {
            return headers;
        }
        Map<String, String> stamped = new LinkedHashMap<>(headers);
        stamped.put(HEADER, Integer.toString(version));
        return stamped;
    }
}
