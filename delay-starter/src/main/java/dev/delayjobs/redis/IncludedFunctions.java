package dev.delayjobs.redis;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The part of a script's include files that the script reaches. Redis runs a script's whole text at
 * every call, so each {@code local function} of an include is a closure built again at every
 * {@code EVALSHA} (about 50 ns each), whether the script calls it or not. An include file is read as
 * top-level functions ({@code local function name(} at the start of a line, up to the first line
 * {@code end} at the start of a line, every line between indented or blank, with the comment lines
 * right above it) and everything else (constants, comments, blank lines): everything else is kept,
 * and a function only when its name occurs in the script, in what is kept, or in a function kept.
 * A name is matched as a word anywhere outside comments (in a string too): keeping a function that
 * is not called is harmless, dropping one that is would fail the call. The order of what is kept is
 * the files' order, so a function is still defined before the functions that use it.
 */
final class IncludedFunctions {

    private static final Pattern FUNCTION = Pattern.compile("local function ([A-Za-z_][A-Za-z0-9_]*)\\s*\\(.*");
    private static final Pattern END = Pattern.compile("end(\\s.*)?");
    private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    private IncludedFunctions() {
    }

    /** A run of lines of an include: a top-level function (name not null) or anything else. */
    private record Part(String function, String text) {
    }

    /**
     * The includes' text ({@code includes}: each file's text, in the order they go before the
     * script) keeping only the functions {@code script} reaches.
     */
    static String reachedBy(String script, List<Include> includes) {
        List<Part> parts = new ArrayList<>();
        for (Include include : includes) {
            parts.addAll(parts(include));
        }
        Map<String, List<Part>> byName = new HashMap<>();
        Deque<String> toVisit = new ArrayDeque<>(names(script));
        for (Part part : parts) {
            if (part.function() == null) {
                toVisit.addAll(names(part.text()));
            }
            else {
                byName.computeIfAbsent(part.function(), name -> new ArrayList<>()).add(part);
            }
        }
        Set<String> seen = new HashSet<>();
        Set<Part> kept = new HashSet<>();
        while (!toVisit.isEmpty()) {
            String name = toVisit.pop();
            if (seen.add(name)) {
                for (Part part : byName.getOrDefault(name, List.of())) {
                    kept.add(part);
                    toVisit.addAll(names(part.text()));
                }
            }
        }
        StringBuilder text = new StringBuilder();
        for (Part part : parts) {
            if (part.function() == null || kept.contains(part)) {
                text.append(part.text());
            }
        }
        return text.toString();
    }

    /** An include file's name (for errors) and text. */
    record Include(String file, String text) {
    }

    /** The file's lines as parts, in order; every line in exactly one part, the file ending with a newline. */
    private static List<Part> parts(Include include) {
        String[] lines = include.text().split("\n", -1);
        List<Part> parts = new ArrayList<>();
        StringBuilder other = new StringBuilder();
        int i = 0;
        int last = lines.length - (lines[lines.length - 1].isEmpty() ? 1 : 0);
        while (i < last) {
            Matcher start = FUNCTION.matcher(lines[i]);
            if (!start.matches()) {
                other.append(lines[i++]).append('\n');
                continue;
            }
            StringBuilder function = new StringBuilder();
            // the comment lines right above the function describe it: they go with it
            String before = other.toString();
            int comments = before.length();
            while (comments > 0) {
                int lineStart = before.lastIndexOf('\n', comments - 2) + 1;
                if (!before.startsWith("--", lineStart) || before.startsWith("--!", lineStart)) {
                    break;
                }
                comments = lineStart;
            }
            function.append(before, comments, before.length());
            parts.add(new Part(null, before.substring(0, comments)));
            other.setLength(0);
            int first = i;
            function.append(lines[i++]).append('\n');
            while (i < last && !END.matcher(lines[i]).matches()) {
                if (!lines[i].isBlank() && !Character.isWhitespace(lines[i].charAt(0))) {
                    throw new IllegalStateException(include.file() + ".lua line " + (i + 1) + ": function " + start.group(1)
                            + " (line " + (first + 1) + ") has an unindented line before its closing 'end'"
                            + " (a top-level function ends with a line 'end', its body indented)");
                }
                function.append(lines[i++]).append('\n');
            }
            if (i == last) {
                throw new IllegalStateException(include.file() + ".lua: function " + start.group(1) + " (line " + (first + 1)
                        + ") has no line 'end' closing it");
            }
            function.append(lines[i++]).append('\n');
            parts.add(new Part(start.group(1), function.toString()));
        }
        parts.add(new Part(null, other.toString()));
        return parts;
    }

    /** The words of {@code code}, comments left out (a comment may name a function it does not call). */
    private static Set<String> names(String code) {
        Set<String> names = new HashSet<>();
        for (String line : code.split("\n")) {
            Matcher name = NAME.matcher(withoutComment(line));
            while (name.find()) {
                names.add(name.group());
            }
        }
        return names;
    }

    /**
     * The line up to its comment, when it surely is one: a {@code --} with no quote or bracket before
     * it. Otherwise the whole line (reading a comment as code keeps more, never less).
     */
    private static String withoutComment(String line) {
        int dashes = line.indexOf("--");
        if (dashes < 0) {
            return line;
        }
        String before = line.substring(0, dashes);
        boolean plain = before.indexOf('\'') < 0 && before.indexOf('"') < 0 && before.indexOf('[') < 0;
        return plain ? before : line;
    }
}
