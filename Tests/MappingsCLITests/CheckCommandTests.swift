import Foundation
import Testing

@Suite("mappings check, as a process")
struct CheckCommandTests {
    @Test("the shipped contexts/ check clean")
    func shippedContexts() throws {
        let result = try ToolRunner.run(["check"])
        #expect(result.stderr == "")
        #expect(result.stdout == "ok: 4 contexts, 4 models in 2 files\n")
        #expect(result.status == 0)
    }

    @Test("every shipped example checks clean")
    func examples() throws {
        let examples = ToolRunner.packageRoot.appendingPathComponent("Examples")
        let enumerator = FileManager.default.enumerator(atPath: examples.path)
        var checked = 0
        while let path = enumerator?.nextObject() as? String {
            guard path.hasSuffix(".mappings"), !path.contains("broken") else { continue }
            let result = try ToolRunner.run(["check", "--mappings", "Examples/" + path])
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

                error: the default value of "age" cannot become Int: expected Int, found string "old", which is not a whole number in range
                 --> contexts/users.mappings:6:54
                  |
                6 |         "age": { "@keyPath": "age", "@defaultValue": "old" },
                  |                                                      ^^^^^

                error: the parent "$Usr" names no context
                 --> contexts/users.mappings:8:30
                  |
                8 |     "$Admin": { "@inherits": "$Usr" }
                  |                              ^^^^^^
                  = help: did you mean "$User"?

                mappings: 3 errors found

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
                  = help: --mappings takes a .mappings file or a directory of them

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
}
