package dev.delayjobs.bridge;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The classes a binary codec may build when it reads an element: those listed in
 * {@code redisson-allowed-classes} (class names, or packages as {@code com.acme.orders.*}), and
 * the JDK value types payloads commonly hold ({@link #JDK_VALUE_TYPES}).
 */
final class AllowList {

    /** Boxed primitives, collections, numbers and times: what a payload record holds besides its own types. */
    static final List<String> JDK_VALUE_TYPES = List.of("java.lang.Long", "java.lang.Integer",
            "java.lang.Short", "java.lang.Byte", "java.lang.Double", "java.lang.Float", "java.lang.Boolean",
            "java.lang.Character", "java.lang.String", "java.util.ArrayList", "java.util.LinkedList",
            "java.util.HashMap", "java.util.LinkedHashMap", "java.util.TreeMap", "java.util.HashSet",
            "java.util.LinkedHashSet", "java.util.TreeSet", "java.util.UUID", "java.math.BigDecimal",
            "java.math.BigInteger", "java.time.Instant", "java.time.LocalDate", "java.time.LocalDateTime",
            "java.time.OffsetDateTime", "java.time.ZonedDateTime", "java.time.Duration");

    private final List<String> listed;
    private final Set<String> listedClasses = new LinkedHashSet<>();
    private final Set<String> classes = new LinkedHashSet<>();
    private final List<String> packages = new ArrayList<>();

    AllowList(List<String> listed) {
        this.listed = List.copyOf(listed);
        for (String name : listed) {
            if (name.endsWith(".*")) {
                packages.add(name.substring(0, name.length() - 2));
            }
            else {
                listedClasses.add(name);
            }
        }
        classes.addAll(listedClasses);
        classes.addAll(JDK_VALUE_TYPES);
    }

    boolean hasPackages() {
        return !packages.isEmpty();
    }

    /** The classes listed by name (not the packages, nor the JDK value types). */
    Set<String> listedClasses() {
        return Set.copyOf(listedClasses);
    }

    /** Whether {@code name} (a class name, or an array type's binary name) may be built. */
    boolean allows(String name) {
        String element = name;
        while (element.startsWith("[")) {
            element = element.substring(1);
        }
        if (element.length() == 1) {
            return true; // an array of a primitive type
        }
        if (element.startsWith("L") && element.endsWith(";")) {
            element = element.substring(1, element.length() - 1);
        }
        int dot = element.lastIndexOf('.');
        return classes.contains(element) || packages.contains(dot < 0 ? "" : element.substring(0, dot));
    }

    /** The list as configured, for the startup log. */
    String describe() {
        return String.join(", ", listed);
    }
}
