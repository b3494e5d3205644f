package dev.delayjobs.core;

/**
 * An error as logged and stored with a job: control characters escaped, so that text from a
 * payload or a JSON key cannot forge log lines, and at most 2000 characters.
 */
public final class ErrorText {

    private static final int MAX_LENGTH = 2000;

    private ErrorText() {
    }

    public static String of(String text) {
        StringBuilder safe = new StringBuilder(Math.min(text.length(), MAX_LENGTH) + 16);
        int i = 0;
        for (; i < text.length() && safe.length() < MAX_LENGTH; i++) {
            char c = text.charAt(i);
            if (c == '\n') {
                safe.append("\\n");
            }
            else if (c == '\r') {
                safe.append("\\r");
            }
            else if (Character.isISOControl(c)) {
                safe.append(String.format("\\u%04x", (int) c));
            }
            else {
                safe.append(c);
            }
        }
        return i == text.length() ? safe.toString() : safe + "..."; // "..." only when something was cut
    }
}
