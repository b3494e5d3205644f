package dev.delayjobs.queue;

import java.nio.charset.StandardCharsets;

/** The Redis Cluster hash slot of a key: CRC16 (XMODEM) of its hash tag, or of the whole key, mod 16384. */
public final class ClusterSlot {

    private ClusterSlot() {
    }

    /** The slot of {@code key}, as {@code CLUSTER KEYSLOT} answers. */
    public static int of(String key) {
        byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
        int start = 0;
        int end = bytes.length;
        int open = key.indexOf('{');
        if (open >= 0) {
            int close = key.indexOf('}', open + 1);
            // an empty tag "{}" does not count: the whole key is hashed
            if (close > open + 1) {
                start = key.substring(0, open + 1).getBytes(StandardCharsets.UTF_8).length;
                end = key.substring(0, close).getBytes(StandardCharsets.UTF_8).length;
            }
        }
        int crc = 0;
        for (int i = start; i < end; i++) {
            crc ^= (bytes[i] & 0xff) << 8;
            for (int bit = 0; bit < 8; bit++) {
                crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
            }
        }
        return (crc & 0xffff) % 16384;
    }
}
