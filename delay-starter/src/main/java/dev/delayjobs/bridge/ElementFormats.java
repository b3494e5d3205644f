package dev.delayjobs.bridge;

import java.util.List;
import java.util.Locale;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;
import org.redisson.client.codec.BaseCodec;
import org.redisson.client.codec.Codec;
import org.redisson.client.codec.StringCodec;
import org.springframework.util.ClassUtils;

import dev.delayjobs.core.PayloadCodec;

/**
 * Builds the {@link ElementFormat} of a bridged queue from its settings, refusing what cannot be read
 * safely: a binary codec with no allowed classes (it would build any class named in Redis), or one
 * that cannot be restricted to them.
 */
public final class ElementFormats {

    private static final String JSON_JACKSON_CODEC = "org.redisson.codec.JsonJacksonCodec";

    private ElementFormats() {
    }

    /** A setting that cannot work: {@link #property()} names which one, {@link #getMessage()} why. */
    public static final class InvalidFormatException extends RuntimeException {

        private static final long serialVersionUID = 1L;

        private final String property;

        InvalidFormatException(String property, String message) {
            super(message);
            this.property = property;
        }

        public String property() {
            return property;
        }
    }

    /**
     * @param queue the queue, for messages
     * @param codecName {@code redisson-codec}: "string", "json", a bean name, or null for {@code clientCodec}
     * @param allowedClasses {@code redisson-allowed-classes}
     * @param codecBeans finds a {@code Codec} bean by name, or returns null
     * @param clientCodec the RedissonClient's codec
     */
    public static ElementFormat resolve(String queue, @Nullable String codecName, List<String> allowedClasses,
            Function<String, @Nullable Codec> codecBeans, Codec clientCodec, PayloadCodec payloads) {
        String property = "delay.queues." + queue + ".redisson-codec";
        Codec codec;
        if (codecName == null) {
            codec = clientCodec;
        }
        else if (codecName.trim().toLowerCase(Locale.ROOT).equals("string")) {
            codec = StringCodec.INSTANCE;
        }
        else if (codecName.trim().toLowerCase(Locale.ROOT).equals("json")) {
            if (!jacksonTwoPresent()) {
                throw new InvalidFormatException(property, "\"json\" is Redisson's JsonJacksonCodec, which needs Jackson 2 "
                        + "(com.fasterxml.jackson.core:jackson-databind) on the class path");
            }
            codec = JacksonTwo.codec();
        }
        else {
            codec = codecBeans.apply(codecName.trim());
            if (codec == null) {
                throw new InvalidFormatException(property, "no Codec bean named '" + codecName.trim() + "'; use \"string\", "
                        + "\"json\" or the name of a Codec bean");
            }
        }
        if (codec instanceof StringCodec) {
            return new JsonTextFormat(payloads);
        }
        if (jacksonTwoPresent() && JacksonTwo.isJsonJacksonCodec(codec)) {
            return JacksonTwo.format(codec);
        }
        return allowListed(queue, codec, codecName == null, allowedClasses);
    }

    private static ElementFormat allowListed(String queue, Codec codec, boolean defaulted, List<String> allowedClasses) {
        String name = "delay.queues." + queue + ".";
        String which = codec.getClass().getSimpleName() + (defaulted ? " (the RedissonClient's codec)" : "");
        if (allowedClasses.isEmpty()) {
            throw new InvalidFormatException(name + "redisson-allowed-classes", which + " is a binary codec: it builds "
                    + "whatever class an element names, and anyone who can write to Redis can write the list. List the "
                    + "payload classes it may build in " + name + "redisson-allowed-classes (class names, or packages "
                    + "as com.acme.orders.*), or set " + name + "redisson-codec to the codec the producers use");
        }
        AllowListClassLoader loader = new AllowListClassLoader(ElementFormats.class.getClassLoader(), allowedClasses);
        Codec reading;
        try {
            reading = BaseCodec.copy(loader, codec);
        }
        catch (ReflectiveOperationException | RuntimeException ex) {
            reading = null;
        }
        if (reading == null || reading == codec) {
            throw new InvalidFormatException(name + "redisson-codec", which + " cannot be restricted to "
                    + "redisson-allowed-classes (it has no copy constructor taking a ClassLoader); use a Redisson codec "
                    + "such as Kryo5Codec or SerializationCodec, or a JSON codec");
        }
        return new AllowListedFormat(codec, reading, loader);
    }

    private static boolean jacksonTwoPresent() {
        return ClassUtils.isPresent("com.fasterxml.jackson.databind.ObjectMapper", ElementFormats.class.getClassLoader());
    }

    /** Touches Jackson 2 classes only when called, so the rest works without Jackson 2. */
    private static final class JacksonTwo {

        static Codec codec() {
            return new org.redisson.codec.JsonJacksonCodec();
        }

        static boolean isJsonJacksonCodec(Codec codec) {
            return ClassUtils.isPresent(JSON_JACKSON_CODEC, ElementFormats.class.getClassLoader())
                    && codec instanceof org.redisson.codec.JsonJacksonCodec;
        }

        static ElementFormat format(Codec codec) {
            return new JacksonTwoFormat((org.redisson.codec.JsonJacksonCodec) codec);
        }
    }
}
