import Foundation
import MappingsTestSupport
import Testing

@Suite("mappings check, as a process")
struct CheckCommandTests {
    @Test("the shipped contexts/ check clean")
    func shippedContexts() throws {
        let result = try ToolRunner.run(["check"])
        #expect(result.stderr == "")
        #expect(result.stdout == "ok: 4 contexts, 4 models in 2 files, 4 of 4 tests passed\n")
        #expect(result.status == 0)
    }

    @Test("every shipped example checks clean")
    func examples() throws {
        let examples = ToolRunner.packageRoot.appendingPathComponent("Examples")
        let enumerator = FileManager.default.enumerator(atPath: examples.path)
        var checked = 0
        while let path = enumerator?.nextObject() as? String {
            guard path.hasSuffix(".mappings"), !path.contains("broken") else { continue }
            // A project of its own (`X/contexts/…` beside `X/scripts`) checks with its scripts.
            let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
            let scripts = folder.deletingLastPathComponent().appendingPathComponent("scripts").relativePath
            let ownScripts =
                folder.lastPathComponent == "contexts"
                && FileManager.default.fileExists(atPath: examples.appendingPathComponent(scripts).path)
            let result = try ToolRunner.run(
                ["check", "--mappings", "Examples/" + path] + (ownScripts ? ["--scripts", "Examples/" + scripts] : []))
            #expect(result.status == 0, "\(path): \(result.stderr)")
            checked += 1
        }
        #expect(checked > 0)
    }

    @Test("a broken file exits 2 and prints every problem with file:line:column")
    func brokenFiles() throws {
        let directory = try ToolRunner.directory(with: [
            "contexts/models.mappings": """
            { "@models": { "User": { "name": "String", "age": "Int" } } }
            """,
            "contexts/users.mappings": """
            {
                "@import": "models",
                "$User": {
                    "@class": "User",
                    "nmae": "name",
                    "age": { "@keyPath": "age", "@defaultValue": "old" },
                },
                "$Admin": { "@inherits": "$Usr" }
            }
            """,
        ])
        let result = try ToolRunner.run(["check"], in: directory)
        #expect(result.status == 2)
        #expect(result.stdout == "")
        #expect(
            result.stderr == """
                error: User has no property "nmae"
                 --> contexts/users.mappings:5:9
                  |
                5 |         "nmae": "name",
                  |         ^^^^^^
                  = note: User is declared here
                 --> contexts/models.mappings:1:16
                  |
                1 | { "@models": { "User": { "name": "String", "age": "Int" } } }
                  |                ^^^^^^
                  = help: did you mean "name"?

                error: the default value of "age" cannot become Int: expected Int, found string "old", which is not a whole number
                 --> contexts/users.mappings:6:54
                  |
                6 |         "age": { "@keyPath": "age", "@defaultValue": "old" },
                  |                                                      ^^^^^
                  = help: write a default that converts to Int, or remove "@defaultValue"

                error: the parent "$Usr" names no context
                 --> contexts/users.mappings:8:30
                  |
                8 |     "$Admin": { "@inherits": "$Usr" }
                  |                              ^^^^^^
                  = help: did you mean "$User"?

                mappings: 3 errors found

                """)
    }

    @Test("a file that does not parse is the one error: what rests on its models is not reported missing")
    func noCascadeAfterSyntaxError() throws {
        let models = try String(
            contentsOf: ToolRunner.packageRoot.appendingPathComponent("contexts/models.mappings"), encoding: .utf8)
        let broken = models.replacingOccurrences(
            of: #""name": "String", "imageUrl""#, with: #""name": "String" "imageUrl""#)
        #expect(broken != models)
        let directory = try ToolRunner.directory(with: [
            "contexts/models.mappings": broken,
            "contexts/twitter.mappings": try String(
                contentsOf: ToolRunner.packageRoot.appendingPathComponent("contexts/twitter.mappings"), encoding: .utf8),
            "scripts/MyTransformers.lua": try String(
                contentsOf: ToolRunner.packageRoot.appendingPathComponent("scripts/MyTransformers.lua"), encoding: .utf8
            ),
        ])
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try ToolRunner.run(["check", "--color", "never"], in: directory)
        #expect(result.status == 2)
        #expect(
            result.stderr == """
                error: expected ',' or '}' after this value
                 --> contexts/models.mappings:5:40
                  |
                5 |         "UserModel": { "name": "String" "imageUrl": "URL?" },
                  |                                        ^
                  = note: the next member starts here
                 --> contexts/models.mappings:5:41
                  |
                5 |         "UserModel": { "name": "String" "imageUrl": "URL?" },
                  |                                         ^
                  = note: the models and contexts of contexts/models.mappings are unknown until it parses: what names them is checked once it does
                  = help: add a ',' here, between the members

                mappings: 1 error found

                """)
    }

    @Test("--trait feeds selectors, and a malformed --trait exits 2")
    func traits() throws {
        let directory = try ToolRunner.directory(with: [
            "t.mappings": #"{ "@when apiVersion >= 2.10": { "$V2": {} }, "$Always": {} }"#
        ])
        let old = try ToolRunner.run(["check", "--mappings", "t.mappings", "--trait", "apiVersion=2.9"], in: directory)
        #expect(old.stdout == "ok: 1 context, 0 models in 1 file\n")
        let new = try ToolRunner.run(
            ["check", "--mappings", "t.mappings", "--trait", "apiVersion=2.10"], in: directory)
        #expect(new.stdout == "ok: 2 contexts, 0 models in 1 file\n")
        let bad = try ToolRunner.run(["check", "--mappings", "t.mappings", "--trait", "=3"], in: directory)
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("--trait takes KEY=VALUE, but got '=3'"))
    }

    @Test("a missing --mappings path exits 2")
    func missingPath() throws {
        let result = try ToolRunner.run(["check", "--mappings", "does/not/exist"])
        #expect(result.status == 2)
        #expect(
            result.stderr == """
                error: no such file or directory: "does/not/exist"
                  = help: name a .mappings file or a directory of them; a relative path is read from the working directory, \(ToolRunner.packageRoot.path)

                mappings: 1 error found

                """)
    }

    @Test("--help describes the subcommands; an unknown option exits 2")
    func help() throws {
        let help = try ToolRunner.run(["--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("check"))
        #expect(help.stdout.contains("Exit status"))
        let unknown = try ToolRunner.run(["check", "--frobnicate"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("Unknown option '--frobnicate'"))
    }

    @Test("a Lua script that does not compile is a load-time error of check, exit 2")
    func brokenScript() throws {
        let directory = try ToolRunner.directory(with: [
            "contexts/x.mappings": """
            { "$X": { "v": { "@keyPath": "v", "@transformClass": "Text", "@transformSelector": "shout:" } } }
            """,
            "lua/Text.lua": "local Text = {}\nfunction Text.shout(s)\n  return s:upper() ..\nend\nreturn Text\n",
        ])
        let result = try ToolRunner.run(["check", "--scripts", "lua"], in: directory)
        #expect(result.status == 2)
        #expect(
            result.stderr == """
                error: lua/Text.lua does not load: unexpected symbol near 'end'
                 --> lua/Text.lua:4:1
                  |
                4 | end
                  | ^^^
                  = note: asked for by this entry
                 --> contexts/x.mappings:1:11
                  |
                1 | { "$X": { "v": { "@keyPath": "v", "@transformClass": "Text", "@transformSelector": "shout:" } } }
                  |           ^^^

                mappings: 1 error found

                """)
        let mapped = try ToolRunner.run(
            ["map", "--scripts", "lua", "--context", "$X", "--lua-budget", "5000", "--lua-timeout", "100"],
            in: directory,
            input: #"{"v": "hi"}"#)
        #expect(mapped.status == 2)
        #expect(mapped.stderr.hasPrefix("error: lua/Text.lua does not load"))
    }

    @Test("the --lua-* limits are checked and applied")
    func luaLimits() throws {
        let directory = try ToolRunner.directory(with: [
            "contexts/x.mappings": """
            { "$X": { "v": { "@keyPath": "@self", "@transformClass": "Spin", "@transformSelector": "spin" } } }
            """,
            "scripts/Spin.lua": "return { spin = function(n) for i = 1, n do end return n end }",
        ])
        let small = try ToolRunner.run(
            ["map", "--context", "$X", "--lua-budget", "10000"], in: directory, input: "100000")
        #expect(small.status == 1)
        #expect(small.stderr.contains("ran out of its instruction budget (10000 instructions)"))
        let large = try ToolRunner.run(
            ["map", "--context", "$X", "--lua-budget", "1000000"], in: directory, input: "100000")
        #expect(large.status == 0)
        #expect(large.stdout == #"{"v":100000}"# + "\n")
        let invalid = try ToolRunner.run(["map", "--context", "$X", "--lua-memory", "0"], in: directory, input: "1")
        #expect(invalid.status == 2)
        #expect(invalid.stderr.contains("--lua-memory must be between 1 and 1048576 MiB, not 0"))
    }

    @Test("mappings test runs the shipped tests; a failing test shows what differs and exits 1, in check too")
    func contextTests() throws {
        let shipped = try ToolRunner.run(["test"])
        #expect(shipped.status == 0)
        #expect(shipped.stdout.hasSuffix("mappings test: 4 passed, 0 failed\n"))
        let directory = try ToolRunner.directory(with: [
            "contexts/x.mappings": """
            { "$X": { "a": "a", "@tests": [ { "input": { "a": 1 }, "output": { "a": 2 } } ] } }
            """
        ])
        let failing = try ToolRunner.run(["test"], in: directory)
        #expect(failing.status == 1)
        #expect(
            failing.stdout == """
                FAIL $X test 1 (contexts/x.mappings:1)
                       $.a: expected 2, got 1
                mappings test: 0 passed, 1 failed

                """)
        let check = try ToolRunner.run(["check"], in: directory)
        #expect(check.status == 1)
        #expect(check.stderr.hasSuffix("mappings: 1 context, 0 models in 1 file, 0 of 1 test passed\n"))
    }

    /// A `.mappings` file may hold any character, escaped or raw in a comment; a diagnostic
    /// prints them escaped, in its message, its help and its source line, with the caret under
    /// the escapes: a file cannot clear the screen or retitle the terminal of who checks it.
    @Test("control and invisible characters of a file are printed escaped, in messages, help and source lines")
    func escapedControls() throws {
        let text =
            #"{ /* "# + "\u{1B}[2J\u{1B}]0;PWN\u{07}" + #" */ "$X": { "@class": "\u001b]0;PWN\u0007\u001b[2J" },"#
            + #" "$Y": { "@clas\u202es": "x" } }"# + "\n"
        let directory = try ToolRunner.directory(with: ["contexts/e.mappings": text])
        defer { try? FileManager.default.removeItem(at: directory) }
        let check = try ToolRunner.run(["check"], in: directory)
        #expect(check.status == 2)
        let controls = check.stderr.unicodeScalars.filter {
            ($0.value < 0x20 && $0 != "\n") || $0.value == 0x7F || $0.properties.generalCategory == .format
        }
        #expect(controls.isEmpty, "\(controls.map { $0.value })")
        #expect(check.stderr.contains(#"error: unknown class "\u001b]0;PWN\u0007\u001b[2J""#), "\(check.stderr)")
        #expect(check.stderr.contains(#"declare it under "@models", such as "\u001b]0;PWN\u0007\u001b[2J""#))
        #expect(check.stderr.contains(#"unknown keyword "@clas\u202es""#), "\(check.stderr)")
        // The source line shows the comment's raw bytes as escapes; the caret sits under the key.
        let lines = check.stderr.components(separatedBy: "\n")
        let shown = try #require(lines.first { $0.hasPrefix("1 | ") && $0.contains("@clas") })
        #expect(shown.contains(#"/* \u001b[2J\u001b]0;PWN\u0007 */"#))
        let caret = try #require(lines.last { $0.hasPrefix("  | ") && $0.contains("^") })
        let column = caret.distance(from: caret.startIndex, to: caret.firstIndex(of: "^")!)
        let key = shown.distance(from: shown.startIndex, to: shown.range(of: #""@clas\u202es""#)!.lowerBound)
        #expect(column == key, "\(shown)\n\(caret)")
    }
}
