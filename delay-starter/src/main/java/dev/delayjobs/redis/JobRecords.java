package dev.delayjobs.redis;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.delayjobs.store.StoredJob;

/** Reads the job records and claim entries the scripts return (see _record.lua and _claims.lua). */
final class JobRecords {

    // mirrors decode() in _record.lua
    private static final Pattern COMPACT = Pattern.compile("^([0-9a-z]{1,12}),(-?[0-9a-z]{1,12}),(-?[0-9a-z]{1,12})\\|(.*)$",
            Pattern.DOTALL);

    private JobRecords() {
    }

    /** Whether {@code ar} (of a claim entry, base 36, see _claims.lua) says the job is suspect; false if not a number. */
    static boolean isSuspect(String ar) {
        try {
            return (Long.parseLong(ar, 36) & 4) != 0;
        }
        catch (NumberFormatException ex) {
            return false;
        }
    }

    /**
     * Reads a record with the {@code ar} of its claim entry (base 36, {@code "0"} when it has none), or
     * returns {@code null} when either is not in its format.
     */
    static StoredJob parse(String id, String record, String ar) {
        Matcher m = COMPACT.matcher(record);
        if (m.matches() && ar.length() <= 12) {
            try {
                long flags = Long.parseLong(ar, 36);
                long due = Long.parseLong(m.group(2), 36);
                // flags: attempts * 8 + suspect * 4 + hold, as in _claims.lua
                return new StoredJob(id, m.group(1), (int) (flags / 8), due, due - Long.parseLong(m.group(3), 36),
                        JobEnvelope.payload(m.group(4)), JobEnvelope.headers(m.group(4)));
            }
            catch (NumberFormatException ex) {
                return null;
            }
        }
        return null;
    }
}
