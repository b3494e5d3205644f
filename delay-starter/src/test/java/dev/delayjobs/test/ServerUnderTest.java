package dev.delayjobs.test;

import java.io.File;

import dev.delayjobs.embeddedredis.RedisServerProcess;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Names the server every test class of the run is on, in its report: a report entry
 * {@code redis-server=Valkey 8.0.1 (/usr/bin/valkey-server)} and the system property
 * {@value #SERVER_PROPERTY} (both in surefire's XML report), so a failure says which server.
 * Registered for every class by JUnit's extension auto-detection ({@code junit-platform.properties}).
 *
 * <p>The build's server matrix runs some suites again on other servers (see the surefire executions
 * in {@code delay-starter/pom.xml}) and says which with {@value #EXPECTED_PROPERTY}, e.g.
 * {@code Valkey 8}. When the server found is not that one, or is missing, the class is skipped
 * with the reason, except on CI (the {@code CI} variable set), where a server that should be
 * tested and is not fails the run.
 */
public final class ServerUnderTest implements BeforeAllCallback {

    /** The server and major version a matrix run expects, e.g. {@code Redis 7}. */
    public static final String EXPECTED_PROPERTY = "delay.test.expected-server";

    /** Set by this class to the server the run is on, e.g. {@code Valkey 8.0.1 (/usr/bin/valkey-server)}. */
    public static final String SERVER_PROPERTY = "delay.test.server";

    private static String found;

    @Override
    public void beforeAll(ExtensionContext context) {
        String server = describe();
        context.publishReportEntry("redis-server", server);
    }

    /**
     * The server the tests of this JVM start, and its version.
     * @throws org.opentest4j.TestAbortedException when it is not the one the matrix run expects, off CI
     */
    public static synchronized String describe() {
        if (found == null) {
            found = find();
            System.setProperty(SERVER_PROPERTY, found);
        }
        return found;
    }

    private static String find() {
        String expected = System.getProperty(EXPECTED_PROPERTY, "").trim();
        String description;
        try {
            File binary = RedisServerProcess.defaultBinary();
            description = RedisServerProcess.describe(binary) + " (" + binary.getAbsolutePath() + ")";
        }
        catch (IllegalStateException ex) {
            if (expected.isEmpty()) {
                throw ex;
            }
            return missing(expected, ex.getMessage());
        }
        if (!expected.isEmpty() && !description.startsWith(expected + ".")) {
            return missing(expected, "the server found is " + description);
        }
        return description;
    }

    private static String missing(String expected, String why) {
        String message = "this run is for " + expected + ", but " + why + ". Install it (.ci/run shows how: "
                + "Debian's redis-server, valkey-server from bookworm-backports) or name it with "
                + "-Ddelay.test.redis7=<path> / -Ddelay.test.valkey8=<path>";
        String ci = System.getenv("CI");
        if (ci != null && !ci.isBlank() && !ci.equalsIgnoreCase("false")) {
            throw new IllegalStateException(message);
        }
        Assumptions.abort(message);
        return null;
    }
}
