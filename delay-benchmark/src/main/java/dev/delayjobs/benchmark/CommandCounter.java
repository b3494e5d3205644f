package dev.delayjobs.benchmark;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;

import org.redisson.client.NettyHook;

/**
 * Counts the commands Redisson sends, as the server receives them: a handler at the socket end of
 * every connection reads the RESP bytes going out (each command is an array whose first element is
 * its name). Scripts count once, whatever they do inside; a pipelined batch counts each command.
 * Redisson's keep-alive PINGs are left out.
 */
final class CommandCounter implements NettyHook {

    private static final Map<String, LongAdder> BY_NAME = new ConcurrentHashMap<>();
    private static final LongAdder TOTAL = new LongAdder();

    @Override
    public void afterBoostrapInitialization(Bootstrap bootstrap) {
    }

    @Override
    public void afterChannelInitialization(Channel channel) {
        channel.pipeline().addFirst("benchmark-command-counter", new Counting());
    }

    static long total() {
        return TOTAL.sum();
    }

    static Map<String, Long> byName() {
        Map<String, Long> out = new TreeMap<>();
        BY_NAME.forEach((name, count) -> out.put(name, count.sum()));
        return out;
    }

    private static void counted(String name) {
        if (name.equals("ping")) {
            return;
        }
        TOTAL.increment();
        BY_NAME.computeIfAbsent(name, n -> new LongAdder()).increment();
    }

    /** A RESP request parser that survives commands split across buffers. */
    private static final class Counting extends ChannelOutboundHandlerAdapter {

        private static final int ARRAY_START = 0;
        private static final int ARRAY_LENGTH = 1;
        private static final int BULK_START = 2;
        private static final int BULK_LENGTH = 3;
        private static final int BULK_BODY = 4;

        private int state = ARRAY_START;
        private long number;
        private long elementsLeft;
        private long bodyLeft;
        private boolean firstElement;
        private boolean secondElement;
        private final StringBuilder name = new StringBuilder();

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) throws Exception {
            if (msg instanceof ByteBuf buf) {
                scan(buf);
            }
            super.write(ctx, msg, promise);
        }

        private void scan(ByteBuf buf) {
            int i = buf.readerIndex();
            int end = buf.writerIndex();
            while (i < end) {
                if (state == BULK_BODY) {
                    int n = (int) Math.min(bodyLeft, end - i);
                    if (firstElement || secondElement) {
                        for (int j = 0; j < n && name.length() < 48; j++) {
                            byte b = buf.getByte(i + j);
                            if (b != '\r' && b != '\n') {
                                name.append((char) Character.toLowerCase(b));
                            }
                        }
                    }
                    i += n;
                    bodyLeft -= n;
                    if (bodyLeft == 0) {
                        if (firstElement) {
                            firstElement = false;
                            if (name.toString().equals("evalsha") && elementsLeft > 1) {
                                // the script's SHA follows: count per script
                                secondElement = true;
                                name.append(':');
                            }
                            else {
                                counted(name.toString());
                            }
                        }
                        else if (secondElement) {
                            secondElement = false;
                            counted(Scripts.name(name.toString()));
                        }
                        elementsLeft--;
                        state = elementsLeft == 0 ? ARRAY_START : BULK_START;
                    }
                    continue;
                }
                byte b = buf.getByte(i++);
                switch (state) {
                    case ARRAY_START -> {
                        if (b == '*') {
                            state = ARRAY_LENGTH;
                            number = 0;
                        }
                    }
                    case ARRAY_LENGTH -> {
                        if (b >= '0' && b <= '9') {
                            number = number * 10 + (b - '0');
                        }
                        else if (b == '\n') {
                            elementsLeft = number;
                            firstElement = true;
                            secondElement = false;
                            name.setLength(0);
                            state = number == 0 ? ARRAY_START : BULK_START;
                        }
                    }
                    case BULK_START -> {
                        if (b == '$') {
                            state = BULK_LENGTH;
                            number = 0;
                        }
                    }
                    case BULK_LENGTH -> {
                        if (b >= '0' && b <= '9') {
                            number = number * 10 + (b - '0');
                        }
                        else if (b == '\n') {
                            bodyLeft = number + 2; // the data and its CRLF
                            state = BULK_BODY;
                        }
                    }
                    default -> throw new IllegalStateException("state " + state);
                }
            }
        }
    }

    static String describe(Map<String, Long> before, Map<String, Long> after, long jobs) {
        StringBuilder out = new StringBuilder();
        Map<String, Long> delta = new TreeMap<>();
        after.forEach((name, count) -> {
            long d = count - before.getOrDefault(name, 0L);
            if (d > 0) {
                delta.put(name, d);
            }
        });
        delta.forEach((name, d) -> out.append(name).append('=').append(String.format("%.2f", d / (double) Math.max(1, jobs)))
                .append(' '));
        return out.toString().trim();
    }

}
