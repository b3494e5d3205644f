package dev.delayjobs.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.springframework.core.io.ClassPathResource;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;

import dev.delayjobs.core.PayloadCodec;
import dev.delayjobs.partition.PartitionedQueues;
import dev.delayjobs.partition.QueueLayout;
import dev.delayjobs.payload.PayloadVersions;
import dev.delayjobs.queue.QueueName;
import dev.delayjobs.redis.NewJob;
import dev.delayjobs.redis.RedisJobStore;

/**
 * Payloads as older releases stored them: written to Redis as they were (the JSON and the version,
 * no publisher in between), and read back as today's type through the application's upcasters.
 */
final class StoredExamples {

    /** {@code v2.json}, {@code v2-split-name.json}: the version the example was stored at, then anything. */
    private static final Pattern FILE = Pattern.compile("v([0-9]{1,9})([-_.][^/]*)?\\.json");

    private final RedisJobStore jobs;
    private final PartitionedQueues queues;
    private final PayloadCodec codec;

    StoredExamples(RedisJobStore jobs, PartitionedQueues queues, PayloadCodec codec) {
        this.jobs = jobs;
        this.queues = queues;
        this.codec = codec;
    }

    String store(String queue, String payloadJson, int version, Duration delay) {
        if (payloadJson == null) {
            throw new IllegalArgumentException("payloadJson must not be null");
        }
        if (version < 1) {
            throw new IllegalArgumentException("a payload version is 1 or more, was " + version);
        }
        if (delay == null || delay.isNegative()) {
            throw new IllegalArgumentException("delay must be zero or positive, was " + delay);
        }
        QueueName name = QueueName.of(queue);
        String id = "stored-v" + version + "-" + UUID.randomUUID();
        NewJob job = new NewJob(id, true, delay.toMillis(), false, payloadJson)
                .carrying(PayloadVersions.stamped(Map.of(), version));
        jobs.registerQueue(name);
        QueueLayout layout = queues.layout(name);
        jobs.publish(layout.partitionOf(id), List.of(job));
        return id;
    }

    static String read(String classpathLocation) {
        Resource resource = new ClassPathResource(classpathLocation);
        if (!resource.exists()) {
            throw new IllegalArgumentException("no file '" + classpathLocation + "' on the classpath (put it under "
                    + "src/test/resources)");
        }
        return text(resource);
    }

    /** Binds every {@code v<n>*.json} under {@code folder} as {@code type}; returns how many; an AssertionError names each that does not. */
    int assertBind(Class<?> type, String folder) {
        Resource[] found;
        try {
            found = new PathMatchingResourcePatternResolver().getResources("classpath*:" + folder.replaceAll("/+$", "")
                    + "/v*.json");
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        List<String> failures = new ArrayList<>();
        int checked = 0;
        for (Resource example : found) {
            Matcher m = FILE.matcher(String.valueOf(example.getFilename()));
            if (!m.matches()) {
                continue;
            }
            checked++;
            try {
                codec.read(text(example), Integer.parseInt(m.group(1)), codec.type(type));
            }
            catch (RuntimeException ex) {
                failures.add(example.getFilename() + ": " + PayloadCodec.whyUnreadable(ex));
            }
        }
        if (checked == 0) {
            throw new AssertionError("no stored examples of " + type.getSimpleName() + " under classpath:" + folder
                    + " (files named v<version>.json or v<version>-<anything>.json)");
        }
        if (!failures.isEmpty()) {
            throw new AssertionError(failures.size() + " of " + checked + " stored examples no longer bind to "
                    + type.getSimpleName() + " at version " + PayloadVersions.of(type) + ": " + String.join("; ", failures));
        }
        return checked;
    }

    private static String text(Resource resource) {
        try {
            return resource.getContentAsString(StandardCharsets.UTF_8);
        }
        catch (IOException ex) {
            throw new UncheckedIOException("cannot read " + resource, ex);
        }
    }
}
