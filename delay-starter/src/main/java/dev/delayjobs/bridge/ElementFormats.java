package dev.delayjobs.bridge;

import java.lang.reflect.Type;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;
import org.redisson.client.codec.Codec;
import org.redisson.client.codec.StringCodec;
import org.redisson.codec.Kryo5Codec;
import org.redisson.codec.SerializationCodec;
import org.springframework.core.ResolvableType;
import org.springframework.util.ClassUtils;

import dev.delayjobs.core.PayloadCodec;

/**
 * Builds the {@link ElementFormat} of a bridged queue from its settings, refusing what cannot be read
 * safely: a binary codec with no allowed classes (it would build any class named in Redis), or one
 * that cannot be restricted to them (only Kryo5Codec and SerializationCodec can).
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
        return allowListed(queue, codec, codecName == null, allowedClasses, new ReadLimits(payloads.maxPayloadBytes()));
    }

    private static ElementFormat allowListed(String queue, Codec codec, boolean defaulted, List<String> allowedClasses,
            ReadLimits limits) {
        String name = "delay.queues." + queue + ".";
        String which = codec.getClass().getSimpleName() + (defaulted ? " (the RedissonClient's codec)" : "");
        if (!(codec instanceof Kryo5Codec) && !(codec instanceof SerializationCodec)) {
            throw new InvalidFormatException(name + "redisson-codec", which + " cannot be restricted to a list of "
                    + "allowed classes: use \"string\" or \"json\" (JSON), Kryo5Codec or SerializationCodec");
        }
        if (allowedClasses.isEmpty()) {
            throw new InvalidFormatException(name + "redisson-allowed-classes", which + " is a binary codec: it builds "
                    + "whatever class an element names, and anyone who can write to Redis can write the list. List the "
                    + "payload classes it may build in " + name + "redisson-allowed-classes, or set " + name
                    + "redisson-codec to the codec the producers use");
        }
        AllowList allowed = new AllowList(allowedClasses);
        if (codec instanceof Kryo5Codec kryo) {
            if (allowed.hasPackages()) {
                throw new InvalidFormatException(name + "redisson-allowed-classes", "Kryo5Codec registers allowed classes "
                        + "one by one: list each class by name, not a package (" + allowed.describe() + ")");
            }
            for (String className : allowed.listedClasses()) {
                if (!ClassUtils.isPresent(className, ElementFormats.class.getClassLoader())) {
                    throw new InvalidFormatException(name + "redisson-allowed-classes", "no class " + className
                            + " on the class path (a nested class is written Outer$Inner)");
                }
            }
            try {
                return new KryoFormat(kryo, allowed, limits);
            }
            catch (IllegalArgumentException ex) {
                throw new InvalidFormatException(name + "redisson-allowed-classes", ex.getMessage());
            }
        }
        return new JavaSerializationFormat(codec, allowed, limits);
    }

    /** The decoded payload, if it is of the handler's type. */
    static Object ofHandlerType(@Nullable Object decoded, Type type) throws ElementFormat.UnreadableElementException {
        Class<?> expected = ResolvableType.forType(type).toClass();
        if (decoded == null || !expected.isInstance(decoded)) {
            throw new ElementFormat.UnreadableElementException("element is a "
                    + (decoded == null ? "null" : decoded.getClass().getName()) + ", the handler takes " + type.getTypeName(),
                    null);
        }
        return decoded;
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
