import Foundation
import MappingsTestSupport
import Testing

@Suite("@unknownKeys and issue severity, through the tool")
struct UnknownKeysCommandTests {
    static let example = ["--mappings", "Examples/language/strict.mappings", "--context", "$Signup"]
    static let file = "Examples/language/strict.mappings"
    static let referrer =
        #"$.referrer: warning: unknown key "referrer", read by no entry (Examples/language/strict.mappings:12)"#
    static let country =
        #"$.address.country: unknown key "country", read by no entry (Examples/language/strict.mappings:26)"#

    @Test("map with only warnings: exit 0, the object written, the warning on stderr and in --report")
    func warningsOnly() throws {
        let directory = try ToolRunner.directory(with: ["README": "reports go here\n"])
        let report = directory.appendingPathComponent("report.json").path
        let result = try ToolRunner.run(
            ["map"] + Self.example + ["--report", report],
            input: #"{"email": "a@b.c", "referrer": "ad", "address": {"city": "Oslo", "postcode": "0150"}}"#)
        #expect(result.status == 0)
        #expect(result.stdout == #"{"email":"a@b.c","address":{"city":"Oslo","zip":"0150"}}"# + "\n")
        #expect(result.stderr == Self.referrer + "\n")
        let written = try String(contentsOfFile: report, encoding: .utf8)
        #expect(
            written
                == #"[{"kind":"unknown key","path":"$.referrer","property":"Signup","rule":"Examples/language/strict.mappings:12","provenance":"Examples/language/strict.mappings:12","message":"unknown key \"referrer\", read by no entry","severity":"warning"}]"#
                + "\n")
    }

    @Test("an error beside a warning: exit 1, both on stderr in payload order, each with its severity")
    func errorAndWarning() throws {
        let directory = try ToolRunner.directory(with: ["README": "reports go here\n"])
        let report = directory.appendingPathComponent("report.json").path
        let result = try ToolRunner.run(
            ["map"] + Self.example + ["--report", report],
            input: #"{"email": "a@b.c", "referrer": "ad", "address": {"city": "Oslo", "zip": "1", "country": "NO"}}"#)
        #expect(result.status == 1)
        #expect(result.stdout == #"{"email":"a@b.c","address":{"city":"Oslo","zip":"1"}}"# + "\n")
        #expect(result.stderr == Self.referrer + "\n" + Self.country + "\n")
        let written = try String(contentsOfFile: report, encoding: .utf8)
        #expect(written.contains(#""path":"$.referrer","#) && written.contains(#""severity":"warning"}"#))
        #expect(written.contains(#""path":"$.address.country","#) && written.contains(#""severity":"error"}"#))
    }

    @Test("a known payload maps with no issue; an error is always marked as one in the report")
    func clean() throws {
        let result = try ToolRunner.run(["map"] + Self.example, input: #"{"email": "a@b.c"}"#)
        #expect(result.status == 0)
        #expect(result.stderr == "")
        let missing = try ToolRunner.run(["map"] + Self.example + ["--report", "/dev/stdout"], input: "{}")
        #expect(missing.status == 1)
        #expect(missing.stdout.contains(#""kind":"missing required value""#))
        #expect(missing.stdout.contains(#""severity":"error"}"#))
    }

    @Test("stream writes a record with warnings only and counts it; one with an error is rejected with both")
    func stream() throws {
        let directory = try ToolRunner.directory(with: [
            "in.ndjson": """
            {"email": "a@b.c", "referrer": "ad"}
            {"email": "d@e.f", "referrer": "tv", "address": {"city": "Oslo", "zip": "1", "country": "NO"}}
            {"email": "g@h.i"}

            """
        ])
        let root = ToolRunner.packageRoot.path
        let result = try ToolRunner.run(
            [
                "stream", "--mappings", "\(root)/\(Self.file)", "--context", "$Signup", "--rejects", "rejects.ndjson",
                "--stats", "stats.json", "in.ndjson",
            ], in: directory)
        #expect(result.status == 1)
        #expect(
            result.stdout == """
                {"email":"a@b.c","address":null}
                {"email":"g@h.i","address":null}

                """)
        let rule = "\(root)/\(Self.file)"
        #expect(
            result.stderr == """
                in.ndjson:1: $.referrer: warning: unknown key "referrer", read by no entry (\(rule):12)
                mappings stream: read 3, written 2, rejected 1 (1 written with warnings)

                """)
        let rejects = try String(contentsOf: directory.appendingPathComponent("rejects.ndjson"), encoding: .utf8)
        let lines = rejects.split(separator: "\n")
        #expect(lines.count == 1)
        #expect(lines.first?.hasPrefix(#"{"file":"in.ndjson","line":2,"#) == true)
        #expect(lines.first?.contains(#""path":"$.referrer","#) == true)
        #expect(lines.first?.contains(#""severity":"warning"}"#) == true)
        #expect(lines.first?.contains(#""path":"$.address.country","#) == true)
        #expect(lines.first?.contains(#""severity":"error"}"#) == true)
        let stats = try String(contentsOf: directory.appendingPathComponent("stats.json"), encoding: .utf8)
        #expect(stats.contains(#""issues":{"unknown key":3},"warnings":1,"withWarnings":1,"#))
    }

    @Test("a stream whose records have warnings only exits 0")
    func streamWarningsOnly() throws {
        let result = try ToolRunner.run(
            ["stream"] + Self.example + ["--rejects", "/dev/null"],
            input: #"{"email": "a@b.c", "referrer": "ad"}"# + "\n")
        #expect(result.status == 0)
        #expect(result.stdout == #"{"email":"a@b.c","address":null}"# + "\n")
    }

    @Test("explain shows each unknown key with its severity")
    func explain() throws {
        let result = try ToolRunner.run(
            ["explain"] + Self.example,
            input: #"{"email": "a@b.c", "referrer": "ad", "address": {"city": "Oslo", "zip": "1", "country": "NO"}}"#)
        #expect(result.status == 1)
        #expect(
            result.stdout == """
                Signup: unknown key $.referrer, read by no entry (warning)  [\(Self.file):12]
                Signup.email <- $.email = "a@b.c"  [\(Self.file):13]
                Signup.address <- $.address = {"city":"Oslo","zip":"1","country":"NO"}  [\(Self.file):14]
                Signup.address: unknown key $.address.country, read by no entry (error)  [\(Self.file):26]
                Signup.address.city <- $.address.city = "Oslo"  [\(Self.file):27]
                Signup.address.zip <- $.address.zip (key path 1 of 2) = "1"  [\(Self.file):28]
                result: {"email":"a@b.c","address":{"city":"Oslo","zip":"1"}}

                """)
    }

    @Test("check: an unknown value with a suggestion, and a value that is not a string, each in place")
    func checkErrors() throws {
        let directory = try ToolRunner.directory(with: [
            "contexts/users.mappings": """
            {
                "@models": { "User": { "name": "String" } },
                "$User": { "@class": "User", "@unknownKeys": "wran", "name": "name" },
                "$Other": { "@class": "User", "@unknownKeys": false, "name": "name" },
                "$Typo": { "@class": "User", "@unknownKey": "warn", "name": "name" }
            }
            """
        ])
        let result = try ToolRunner.run(["check"], in: directory)
        #expect(result.status == 2)
        #expect(result.stdout == "")
        #expect(
            result.stderr == #"""
                error: "@unknownKeys" is "ignore", "warn" or "error", not "wran"
                 --> contexts/users.mappings:3:50
                  |
                3 |     "$User": { "@class": "User", "@unknownKeys": "wran", "name": "name" },
                  |                                                  ^^^^^^
                  = help: did you mean "warn"?

                error: "@unknownKeys" is "ignore", "warn" or "error", not a boolean
                 --> contexts/users.mappings:4:51
                  |
                4 |     "$Other": { "@class": "User", "@unknownKeys": false, "name": "name" },
                  |                                                   ^^^^^

                error: unknown keyword "@unknownKey" in a context
                 --> contexts/users.mappings:5:34
                  |
                5 |     "$Typo": { "@class": "User", "@unknownKey": "warn", "name": "name" }
                  |                                  ^^^^^^^^^^^^^
                  = help: did you mean "@unknownKeys"?

                mappings: 3 errors found

                """#)
    }

    @Test("mappings test compares warnings too, severity included")
    func contextTests() throws {
        let result = try ToolRunner.run(["test", "--mappings", Self.file])
        #expect(result.status == 0)
        #expect(result.stdout.contains(#"ok   $Signup test 1 "a new top-level key is a warning""#))
        let directory = try ToolRunner.directory(with: [
            "contexts/users.mappings": """
            {
                "@models": { "User": { "name": "String" } },
                "$User": { "@class": "User", "@unknownKeys": "warn", "name": "name",
                    "@tests": [
                        { "input": { "name": "Ann", "x": 1 }, "output": { "name": "Ann" } },
                        { "input": { "name": "Ann", "x": 1 }, "output": { "name": "Ann" },
                          "issues": [ { "path": "$.x", "severity": "error" } ] }
                    ] }
            }
            """
        ])
        let failing = try ToolRunner.run(["test"], in: directory)
        #expect(failing.status == 1)
        #expect(
            failing.stdout == """
                FAIL $User test 1 (contexts/users.mappings:5)
                       expected 0 issues, got 1
                       unexpected issue: $.x: warning: unknown key "x", read by no entry (contexts/users.mappings:3)
                FAIL $User test 2 (contexts/users.mappings:6)
                       issue 1: expected severity "error", got $.x: warning: unknown key "x", read by no entry (contexts/users.mappings:3)
                mappings test: 0 passed, 2 failed

                """)
    }
}
