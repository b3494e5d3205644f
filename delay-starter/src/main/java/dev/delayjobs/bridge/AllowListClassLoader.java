package dev.delayjobs.bridge;

import java.util.List;
import java.util.Set;

/**
 * Loads only allowed classes: those listed, those in a listed package ({@code com.acme.orders.*}),
 * and the value types of {@code java.lang}, {@code java.util}, {@code java.time} and
 * {@code java.math} (exactly those packages, not their sub-packages such as {@code java.lang.reflect}).
 * A decoder that resolves class names through it cannot build anything else.
 */
final class AllowListClassLoader extends ClassLoader {

    private static final Set<String> JDK_PACKAGES = Set.of("java.lang", "java.util", "java.time", "java.math");

    private final Set<String> classes;
    private final List<String> packages;
    private final ThreadLocal<String> lastRefusal = new ThreadLocal<>();

    /** @param allowed class names, or package names followed by {@code .*} */
    AllowListClassLoader(ClassLoader parent, List<String> allowed) {
        super(parent);
        this.classes = Set.copyOf(allowed.stream().filter(name -> !name.endsWith(".*")).toList());
        this.packages = allowed.stream().filter(name -> name.endsWith(".*")).map(name -> name.substring(0, name.length() - 2))
                .toList();
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        if (!allows(name)) {
            lastRefusal.set(name);
            throw new ClassNotFoundException(name + " is not an allowed class");
        }
        return super.loadClass(name, resolve);
    }

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
        String pkg = dot < 0 ? "" : element.substring(0, dot);
        // a nested class (Outer$Inner) is allowed with its outer class
        String outer = element.contains("$") ? element.substring(0, element.indexOf('$')) : element;
        return JDK_PACKAGES.contains(pkg) || classes.contains(element) || classes.contains(outer) || packages.contains(pkg);
    }

    /** The last class this thread was refused, for the dead job's error. */
    String lastRefusal() {
        String name = lastRefusal.get();
        lastRefusal.remove();
        return name;
    }

    String describe() {
        return String.join(", ", classes) + (packages.isEmpty() ? "" : (classes.isEmpty() ? "" : ", ")
                + String.join(", ", packages.stream().map(p -> p + ".*").toList()));
    }
}
