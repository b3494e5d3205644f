package dev.delayjobs.benchmark;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One consumer JVM of a {@link SeparateJvmBenchmark} run: its engine, its extra JVM flags ("" for
 * none), the JFR settings it records with ("" for none: {@code profile} or a {@code .jfc} file), and
 * whether a second burst follows the first in the same JVM.
 */
record ConsumerJvm(String engine, String jvmFlags, String jfr, boolean secondBurst) {

    String label() {
        return jvmFlags.isBlank() ? engine : engine + " [" + jvmFlags.strip() + "]";
    }

    String fileName() {
        return engine + (jvmFlags.isBlank() ? "" : "-" + jvmFlags.replaceAll("[^A-Za-z0-9=]+", "_"));
    }

    List<String> jvmOptions(Path jfrFile) {
        List<String> options = new ArrayList<>();
        if (!jvmFlags.isBlank()) {
            options.addAll(Arrays.asList(jvmFlags.strip().split("\\s+")));
        }
        if (!jfr.isEmpty()) {
            options.add("-XX:FlightRecorderOptions=stackdepth=256");
            options.add("-XX:StartFlightRecording=filename=" + jfrFile + ",settings=" + jfr);
        }
        return options;
    }
}
