package dev.delayjobs.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * Every script's header, read as a reader would check it: its {@code -- KEYS[n] name} and
 * {@code -- ARGV[n] name} lines are {@link Script}'s names for it, in order, and its code reads no
 * KEYS or ARGV position the header does not list. Plain text checks: no Redis needed.
 */
class ScriptSignatureTest {

    /**
     * {@code -- KEYS[3] name: text}, {@code -- ARGV[2..] a, b, c: text} (a tail repeated), {@code -- ARGV[last] name: text}
     * (after everything else).
     */
    private static final Pattern DECLARED = Pattern.compile(
            "-- (KEYS|ARGV)\\[(\\d+|last)(\\.\\.)?] ([a-z][a-z0-9-]*(?:, [a-z][a-z0-9-]*)*)(?::.*)?");
    /** A literal position read by the code, KEYS[3] or ARGV[10]. */
    private static final Pattern USED = Pattern.compile("\\b(KEYS|ARGV)\\[(\\d+)]");

    @Test
    void everyScriptFileHasAConstantAndEveryConstantAFile() throws IOException, URISyntaxException {
        List<String> files = files().stream().filter(name -> !name.startsWith("_")).map(name -> name.replace(".lua", ""))
                .sorted().toList();
        List<String> constants = Arrays.stream(Script.values()).map(Script::file).sorted().toList();
        assertThat(constants).isEqualTo(files);
    }

    @Test
    void everyHeaderListsTheKeysAndArgumentsOfItsConstant() throws IOException, URISyntaxException {
        for (Script script : Script.values()) {
            String text = read(script.file() + ".lua");
            List<String> header = header(text);
            assertThat(declared(script, header, "KEYS")).as(script.file() + ".lua KEYS").isEqualTo(script.keyNames());
            assertThat(declared(script, header, "ARGV")).as(script.file() + ".lua ARGV").isEqualTo(script.argNames());
        }
    }

    @Test
    void noScriptReadsAPositionItsHeaderDoesNotList() throws IOException, URISyntaxException {
        for (Script script : Script.values()) {
            String text = read(script.file() + ".lua");
            Matcher used = USED.matcher(code(text));
            while (used.find()) {
                Script.Names names = used.group(1).equals("KEYS") ? script.keyNames() : script.argNames();
                int position = Integer.parseInt(used.group(2));
                assertThat(position <= names.fixed().size() || !names.each().isEmpty())
                        .as("%s.lua reads %s, which its header does not list", script.file(), used.group()).isTrue();
            }
        }
    }

    @Test
    void everyScriptLoadsWithItsIncludesAndOnlyTheMemoScriptsDefineMemoMs() {
        for (Script script : Script.values()) {
            String source = LuaScript.load(script).source();
            boolean memo = source.contains("local function remember(");
            assertThat(source.startsWith("local MEMO_MS = ")).as(script.file()).isEqualTo(memo);
        }
        assertThat(LuaScript.load(Script.PUBLISH).source()).contains("local function remember(");
    }

    @Test
    void aCallThatDoesNotFitTheHeaderIsRefusedBeforeItIsSent() {
        // claim.lua reads ARGV[1] to ARGV[11], then its memo field: ten arguments would read a job count as the field
        List<Object> keys = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            keys.add("k" + i);
        }
        assertThatThrownBy(() -> LuaScript.load(Script.CLAIM).run(null, null, null, keys, "1", "i", "1", "1", "1", "0", "0", "0", "1", "m"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("claim.lua takes KEYS ready, active")
                .hasMessageContaining("then memo last").hasMessageContaining("16 key(s) and 10 argument(s)");
        assertThatThrownBy(() -> LuaScript.load(Script.ACK).run(null, null, null, keys.subList(0, 8), "wake", "id", "gen"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("then (id, gen, attempt) repeated");
    }

    /** The names the header declares for KEYS or ARGV, checked to run 1, 2, ... with the tail last. */
    private static Script.Names declared(Script script, List<String> header, String kind) {
        List<String> fixed = new ArrayList<>();
        List<String> each = List.of();
        List<String> last = List.of();
        for (String line : header) {
            Matcher m = DECLARED.matcher(line);
            if (!line.startsWith("-- " + kind + "[")) {
                continue;
            }
            assertThat(m.matches()).as("%s.lua: '%s' is not '-- %s[n] name: ...'", script.file(), line, kind).isTrue();
            assertThat(last).as("%s.lua: %s after the last", script.file(), line).isEmpty();
            List<String> names = List.of(m.group(4).split(", "));
            if (m.group(2).equals("last")) {
                assertThat(names).as("%s.lua: %s names one position", script.file(), line).hasSize(1);
                last = names;
                continue;
            }
            assertThat(each).as("%s.lua: %s after the tail", script.file(), line).isEmpty();
            assertThat(Integer.parseInt(m.group(2))).as("%s.lua: %s out of order", script.file(), line).isEqualTo(fixed.size() + 1);
            if (m.group(3) != null) {
                each = names;
            }
            else {
                assertThat(names).as("%s.lua: %s names one position", script.file(), line).hasSize(1);
                fixed.add(names.get(0));
            }
        }
        return new Script.Names(List.copyOf(fixed), each, last);
    }

    /** The comment lines a script starts with (its include directive aside). */
    private static List<String> header(String text) {
        List<String> lines = new ArrayList<>();
        for (String line : text.split("\n")) {
            if (!line.startsWith("--")) {
                break;
            }
            if (!line.startsWith("--!")) {
                lines.add(line);
            }
        }
        return lines;
    }

    /** The script without its comments. */
    private static String code(String text) {
        return text.replaceAll("(?m)--.*$", "");
    }

    private static List<String> files() throws IOException, URISyntaxException {
        try (Stream<Path> files = Files.list(directory())) {
            return files.map(file -> file.getFileName().toString()).filter(name -> name.endsWith(".lua")).toList();
        }
    }

    private static String read(String file) throws IOException, URISyntaxException {
        return Files.readString(directory().resolve(file), StandardCharsets.UTF_8);
    }

    private static Path directory() throws URISyntaxException {
        return Path.of(LuaScript.class.getResource("_record.lua").toURI()).getParent();
    }
}
