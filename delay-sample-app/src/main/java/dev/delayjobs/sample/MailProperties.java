package dev.delayjobs.sample;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Settings of the sample's fake mail gateway.
 *
 * @param failuresBeforeSuccess how many sends of each receipt fail before one succeeds; at or above
 *     {@code delay.queues.receipt-mail.max-attempts} every receipt ends in the dead set
 */
@ConfigurationProperties("sample.mail")
record MailProperties(@DefaultValue("2") int failuresBeforeSuccess) {
}
