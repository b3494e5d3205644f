package dev.delayjobs.format;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.redisson.api.RKeys;
import org.redisson.api.RMap;
import org.redisson.api.RType;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.ByteArrayCodec;
import org.redisson.client.codec.StringCodec;
import org.redisson.client.protocol.ScoredEntry;
import org.redisson.codec.CompositeCodec;

/**
 * Raw Redis contents as plain Java values that read as JSON, and back: key -> {@code type}
 * ({@code string}, {@code hash}, {@code list}, {@code set}, {@code zset}) and {@code value}. A
 * value is its text, or {@code {"base64": ...}} when it is not printable UTF-8 (Redisson's packed
 * elements); sorted-set entries are {@code {"member": ..., "score": ...}} in score order; hash
 * fields are text, sorted, like keys and set members, so that a rewrite of the same data reads
 * the same.
 */
final class RedisDump {

    private static final CompositeCodec HASH = new CompositeCodec(StringCodec.INSTANCE, ByteArrayCodec.INSTANCE,
            ByteArrayCodec.INSTANCE);

    private RedisDump() {
    }

    /**
     * The keys named, each as type and value, sorted by name. Keys with a time to live (request
     * memos, rate logs) are left out: they would have expired before the fixture is read.
     */
    static Map<String, Object> read(RedissonClient redisson, Collection<String> keys) {
        RKeys all = redisson.getKeys();
        Map<String, Object> dump = new TreeMap<>();
        for (String key : keys) {
            RType type = all.getType(key);
            if (type == null || all.remainTimeToLive(key) >= 0) {
                continue; // absent, or expiring
            }
            dump.put(key, entry(redisson, key, type));
        }
        return dump;
    }

    private static Map<String, Object> entry(RedissonClient redisson, String key, RType type) {
        Map<String, Object> entry = new LinkedHashMap<>();
        switch (type) {
            case OBJECT -> {
                entry.put("type", "string");
                entry.put("value", value(redisson.<byte[]>getBucket(key, ByteArrayCodec.INSTANCE).get()));
            }
            case MAP -> {
                entry.put("type", "hash");
                RMap<String, byte[]> hash = redisson.getMap(key, HASH);
                Map<String, Object> fields = new TreeMap<>();
                hash.readAllMap().forEach((field, value) -> fields.put(field, value(value)));
                entry.put("value", fields);
            }
            case LIST -> {
                entry.put("type", "list");
                entry.put("value", values(redisson.<byte[]>getList(key, ByteArrayCodec.INSTANCE).readAll()));
            }
            case SET -> {
                entry.put("type", "set");
                List<Object> members = values(redisson.<byte[]>getSet(key, ByteArrayCodec.INSTANCE).readAll());
                members.sort(Comparator.comparing(Object::toString));
                entry.put("value", members);
            }
            case ZSET -> {
                entry.put("type", "zset");
                List<Object> entries = new ArrayList<>();
                for (ScoredEntry<byte[]> scored : redisson.<byte[]>getScoredSortedSet(key, ByteArrayCodec.INSTANCE)
                        .entryRange(0, -1)) {
                    Map<String, Object> member = new LinkedHashMap<>();
                    member.put("member", value(scored.getValue()));
                    double score = scored.getScore();
                    member.put("score", score == Math.rint(score) && Math.abs(score) < 1e15 ? (Object) (long) score : score);
                    entries.add(member);
                }
                entry.put("value", entries);
            }
            default -> throw new IllegalStateException("key " + key + " is a " + type + ", which the fixtures do not hold");
        }
        return entry;
    }

    /** Writes {@code dump} (as {@link #read} gives it, or as read back from JSON) into Redis. */
    @SuppressWarnings("unchecked")
    static void write(RedissonClient redisson, Map<String, Object> dump) {
        dump.forEach((key, raw) -> {
            Map<String, Object> entry = (Map<String, Object>) raw;
            Object value = entry.get("value");
            switch ((String) entry.get("type")) {
                case "string" -> redisson.<byte[]>getBucket(key, ByteArrayCodec.INSTANCE).set(bytes(value));
                case "hash" -> {
                    Map<String, byte[]> fields = new LinkedHashMap<>();
                    ((Map<String, Object>) value).forEach((field, v) -> fields.put(field, bytes(v)));
                    redisson.<String, byte[]>getMap(key, HASH).putAll(fields);
                }
                case "list" -> redisson.<byte[]>getList(key, ByteArrayCodec.INSTANCE)
                        .addAll(((List<Object>) value).stream().map(RedisDump::bytes).toList());
                case "set" -> redisson.<byte[]>getSet(key, ByteArrayCodec.INSTANCE)
                        .addAll(((List<Object>) value).stream().map(RedisDump::bytes).toList());
                case "zset" -> {
                    Map<byte[], Double> members = new LinkedHashMap<>();
                    for (Object m : (List<Object>) value) {
                        Map<String, Object> member = (Map<String, Object>) m;
                        members.put(bytes(member.get("member")), ((Number) member.get("score")).doubleValue());
                    }
                    redisson.<byte[]>getScoredSortedSet(key, ByteArrayCodec.INSTANCE).addAll(members);
                }
                default -> throw new IllegalArgumentException("key " + key + ": unknown type " + entry.get("type"));
            }
        });
    }

    private static List<Object> values(Collection<byte[]> raw) {
        return new ArrayList<>(raw.stream().map(RedisDump::value).toList());
    }

    private static Object value(byte[] raw) {
        try {
            String text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(raw)).toString();
            if (text.chars().noneMatch(c -> c < 0x20 || c == 0x7f)) {
                return text;
            }
        }
        catch (CharacterCodingException ex) {
            // binary: below
        }
        return Map.of("base64", Base64.getEncoder().encodeToString(raw));
    }

    @SuppressWarnings("unchecked")
    private static byte[] bytes(Object value) {
        if (value instanceof String text) {
            return text.getBytes(StandardCharsets.UTF_8);
        }
        return Base64.getDecoder().decode((String) ((Map<String, Object>) value).get("base64"));
    }
}
