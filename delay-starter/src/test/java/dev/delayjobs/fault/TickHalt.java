package dev.delayjobs.fault;

import org.redisson.client.NettyHook;
import org.redisson.client.protocol.CommandData;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;

/**
 * Halts the JVM ({@code Runtime.halt}, as abrupt as {@code kill -9}) the moment its Redisson client
 * is about to send a {@code tick.lua} call, that is after its schedule timer has read the due
 * schedules and computed their steps, and before Redis has seen any of it. A handler at the
 * application end of every connection sees each command before it is encoded; {@code tick.lua}
 * is the only script whose keys start with the queue's {@code schedules} hash, its
 * {@code schedule-ticks} and its {@code jobs} hash.
 */
final class TickHalt implements NettyHook {

    @Override
    public void afterBoostrapInitialization(Bootstrap bootstrap) {
    }

    @Override
    public void afterChannelInitialization(Channel channel) {
        channel.pipeline().addLast("fault-tick-halt", new ChannelOutboundHandlerAdapter() {
            @Override
            public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) throws Exception {
                if (isTick(msg)) {
                    System.err.println("fault: halting before tick.lua");
                    Runtime.getRuntime().halt(137);
                }
                super.write(ctx, msg, promise);
            }
        });
    }

    private static boolean isTick(Object msg) {
        if (!(msg instanceof CommandData<?, ?> command)) {
            return false;
        }
        String name = command.getCommand().getName();
        Object[] params = command.getParams();
        return (name.equals("EVALSHA") || name.equals("EVAL")) && params.length > 4
                && String.valueOf(params[2]).endsWith(":schedules") && String.valueOf(params[4]).endsWith(":jobs");
    }
}
