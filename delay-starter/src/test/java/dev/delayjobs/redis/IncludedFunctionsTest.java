package dev.delayjobs.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import dev.delayjobs.redis.IncludedFunctions.Include;

/**
 * Which functions of the include files a script gets: those it reaches, directly or through a
 * function kept, and always the includes' constants. Pure text: that every script still runs with
 * what it gets is proved by the script tests against a real Redis.
 */
class IncludedFunctionsTest {

    private static final Pattern DEFINED = Pattern.compile("(?m)^local function ([A-Za-z_][A-Za-z0-9_]*)\\s*\\(");
    private static final Pattern WORD = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    private static final Include SHAPES = new Include("_shapes", """
            -- Shapes.

            local SIDES = 4

            -- The area of a square.
            -- (see side_of below)
            local function area(s)
              return side_of(s) * side_of(s)
            end

            local function side_of(s)
              return s.side
            end

            -- Never called by the script: only this comment names area().
            local function perimeter(s)
              return SIDES * side_of(s)
            end
            """);

    @Test
    void keepsTheFunctionsTheScriptReachesTheirOwnCallsAndEveryConstant() {
        String kept = IncludedFunctions.reachedBy("return side_of({ side = 2 })\n", List.of(SHAPES));
        assertThat(defined(kept)).containsExactly("side_of");
        assertThat(kept).contains("local SIDES = 4").contains("-- Shapes.").doesNotContain("-- The area of a square")
                .doesNotContain("Never called");

        String throughArea = IncludedFunctions.reachedBy("return area({ side = 2 }) -- not perimeter\n", List.of(SHAPES));
        assertThat(defined(throughArea)).containsExactly("area", "side_of");
        assertThat(throughArea).contains("-- The area of a square.\n-- (see side_of below)\nlocal function area(s)");
    }

    @Test
    void aNameInAStringOrInAnIncludedStatementKeepsItsFunction() {
        // over-inclusion is safe: a name quoted, or read by a constant of an include, keeps the function
        assertThat(defined(IncludedFunctions.reachedBy("return 'perimeter'\n", List.of(SHAPES)))).contains("perimeter");
        Include uses = new Include("_uses", "local SQUARE_SIDE = side_of({ side = 3 })\n");
        assertThat(defined(IncludedFunctions.reachedBy("return 1\n", List.of(SHAPES, uses)))).containsExactly("side_of");
    }

    @Test
    void aFunctionWhoseEndCannotBeToldIsRefusedWithItsFileAndLine() {
        Include oneLine = new Include("_short", "local function one() return 1 end\nlocal function two()\n  return 2\nend\n");
        assertThatThrownBy(() -> IncludedFunctions.reachedBy("return one()\n", List.of(oneLine)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("_short.lua line 2")
                .hasMessageContaining("function one (line 1)");
        Include open = new Include("_open", "local function three()\n  return 3\n");
        assertThatThrownBy(() -> IncludedFunctions.reachedBy("return three()\n", List.of(open)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("_open.lua: function three (line 1) has no line 'end'");
    }

    /**
     * Every script of the starter: each name of an include function its source uses comes after
     * that function's definition, and fewer functions are built per call than the includes define.
     */
    @Test
    void everyScriptDefinesEachIncludedFunctionItUsesBeforeUsingIt() {
        int before = 0;
        int after = 0;
        for (Script script : Script.values()) {
            String source = LuaScript.load(script).source();
            Set<String> included = new HashSet<>();
            for (String include : LuaScript.named(script.file(), read(script.file() + ".lua"))) {
                included.addAll(definedInIncludes(include, new HashSet<>()));
            }
            Set<String> definedSoFar = new HashSet<>();
            for (String line : source.split("\n")) {
                Matcher definition = DEFINED.matcher(line);
                if (definition.find()) {
                    definedSoFar.add(definition.group(1));
                }
                String code = line.strip().startsWith("--") ? "" : line;
                Matcher word = WORD.matcher(code);
                while (word.find()) {
                    if (included.contains(word.group())) {
                        assertThat(definedSoFar).as("%s.lua uses %s in '%s'", script.file(), word.group(), line)
                                .contains(word.group());
                    }
                }
            }
            before += included.size();
            after += defined(source).size();
        }
        assertThat(after).isLessThan(before);
        assertThat(defined(LuaScript.load(Script.PUBLISH).source())).contains("remember", "add_delayed_groups", "queue_successor")
                .doesNotContain("ready_length", "successors_take_over");
    }

    /** The functions an include and the includes it names define. */
    private static Set<String> definedInIncludes(String include, Set<String> into) {
        String text = read(include + ".lua");
        for (String inner : LuaScript.named(include, text)) {
            definedInIncludes(inner, into);
        }
        into.addAll(defined(text));
        return into;
    }

    private static List<String> defined(String text) {
        return DEFINED.matcher(text).results().map(m -> m.group(1)).toList();
    }

    private static String read(String file) {
        try (var in = LuaScript.class.getResourceAsStream(file)) {
            return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        }
        catch (java.io.IOException ex) {
            throw new java.io.UncheckedIOException(ex);
        }
    }
}
