package dev.delayjobs.redis;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The part of a record after {@code |}, which Lua never reads: the payload JSON, preceded by
 * headers (a trace context) when the job carries any. With headers it is
 * {@code ~<length>:<k=v&k=v><payload>}, the headers URL-encoded and {@code length} their length;
 * a JSON text never starts with {@code ~}, so a plain payload needs no marker.
 */
public final class JobEnvelope {

    private static final char MARK = '~';

    private JobEnvelope() {
    }

    /** The stored form of a payload with its headers (the payload alone when there are none). */
    public static String wrap(Map<String, String> headers, String payloadJson) {
        if (headers == null || headers.isEmpty()) {
            return payloadJson;
        }
        StringBuilder encoded = new StringBuilder();
        headers.forEach((key, value) -> encoded.append(encoded.isEmpty() ? "" : "&")
                .append(URLEncoder.encode(key, StandardCharsets.UTF_8)).append('=')
                .append(URLEncoder.encode(value, StandardCharsets.UTF_8)));
        return MARK + Integer.toString(encoded.length()) + ':' + encoded + payloadJson;
    }

    /** The payload JSON of a stored form. */
    static String payload(String stored) {
        int start = headersEnd(stored);
        return start < 0 ? stored : stored.substring(start);
    }

    /** The headers of a stored form; empty when it has none. */
    static Map<String, String> headers(String stored) {
        int end = headersEnd(stored);
        if (end < 0) {
            return Map.of();
        }
        String encoded = stored.substring(stored.indexOf(':') + 1, end);
        Map<String, String> headers = new LinkedHashMap<>();
        for (String pair : encoded.split("&")) {
            int eq = pair.indexOf('=');
            if (eq > 0) {
                headers.put(URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
                        URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
            }
        }
        return headers;
    }

    /** Where the payload starts after the headers, or -1 when the stored form has none (or is not an envelope). */
    private static int headersEnd(String stored) {
        if (stored.isEmpty() || stored.charAt(0) != MARK) {
            return -1;
        }
        int colon = stored.indexOf(':');
        if (colon < 2) {
            return -1;
        }
        try {
            int end = colon + 1 + Integer.parseInt(stored.substring(1, colon));
            return end <= stored.length() ? end : -1;
        }
        catch (NumberFormatException ex) {
            return -1;
        }
    }
}
