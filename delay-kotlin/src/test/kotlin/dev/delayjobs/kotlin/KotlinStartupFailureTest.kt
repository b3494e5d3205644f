package dev.delayjobs.kotlin

import dev.delayjobs.DelayedHandler
import dev.delayjobs.autoconfigure.DelayAutoConfiguration
import dev.delayjobs.embeddedredis.RedisServerProcess
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Test
import org.redisson.spring.starter.RedissonAutoConfigurationV4
import org.springframework.boot.autoconfigure.AutoConfigurations
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration
import org.springframework.boot.test.context.FilteredClassLoader
import org.springframework.boot.test.context.runner.ApplicationContextRunner
import tools.jackson.databind.json.JsonMapper

class SuspendingHandlers {

    @DelayedHandler(queue = "kt-startup")
    suspend fun handle(reminder: Reminder) {
        check(reminder.customer.isNotEmpty())
    }
}

class PlainHandlers {

    @DelayedHandler(queue = "kt-startup")
    fun handle(reminder: Reminder) {
        check(reminder.customer.isNotEmpty())
    }
}

/** What a Kotlin application gets at startup when a library its handlers need is missing. */
class KotlinStartupFailureTest {

    companion object {
        private val redis = RedisServerProcess.start()

        @JvmStatic
        @AfterAll
        fun stop() = redis.close()
    }

    private val runner = ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(RedissonAutoConfigurationV4::class.java,
            JacksonAutoConfiguration::class.java, DelayAutoConfiguration::class.java))
        .withPropertyValues("spring.data.redis.host=${redis.host()}", "spring.data.redis.port=${redis.port()}")

    @Test
    fun `a suspend handler without the coroutine bridge fails startup naming the handler and the library`() {
        runner.withClassLoader(FilteredClassLoader("kotlinx.coroutines.reactor"))
            .withBean(SuspendingHandlers::class.java)
            .run { context ->
                assertThat(context).hasFailed()
                assertThat(context.startupFailure).rootCause()
                    .hasMessageContaining("method SuspendingHandlers.handle(Reminder) is a Kotlin suspend function")
                    .hasMessageContaining("kotlinx-coroutines-reactor")
            }
    }

    @Test
    fun `a suspend handler starts with the coroutine bridge`() {
        runner.withBean(SuspendingHandlers::class.java).run { context -> assertThat(context).hasNotFailed() }
    }

    @Test
    fun `a Kotlin payload class read without the Kotlin module fails startup in strict mode`() {
        runner.withBean(PlainHandlers::class.java)
            .withBean(JsonMapper::class.java, { JsonMapper.builder().build() })
            .run { context ->
                assertThat(context).hasFailed()
                assertThat(context.startupFailure).rootCause()
                    .hasMessageContaining("payload type dev.delayjobs.kotlin.Reminder is a Kotlin class")
                    .hasMessageContaining("jackson-module-kotlin")
            }
    }

    @Test
    fun `a Kotlin payload class read without the Kotlin module is accepted when payloads are lenient`() {
        runner.withBean(PlainHandlers::class.java)
            .withBean(JsonMapper::class.java, { JsonMapper.builder().build() })
            .withPropertyValues("delay.consumer.strict-payloads=false")
            .run { context -> assertThat(context).hasNotFailed() }
    }
}
