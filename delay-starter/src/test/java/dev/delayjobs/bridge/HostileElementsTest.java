package dev.delayjobs.bridge;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectOutputStream;
import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.redisson.client.codec.Codec;
import org.redisson.client.codec.StringCodec;
import org.redisson.codec.Kryo5Codec;
import org.redisson.codec.SerializationCodec;
import org.springframework.core.ParameterizedTypeReference;
import tools.jackson.databind.json.JsonMapper;

import dev.delayjobs.bridge.BridgeHandlers.OrderClose;
import dev.delayjobs.core.PayloadCodec;
import dev.delayjobs.redis.RedissonQueueStore.Adoption;
import dev.delayjobs.redis.RedissonQueueStore.Element;
import dev.delayjobs.redis.RedissonQueueStore.Source;

/**
 * Elements written by hand, byte by byte, as someone who can write to the list could: each becomes
 * a dead job with its reason, read without allocating what it declares, and nothing it does
 * escapes the conversion. Pure JVM; {@code BridgeHostileElementTest} shows the same through Redis.
 */
class HostileElementsTest {

    private static final long MAX_PAYLOAD = 64 * 1024;

    /** {@code new long[0]} as ObjectOutputStream writes it, its length patched to 2^31-9: 27 bytes. */
    static final byte[] TWO_BILLION_LONGS = HexFormat.of().parseHex(
            "aced0005" + "75" + "72" + "0002" + "5b4a" + "782004b512b17593" + "02" + "0000" + "78" + "70" + "7ffffff7");

    /** {@code new byte[0]} likewise, declaring 768 MiB. */
    static final byte[] GIGANTIC_BYTES = HexFormat.of().parseHex(
            "aced0005" + "75" + "72" + "0002" + "5b42" + "acf317f8060854e0" + "02" + "0000" + "78" + "70" + "30000000");

    /** Kryo's {@code writeClassAndObject(new ArrayList<>())} (class by name), its size patched to 2^31-9. */
    static final byte[] KRYO_HUGE_LIST = HexFormat.of().parseHex(
            "0100" + hex("java.util.ArrayLis") + "f4" + "78ffffff0f");

    /** Kryo's String (registered id 1, written 3) declaring 2^31-9 UTF-8 characters. */
    private static final byte[] KRYO_HUGE_STRING = HexFormat.of().parseHex("03" + "f7ffffff0f");

    private final PayloadCodec payloads = new PayloadCodec(new JsonMapper(), MAX_PAYLOAD, true);

    @Test
    void aJavaSerializedArrayDeclaringTwoBillionLongsIsBuriedWithoutBeingAllocated() {
        assertThat(TWO_BILLION_LONGS).hasSize(27);
        String error = buried(conversion(javaSerialization(), OrderClose.class), TWO_BILLION_LONGS);
        assertThat(error).startsWith("element could not be read with SerializationCodec: it declares 2147483639 long "
                + "values in an array");
        assertThat(buried(conversion(javaSerialization(), OrderClose.class), GIGANTIC_BYTES))
                .startsWith("element could not be read with SerializationCodec: it declares 805306368 byte values in an array");
    }

    @Test
    void kryoElementsDeclaringHugeCollectionsOrStringsAreBuriedWithoutBeingAllocated() {
        ElementConversion kryo = conversion(format("kryo", new Kryo5Codec()), OrderClose.class);
        assertThat(buried(kryo, KRYO_HUGE_LIST)).startsWith("element could not be read with Kryo5Codec: it declares 2147483639 "
                + "elements");
        assertThat(buried(kryo, KRYO_HUGE_STRING)).startsWith("element could not be read with Kryo5Codec: it declares "
                + "2147483638 characters");
    }

    @Test
    void anElementLongerThanAPayloadCanBeIsBuriedUnread() {
        byte[] big = new byte[(int) (4 * MAX_PAYLOAD) + 1];
        assertThat(buried(conversion(javaSerialization(), OrderClose.class), big)).isEqualTo("element is " + big.length
                + " bytes; elements over " + 4 * MAX_PAYLOAD + " bytes (4 x delay.max-payload-size) are not read");
    }

    @Test
    void whateverAFormatThrowsBuriesTheElementWithItsReason() {
        for (Throwable thrown : List.of(new StackOverflowError(), new OutOfMemoryError("Java heap space"),
                new NoClassDefFoundError("com/acme/Gone"), new IllegalStateException("custom readObject"))) {
            ElementFormat throwing = new ElementFormat() {
                @Override
                public Codec codec() {
                    return StringCodec.INSTANCE;
                }

                @Override
                public Object read(byte[] value, Type type) {
                    throw sneaky(thrown);
                }

                @Override
                public String describe() {
                    return "ThrowingCodec";
                }
            };
            assertThat(buried(conversion(throwing, OrderClose.class), new byte[] { 1 }))
                    .isEqualTo("element could not be read with ThrowingCodec: " + thrown.getClass().getName());
        }
    }

    @Test
    void theCollectionsOnTheAllowListAreRead() throws IOException {
        ElementConversion lists = conversion(javaSerialization(), ArrayList.class);
        Adoption list = lists.convert(List.of(element(serialized(new ArrayList<>(List.of("a", "b")))))).get(0);
        assertThat(list.error()).isNull();
        assertThat(list.payload()).isEqualTo("[\"a\",\"b\"]");
        Adoption map = conversion(javaSerialization(), HashMap.class)
                .convert(List.of(element(serialized(new HashMap<>(Map.of("k", 1L)))))).get(0);
        assertThat(map.error()).isNull();
        assertThat(map.payload()).isEqualTo("{\"k\":1}");
        Adoption set = conversion(javaSerialization(), HashSet.class)
                .convert(List.of(element(serialized(new HashSet<>(Set.of(7L)))))).get(0);
        assertThat(set.error()).isNull();
        assertThat(set.payload()).isEqualTo("[7]");
    }

    @Test
    void aJsonKeyCannotForgeALogLineThroughTheReason() {
        Type counts = new ParameterizedTypeReference<Map<String, Long>>() { }.getType();
        ElementConversion json = conversion(new JsonTextFormat(payloads), counts);
        String error = buried(json, "{\"x\\nINFO forged line\\r\\u0007\":\"not a number\"}".getBytes(StandardCharsets.UTF_8));
        assertThat(error).doesNotContain("\n", "\r", "\u0007");
        assertThat(error).contains("x\\nINFO forged line\\r\\u0007");
    }

    private ElementFormat javaSerialization() {
        return format("javaSerialization", new SerializationCodec());
    }

    private ElementFormat format(String name, Codec codec) {
        return ElementFormats.resolve("q", name, List.of(OrderClose.class.getName()), bean -> codec, codec, payloads);
    }

    private ElementConversion conversion(ElementFormat format, Type type) {
        return new ElementConversion(format, payloads, type);
    }

    /** The dead job's error the conversion gives {@code bytes}; fails when it would be a job. */
    private static String buried(ElementConversion conversion, byte[] bytes) {
        Adoption adoption = conversion.convert(List.of(element(bytes))).get(0);
        assertThat(adoption.payload()).as("a job was made of it").isNull();
        return adoption.error();
    }

    private static Element element(byte[] bytes) {
        return new Element(Source.TARGET, bytes, bytes, -1);
    }

    private static byte[] serialized(Object value) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(value);
        }
        return bytes.toByteArray();
    }

    private static String hex(String ascii) {
        return HexFormat.of().formatHex(ascii.getBytes(StandardCharsets.US_ASCII));
    }

    @SuppressWarnings("unchecked")
    private static <T extends Throwable> RuntimeException sneaky(Throwable thrown) throws T {
        throw (T) thrown;
    }
}
