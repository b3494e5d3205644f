package dev.delayjobs.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import dev.delayjobs.test.TestRedis;

/**
 * The base-36 numbers of records and claim entries, as _base36.lua writes them on a real Redis:
 * to36 and the per-call formatters publish uses (base36_run, which keeps the leading digits of the
 * number before) must write exactly what Java's {@code Long.toString(n, 36)} does, which is how
 * {@code StoredJob} reads them, at every place where the digits carry.
 */
class Base36Test {

    static final RedissonClient redisson = TestRedis.sharedClient();

    @Test
    void everyFormatterWritesWhatJavaReads() {
        List<Long> numbers = new ArrayList<>();
        long[] edges = { 0, 1, 35, 36, 37, 1295, 1296, 46655, 46656, 1679615, 1679616, 1679617, 60466175, 60466176,
                1_764_150_000_000L, 2_176_782_335L, 2_176_782_336L, 101_559_956_668_415L, 101_559_956_668_416L };
        for (long edge : edges) {
            numbers.add(edge);
            numbers.add(-edge);
        }
        // counting up across carries, as a call's gens do, and due times close to each other, as its jobs' are
        for (long n = 1_679_500; n < 1_679_800; n++) {
            numbers.add(n);
        }
        SplittableRandom random = new SplittableRandom(36);
        for (int i = 0; i < 300; i++) {
            numbers.add(1_764_150_000_000L + random.nextLong(7_200_000));
            numbers.add(random.nextLong(-100_000_000, 1L << 50));
        }
        String check = """
                local gens, dues = base36_run(1), base36_run(4)
                local out = {}
                for i = 1, #ARGV do
                  local n = tonumber(ARGV[i])
                  out[#out + 1] = to36(n) .. ' ' .. gens(n) .. ' ' .. dues(n)
                end
                return out
                """;
        List<Object> args = new ArrayList<>();
        numbers.forEach(n -> args.add(Long.toString(n)));
        List<String> written = redisson.getScript(StringCodec.INSTANCE)
                .eval(RScript.Mode.READ_ONLY, read("_base36.lua") + "\n" + check, RScript.ReturnType.LIST, List.of(), args.toArray());

        for (int i = 0; i < numbers.size(); i++) {
            String java = Long.toString(numbers.get(i), 36);
            assertThat(written.get(i)).as("%d", numbers.get(i)).isEqualTo(java + " " + java + " " + java);
        }
    }

    private static String read(String file) {
        try (InputStream in = LuaScript.class.getResourceAsStream(file)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }
}
