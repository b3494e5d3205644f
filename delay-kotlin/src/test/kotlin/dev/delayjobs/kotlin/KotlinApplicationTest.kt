package dev.delayjobs.kotlin

import dev.delayjobs.DelayPublisher
import dev.delayjobs.DelayedHandler
import dev.delayjobs.DelayedJob
import dev.delayjobs.JobState
import dev.delayjobs.PublishRequest
import dev.delayjobs.testing.DelayQueueTester
import dev.delayjobs.testing.EmbeddedRedis
import java.time.Duration
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.CopyOnWriteArrayList
import kotlin.time.Duration.Companion.hours
import kotlin.time.Duration.Companion.milliseconds
import kotlin.time.Duration.Companion.minutes
import kotlin.time.Duration.Companion.seconds
import kotlin.time.toJavaDuration
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.delay
import kotlinx.coroutines.yield
import org.assertj.core.api.Assertions.assertThat
import org.awaitility.Awaitility.await
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import org.springframework.beans.factory.annotation.Autowired
import org.springframework.boot.SpringBootConfiguration
import org.springframework.boot.autoconfigure.EnableAutoConfiguration
import org.springframework.boot.test.context.SpringBootTest
import org.springframework.context.annotation.Import
import tools.jackson.databind.json.JsonMapper

/** A payload with a required field, a nullable one and one with a default. */
data class Reminder(val customer: String, val note: String?, val channel: String = "email", val attempts: Int = 3)

/** The same as a JVM record: the starter's record check must not overrule Kotlin's nullability. */
@JvmRecord
data class RecordReminder(val customer: String, val note: String?, val channel: String = "email")

/** Handlers as a Kotlin application writes them: suspend functions, data classes, DelayedJob<T>. */
class KotlinHandlers {

    val reminded = CopyOnWriteArrayList<Reminder>()
    val recordReminded = CopyOnWriteArrayList<RecordReminder>()
    val flakyAttempts = ConcurrentHashMap<String, Int>()
    val cancelled = CopyOnWriteArrayList<String>()

    @DelayedHandler(queue = "kt-remind")
    suspend fun remind(reminder: Reminder) {
        delay(5) // suspends: the rest runs on another thread, and the worker waits for it
        reminded += reminder
    }

    @DelayedHandler(queue = "kt-record")
    fun remindRecord(reminder: RecordReminder) {
        recordReminded += reminder
    }

    @DelayedHandler(queue = "kt-flaky", backoffInitial = "10ms", maxAttempts = "3")
    suspend fun flaky(job: DelayedJob<Reminder>) {
        yield()
        flakyAttempts[job.id] = job.attempt
        if (job.attempt < 2) {
            throw IllegalStateException("first attempt of ${job.payload.customer} fails")
        }
    }

    @DelayedHandler(queue = "kt-slow", handlerTimeout = "200ms", maxAttempts = "1")
    suspend fun slow(reminder: Reminder) {
        try {
            delay(30.seconds)
        } catch (ex: CancellationException) {
            cancelled += reminder.customer
            throw ex
        }
    }
}

@SpringBootTest(properties = ["delay.consumer.strict-payloads=true"])
@EmbeddedRedis
class KotlinApplicationTest {

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(KotlinHandlers::class)
    class App

    @Autowired
    lateinit var delays: DelayPublisher

    @Autowired
    lateinit var tester: DelayQueueTester

    @Autowired
    lateinit var handlers: KotlinHandlers

    @Autowired
    lateinit var mapper: JsonMapper

    @BeforeEach
    fun clean() {
        tester.clearAll()
        handlers.reminded.clear()
        handlers.recordReminded.clear()
    }

    @Test
    fun `a suspend handler runs a job to the end of its coroutine`() {
        val id = delays.publish("kt-remind", Reminder("ann", "call back"), 30.minutes)

        tester.fastForward("kt-remind", 30.minutes.toJavaDuration())
        tester.awaitHandled("kt-remind", id)

        assertThat(handlers.reminded).containsExactly(Reminder("ann", "call back"))
    }

    @Test
    fun `a failing suspend handler is retried`() {
        val id = delays.publish("kt-flaky", Reminder("bob", null), 0.milliseconds, key = "flaky-bob")

        tester.awaitHandled("kt-flaky", id)

        assertThat(id).isEqualTo("flaky-bob")
        assertThat(handlers.flakyAttempts).containsEntry("flaky-bob", 2)
    }

    @Test
    fun `the handler timeout cancels a suspended coroutine`() {
        val id = delays.publish("kt-slow", Reminder("cid", null), 0.milliseconds)

        val dead = tester.awaitDead("kt-slow", id)

        assertThat(dead.lastError).contains("timed out")
        await().atMost(Duration.ofSeconds(5)).until { handlers.cancelled.contains("cid") }
    }

    @Test
    fun `missing nullable and defaulted fields of a data class bind to null and the defaults`() {
        val id = delays.publish("kt-remind", mapOf("customer" to "dan"), 0.milliseconds)

        tester.awaitHandled("kt-remind", id)

        assertThat(handlers.reminded).containsExactly(Reminder("dan", null, "email", 3))
    }

    @Test
    fun `a JvmRecord data class is read by its Kotlin nullability, not the record check`() {
        val id = delays.publish("kt-record", mapOf("customer" to "eve"), 0.milliseconds)

        tester.awaitHandled("kt-record", id)

        assertThat(handlers.recordReminded).containsExactly(RecordReminder("eve", null))
    }

    @Test
    fun `a payload without a non-null field that has no default goes to the dead set`() {
        val id = delays.publish("kt-remind", mapOf("note" to "no customer"), 0.milliseconds)
        val recordId = delays.publish("kt-record", mapOf("note" to "no customer"), 0.milliseconds)

        val dead = tester.awaitDead("kt-remind", id)
        val deadRecord = tester.awaitDead("kt-record", recordId)

        assertThat(dead.attempts).isEqualTo(1)
        assertThat(dead.lastError).contains("customer")
        assertThat(deadRecord.lastError).contains("customer")
        assertThat(handlers.reminded).isEmpty()
        assertThat(handlers.recordReminded).isEmpty()
    }

    @Test
    fun `the Kotlin extensions publish, find and read the payload by its reified type`() {
        val id = delays.publish("kt-remind", Reminder("fay", null, "sms"), 2.hours, key = "fay")
        val generated = delays.publish("kt-remind", PublishRequest.of(Reminder("gus", null)).delay(1.hours))

        val found = delays.findOrNull("kt-remind", id)

        assertThat(found?.state).isEqualTo(JobState.DELAYED)
        assertThat(found?.payload<Reminder>(mapper)).isEqualTo(Reminder("fay", null, "sms"))
        assertThat(delays.findOrNull("kt-remind", generated)?.payload<Map<String, Any?>>(mapper))
            .containsEntry("customer", "gus")
        assertThat(delays.reschedule("kt-remind", id, 10.minutes)).isTrue()
        assertThat(delays.findOrNull("kt-remind", "nobody")).isNull()
    }
}
