package dev.delayjobs.kotlin

import dev.delayjobs.DelayPublisher
import dev.delayjobs.JobInfo
import dev.delayjobs.PublishRequest
import java.time.Instant
import kotlin.time.Duration
import kotlin.time.toJavaDuration
import tools.jackson.databind.ObjectMapper
import tools.jackson.module.kotlin.readValue

/**
 * Publishes [payload] to [queue], due after [delay] (a Kotlin [Duration]); with a [key], under that
 * business key, so that publishing it twice creates one job. The payload type is checked where the
 * call is compiled: `T : Any` keeps a nullable payload out, which the Java API refuses at run time.
 *
 * @return the job's id: [key] when given, else a generated id
 * @see DelayPublisher.publish
 */
fun <T : Any> DelayPublisher.publish(queue: String, payload: T, delay: Duration, key: String? = null): String =
    if (key == null) publish(queue, payload, delay.toJavaDuration())
    else publish(queue, payload, delay.toJavaDuration(), key)

/**
 * Publishes [payload] to [queue], due at [dueAt]; with a [key], under that business key.
 *
 * @see DelayPublisher.publishAt
 */
fun <T : Any> DelayPublisher.publishAt(queue: String, payload: T, dueAt: Instant, key: String? = null): String =
    if (key == null) publishAt(queue, payload, dueAt) else publishAt(queue, payload, dueAt, key)

/**
 * Moves a waiting job so that it becomes due after [delay] from now (a Kotlin [Duration]).
 *
 * @see DelayPublisher.reschedule
 */
fun DelayPublisher.reschedule(queue: String, id: String, delay: Duration): Boolean =
    reschedule(queue, id, delay.toJavaDuration())

/** The job with this id or business key, or `null` when there is none (see [DelayPublisher.find]). */
fun DelayPublisher.findOrNull(queue: String, id: String): JobInfo? = find(queue, id).orElse(null)

/**
 * The job's payload read as [T] with [mapper] (the application's `JsonMapper`, so that it reads
 * payloads as handlers get them), generic types included: `job.payload<List<OrderLine>>(mapper)`.
 *
 * @throws tools.jackson.core.JacksonException when the payload does not fit [T]
 */
inline fun <reified T> JobInfo.payload(mapper: ObjectMapper): T = mapper.readValue(payloadJson)

/** This request due after [delay] (a Kotlin [Duration]) instead of at an instant. */
fun PublishRequest.delay(delay: Duration): PublishRequest = delay(delay.toJavaDuration())
