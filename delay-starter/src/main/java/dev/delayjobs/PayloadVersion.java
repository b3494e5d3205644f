package dev.delayjobs;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The version of a payload type's JSON form. The publisher stores it with each job of the type;
 * a handler whose payload type is at a higher version has the stored payload brought up to it by
 * {@link PayloadUpcaster} beans, one version at a time, before it is read. A type without this
 * annotation is at version 1, and so is every job published without a version.
 *
 * <pre>{@code
 * @PayloadVersion(2)
 * record OrderTimeout(long orderId, String currency) { }
 * }</pre>
 *
 * Raise it when a change of the type needs old payloads rewritten (a renamed, split or retyped
 * field, a new required field), and register the upcaster from the previous version with it; see
 * docs/payload-versions.md.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface PayloadVersion {

    /**
     * The version of the annotated type's stored form.
     *
     * @return 1 or more
     */
    int value() default 1;
}
