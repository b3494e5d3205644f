package dev.delayjobs.sample;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Assumptions;

/**
 * Debian's Chromium and its ChromeDriver ({@code apt-get install chromium chromium-driver}; CI's
 * {@code .ci/run} installs them). Where they are missing the browser test cannot run: on CI (the
 * {@code CI} variable set) that fails it, elsewhere it is skipped with the command that installs them.
 */
record Chromium(Path browser, Path driver) {

    private static final String INSTALL = "install Debian's chromium and chromium-driver "
            + "(sudo apt-get install chromium chromium-driver), as .ci/run does";

    static Chromium find() {
        Optional<Path> browser = executable(List.of("chromium", "chromium-browser"));
        Optional<Path> driver = executable(List.of("chromedriver"));
        if (browser.isPresent() && driver.isPresent()) {
            return new Chromium(browser.get(), driver.get());
        }
        String missing = (browser.isEmpty() ? "chromium" : "") + (browser.isEmpty() && driver.isEmpty() ? " and " : "")
                + (driver.isEmpty() ? "chromedriver" : "") + " not found on PATH: " + INSTALL;
        if (System.getenv("CI") != null) {
            throw new IllegalStateException(missing);
        }
        Assumptions.abort(missing);
        return null;
    }

    private static Optional<Path> executable(List<String> names) {
        String path = System.getenv().getOrDefault("PATH", "/usr/bin");
        for (String dir : path.split(File.pathSeparator)) {
            for (String name : names) {
                Path candidate = Path.of(dir, name);
                if (Files.isExecutable(candidate)) {
                    return Optional.of(candidate);
                }
            }
        }
        return Optional.empty();
    }
}
