package dev.delayjobs.bridge;

import java.lang.reflect.Field;
import java.lang.reflect.Type;
import java.util.Collection;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.Registration;
import com.esotericsoftware.kryo.serializers.CollectionSerializer;
import com.esotericsoftware.kryo.serializers.MapSerializer;
import org.redisson.client.codec.Codec;
import org.redisson.codec.Kryo5Codec;

/**
 * Redisson's {@code Kryo5Codec}, which reads class names from Redis: anyone who can write the list
 * could have it build any class on the class path. Elements are read by a Kryo configured as the
 * codec configures its own, but requiring every class to be registered and registering only the
 * allowed ones: Kryo refuses a class that is not registered before an instance of it exists.
 * Kryo sizes arrays, strings and collections from lengths in the input before it reads their
 * values; a {@link BoundedKryoInput} and the collection serializers registered here hold those
 * lengths to the {@link ReadLimits}, and objects nest at most {@link ReadLimits#MAX_DEPTH} deep.
 */
final class KryoFormat implements ElementFormat {

    private static final Pattern NOT_REGISTERED = Pattern.compile("(?:Class is not registered|Unable to find class): ([\\w.$\\[\\];]+)");

    private final Kryo5Codec codec;
    private final AllowList allowed;
    private final ReadLimits limits;
    private final Kryo kryo;

    /**
     * @throws IllegalArgumentException when Kryo cannot register an allowed class (fields it may not reach)
     */
    KryoFormat(Kryo5Codec codec, AllowList allowed, ReadLimits limits) {
        this.codec = codec;
        this.allowed = allowed;
        this.limits = limits;
        try {
            this.kryo = new ReadingCodec(allowed, usesReferences(codec)).newKryo();
            boundCollections(kryo);
            kryo.setMaxDepth(ReadLimits.MAX_DEPTH);
        }
        catch (Exception | LinkageError ex) {
            Throwable root = ex;
            while (root.getCause() != null) {
                root = root.getCause();
            }
            throw new IllegalArgumentException("Kryo cannot register the allowed classes (" + allowed.describe() + "): "
                    + root.getMessage(), ex);
        }
    }

    @Override
    public Codec codec() {
        return codec;
    }

    @Override
    public synchronized Object read(byte[] value, Type type) throws UnreadableElementException {
        Object decoded;
        try {
            decoded = kryo.readClassAndObject(new BoundedKryoInput(value, limits));
        }
        catch (Exception | LinkageError ex) {
            throw new UnreadableElementException("element could not be read with Kryo5Codec: " + refusal(ex), ex);
        }
        finally {
            forgetClassNames();
        }
        return ElementFormats.ofHandlerType(decoded, type);
    }

    /**
     * The producers' Kryo numbers the class names it writes afresh for each element, but a Kryo that
     * requires registration keeps the numbers it read; they are cleared only while it does not.
     */
    private void forgetClassNames() {
        kryo.setRegistrationRequired(false);
        kryo.reset();
        kryo.setRegistrationRequired(true);
    }

    @Override
    public String describe() {
        return "Kryo5Codec (classes allowed: " + allowed.describe() + ")";
    }

    private static String refusal(Throwable ex) {
        for (Throwable t = ex; t != null; t = t.getCause()) {
            if (t instanceof BoundedKryoInput.LimitException) {
                return t.getMessage(); // Kryo wraps what a serializer throws
            }
        }
        for (Throwable t = ex; t != null; t = t.getCause()) {
            Matcher m = NOT_REGISTERED.matcher(String.valueOf(t.getMessage()));
            if (m.find()) {
                return "it names " + m.group(1) + ", which is not an allowed class";
            }
        }
        return ex.getClass().getSimpleName();
    }

    /**
     * The registered collections and maps read by Kryo's plain serializers get ones that check the
     * size they read before they create the collection ({@code new ArrayList<>(size)} allocates it).
     */
    private static void boundCollections(Kryo kryo) throws ClassNotFoundException {
        for (String name : AllowList.JDK_VALUE_TYPES) {
            Registration registration = kryo.getRegistration(Class.forName(name));
            if (registration.getSerializer().getClass() == CollectionSerializer.class) {
                registration.setSerializer(new BoundedCollectionSerializer());
            }
            else if (registration.getSerializer().getClass() == MapSerializer.class) {
                registration.setSerializer(new BoundedMapSerializer());
            }
        }
    }

    @SuppressWarnings({ "rawtypes", "unchecked" })
    private static final class BoundedCollectionSerializer extends CollectionSerializer {

        @Override
        protected Collection create(Kryo kryo, com.esotericsoftware.kryo.io.Input input, Class type, int size) {
            ((BoundedKryoInput) input).declare(size, "elements of a " + type.getSimpleName(), 1, 8);
            return super.create(kryo, input, type, size);
        }
    }

    @SuppressWarnings({ "rawtypes", "unchecked" })
    private static final class BoundedMapSerializer extends MapSerializer {

        @Override
        protected Map create(Kryo kryo, com.esotericsoftware.kryo.io.Input input, Class type, int size) {
            // a hash table of up to 4 buckets an entry, each a reference, beside the entry itself
            ((BoundedKryoInput) input).declare(size, "entries of a " + type.getSimpleName(), 2, 64);
            return super.create(kryo, input, type, size);
        }
    }

    /** Whether the application's codec writes references; the reading Kryo must read them the same way. */
    private static boolean usesReferences(Kryo5Codec codec) {
        try {
            Field field = Kryo5Codec.class.getDeclaredField("useReferences");
            field.setAccessible(true);
            return field.getBoolean(codec);
        }
        catch (ReflectiveOperationException | RuntimeException ex) {
            return false; // Redisson's default
        }
    }

    /**
     * Builds a Kryo as Kryo5Codec does with an allow-list, so it picks the serializers the producers'
     * codec picked; the JDK value types are registered last, once Kryo5Codec's own serializers for
     * some of them (UUID) are in place.
     */
    private static final class ReadingCodec extends Kryo5Codec {

        private final boolean useReferences;

        ReadingCodec(AllowList allowed, boolean useReferences) {
            super(KryoFormat.class.getClassLoader(), allowed.listedClasses(), useReferences);
            this.useReferences = useReferences;
        }

        Kryo newKryo() throws ClassNotFoundException {
            Kryo kryo = createKryo(KryoFormat.class.getClassLoader(), useReferences);
            kryo.setRegistrationRequired(true);
            for (String name : AllowList.JDK_VALUE_TYPES) {
                kryo.register(Class.forName(name));
            }
            return kryo;
        }
    }
}
