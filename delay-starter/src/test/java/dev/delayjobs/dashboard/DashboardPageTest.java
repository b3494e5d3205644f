package dev.delayjobs.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

import tools.jackson.databind.JsonNode;

import dev.delayjobs.DelayPublisher;
import dev.delayjobs.PublishRequest;
import dev.delayjobs.test.Http;
import dev.delayjobs.test.TestApps;
import dev.delayjobs.test.TestRedis;

/** What the page is told about the endpoint it works through, under the application's actuator settings. */
class DashboardPageTest {

    @Test
    void readOnlyEndpointMakesAReadOnlyPage() {
        try (ConfigurableApplicationContext app = TestApps.runWeb(TestRedis.uniquePrefix(), List.of(),
                "delay.dashboard.enabled=true", "management.endpoints.web.exposure.include=delayqueues")) {
            Http http = new Http(app);
            Http.Response page = http.get("/delay-jobs/");
            assertThat(page.status()).isEqualTo(200);
            assertThat(page.body()).contains("data-endpoint=\"/actuator/delayqueues\"").contains("data-writable=\"false\"")
                    .contains("data-refresh-millis=\"2000\"").contains("<script src=\"dashboard.js\">");
            assertThat(http.get("/delay-jobs/dashboard.js").body()).contains("'use strict'");
            assertThat(http.get("/delay-jobs/dashboard.css").status()).isEqualTo(200);
        }
    }

    @Test
    void unrestrictedEndpointUnderAnotherBasePathAndContextPath() {
        try (ConfigurableApplicationContext app = TestApps.runWeb(TestRedis.uniquePrefix(), List.of(),
                "delay.dashboard.enabled=true", "delay.dashboard.path=/ops/queues", "server.servlet.context-path=/shop",
                "management.endpoints.web.base-path=/manage", "management.endpoints.web.exposure.include=delayqueues",
                "management.endpoint.delayqueues.access=unrestricted")) {
            Http.Response page = new Http(app).get("/shop/ops/queues/");
            assertThat(page.status()).isEqualTo(200);
            assertThat(page.body()).contains("data-endpoint=\"/shop/manage/delayqueues\"")
                    .contains("data-writable=\"true\"");
        }
    }

    @Test
    void endpointNotExposedIsSaidOnThePage() {
        try (ConfigurableApplicationContext app = TestApps.runWeb(TestRedis.uniquePrefix(), List.of(),
                "delay.dashboard.enabled=true", "management.endpoints.web.exposure.include=health")) {
            Http.Response page = new Http(app).get("/delay-jobs/");
            assertThat(page.status()).isEqualTo(200);
            assertThat(page.body()).contains("data-endpoint=\"\"");
            // the script says so in words: "The delayqueues endpoint is not exposed over HTTP"
            assertThat(new Http(app).get("/delay-jobs/dashboard.js").body())
                    .contains("add delayqueues to management.endpoints.web.exposure.include");
        }
    }

    @Test
    void theQueuePageShowsTheGroupsCountAndTheLargestGroupsTheEndpointReports() {
        try (ConfigurableApplicationContext app = TestApps.runWeb(TestRedis.uniquePrefix(), List.of(),
                "delay.dashboard.enabled=true", "management.endpoints.web.exposure.include=delayqueues")) {
            DelayPublisher publisher = app.getBean(DelayPublisher.class);
            publisher.publishAll("shops", List.of(PublishRequest.of(1).group("shop-1"), PublishRequest.of(2).group("shop-1"),
                    PublishRequest.of(3).group("shop-2")));
            Http http = new Http(app);
            // what the script reads: the queue report's stats.groups and stats.largestGroups
            JsonNode stats = http.get("/actuator/delayqueues/shops").json().get("stats");
            assertThat(stats.get("groups").asLong()).isEqualTo(2);
            assertThat(stats.get("largestGroups").get(0).get("group").asText()).isEqualTo("shop-1");
            assertThat(stats.get("largestGroups").get(0).get("ready").asLong()).isEqualTo(2);
            assertThat(http.get("/delay-jobs/").body()).contains("id=\"groups\"").contains("id=\"groups-total\"")
                    .contains("id=\"largest-groups\"");
            assertThat(http.get("/delay-jobs/dashboard.js").body()).contains("renderGroups(report.stats)")
                    .contains("view.largestGroups").contains("view.groups");
        }
    }
}
