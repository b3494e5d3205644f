package dev.delayjobs.test;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;

/** The smallest Spring Boot application: auto-configuration only; tests add their handler beans. */
@SpringBootConfiguration
@EnableAutoConfiguration
public class TestApplication {
}
