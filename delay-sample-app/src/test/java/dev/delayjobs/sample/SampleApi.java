package dev.delayjobs.sample;

import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.client.RestClient;

import tools.jackson.databind.JsonNode;

/** The sample's HTTP API as the tests call it: every answer, errors included, as status and JSON. */
final class SampleApi {

    private final RestClient http;

    SampleApi(int port) {
        this.http = RestClient.create("http://127.0.0.1:" + port);
    }

    /** {@code POST /orders} with {@code {"amount": <amount>}}; expects 201. */
    CustomerOrder place(String amount) {
        ResponseEntity<CustomerOrder> created = http.post().uri("/orders").contentType(MediaType.APPLICATION_JSON)
                .body("{\"amount\": " + amount + "}").retrieve().toEntity(CustomerOrder.class);
        if (created.getStatusCode().value() != 201) {
            throw new AssertionError("POST /orders answered " + created.getStatusCode());
        }
        return created.getBody();
    }

    /** {@code POST /orders/{id}/pay}; expects 200. */
    CustomerOrder pay(long id) {
        return http.post().uri("/orders/{id}/pay", id).retrieve().body(CustomerOrder.class);
    }

    /** {@code GET /orders/{id}}; expects 200. */
    CustomerOrder get(long id) {
        return http.get().uri("/orders/{id}", id).retrieve().body(CustomerOrder.class);
    }

    ResponseEntity<JsonNode> get(String path, Object... variables) {
        return answer(http.get().uri(path, variables));
    }

    ResponseEntity<JsonNode> post(String path, Object... variables) {
        return answer(http.post().uri(path, variables));
    }

    ResponseEntity<JsonNode> postJson(String body, String path, Object... variables) {
        return answer(http.post().uri(path, variables).contentType(MediaType.APPLICATION_JSON).body(body));
    }

    private static ResponseEntity<JsonNode> answer(RestClient.RequestHeadersSpec<?> request) {
        return request.retrieve().onStatus(HttpStatusCode::isError, (req, res) -> {
        }).toEntity(JsonNode.class);
    }
}
