package dev.delayjobs.autoconfigure;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.diagnostics.FailureAnalyzedException;

import dev.delayjobs.redis.DataFormat;

/**
 * Refuses to start on a Redis whose jobs were written in a newer data format than this version
 * reads (after a rollback past a release that changed the format, say): it would misread them.
 * Runs once every singleton exists, before any container starts or any lifecycle publishes.
 */
final class DataFormatCheck implements SmartInitializingSingleton {

    private final DataFormat format;

    DataFormatCheck(DataFormat format) {
        this.format = format;
    }

    @Override
    public void afterSingletonsInstantiated() {
        int recorded = format.recordedOrCurrent();
        if (recorded > DataFormat.CURRENT) {
            throw new FailureAnalyzedException("The delay jobs in Redis are written in data format " + recorded
                    + ", which a newer release of the delay starter wrote; this release reads format " + DataFormat.CURRENT
                    + " and would misread them.", "Run the release that wrote them (or a newer one). If the jobs under this "
                    + "key prefix are no longer needed, delete its keys, or use another delay.key-prefix.");
        }
    }
}
