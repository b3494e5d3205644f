package dev.delayjobs.test;

import java.io.File;

import dev.delayjobs.embeddedredis.RedisServerProcess;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Names the server every test class of the run is on, in its report: the system property
 * {@value #SERVER_PROPERTY}, e.g. {@code Valkey 8.0.1 (/usr/bin/valkey-server)}, which surefire
 * writes into each class's XML report, so a failure says which server.
 * Registered for every class by JUnit's extension auto-detection ({@code junit-platform.properties}).
 *
 * <p>The build's server matrix runs some suites again on other servers (see the surefire executions
 * in {@code delay-starter/pom.xml}) and says which with {@value #EXPECTED_PROPERTY}, e.g.
 * {@code Valkey 8}. When the server found is not that one, or is missing, the class is skipped
 * (disabled, the reason in each test's report), except on CI (the {@code CI} variable set), where a
 * server that should be tested and is not fails the run.
 */
public final class ServerUnderTest implements ExecutionCondition {

    /** The server and major version a matrix run expects, e.g. {@code Redis 7}. */
    public static final String EXPECTED_PROPERTY = "delay.test.expected-server";

    /** Set by this class to the server the run is on, e.g. {@code Valkey 8.0.1 (/usr/bin/valkey-server)}. */
    public static final String SERVER_PROPERTY = "delay.test.server";

    private static String found;
    private static String missing;

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        if (context.getTestMethod().isPresent()) {
            return ConditionEvaluationResult.enabled("the class was");
        }
        String server = describe();
        if (server == null) {
            return ConditionEvaluationResult.disabled(missing);
        }
        return ConditionEvaluationResult.enabled("runs on " + server);
    }

    /**
     * The server the tests of this JVM start, and its version; null when it is not the one the
     * matrix run expects, off CI.
     * @throws IllegalStateException when it is not the one the matrix run expects, on CI
     */
    public static synchronized String describe() {
        if (found == null && missing == null) {
            found = find();
            if (found != null) {
                System.setProperty(SERVER_PROPERTY, found);
            }
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
                // the tests that need a server fail with this reason; the others still run
                return "none: " + ex.getMessage();
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
        missing = message;
        System.setProperty(SERVER_PROPERTY, "none: " + message);
        return null;
    }
}
