import Foundation
import MappingsTestSupport
import Testing

/// Fidelity at the edges (dates, repeated keys, signs, unions, messages, reverse fan-outs,
/// decimals), each case as a user found it, through the tool as a process.
@Suite("fidelity at the edges, through the tool")
struct FidelityEdgesCommandTests {
    static let files: [String: String] = [
        "contexts/e.mappings": """
        {
            "@models": {
                "Tweet": { "at": "Date?", "stamp": "Date?", "raw": "JSON?", "i": "String?", "d": "Double?",
                           "m": "[String: Int]?", "body": "String?", "n": "Decimal?", "s": "String?" },
                "PR": { "labels": "[String]", "title": "String" },
                "Echo": { "v": "JSON?" }
            },
            "$Tweet": {
                "@class": "Tweet",
                "at": { "@keyPath": "created_at", "@optional": true, "@dateFormat": "EEE MMM dd HH:mm:ss Z yyyy" },
                "stamp": { "@keyPath": "stamp", "@optional": true },
                "raw": { "@keyPath": "raw", "@optional": true },
                "i": { "@keyPath": "i", "@optional": true },
                "d": { "@keyPath": "d", "@optional": true },
                "m": { "@keyPath": "m", "@optional": true },
                "body": { "@keyPath": "body", "@optional": true },
                "n": { "@keyPath": "n", "@optional": true },
                "s": { "@keyPath": "s", "@optional": true }
            },
            "$PR": { "@class": "PR", "labels": "labels.name", "title": "title" },
            "$Echo": { "@class": "Echo", "v": { "@keyPath": "v", "@optional": true, "@transformClass": "E", "@transformSelector": "same" } }
        }
        """,
        "scripts/E.lua": "return { same = function(v) return v end }",
    ]

    static func run(_ arguments: [String], input: String) throws -> ToolRunner.Result {
        let directory = try ToolRunner.directory(with: files)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try ToolRunner.run(arguments, in: directory, input: input)
    }

    @Test(
        "each edge a user found is an issue, or kept exactly",
        arguments: [
            // 1. A short year is refused, not a moved day; a weekday that contradicts the date too.
            (
                #"{"created_at": "Sun Aug 31 00:29:15 +0000 14"}"#, 1, #""at":null"#,
                #"the year is "14", 2 digits, but "yyyy" reads 4"#
            ),
            (
                #"{"created_at": "Mon Aug 31 00:29:15 +0000 2014"}"#, 1, #""at":null"#,
                "Aug 31 2014 is a Sunday, not a Monday"
            ),
            // 2. Keys written twice where the mapping reads.
            (#"{"raw": {"a": 1, "a": 2}}"#, 1, #""raw":{"a":2}"#, "$.raw.a: duplicate key"),
            (#"{"i": "z", "i": 1}"#, 1, #""i":"1""#, "$.i: duplicate key"),
            (#"{"m": {"x": 1, "x": 2}}"#, 1, #""m":{"x":2}"#, "$.m.x: duplicate key"),
            // 3. Fractions past microseconds.
            (
                #"{"stamp": "2014-08-31T00:29:15.1234567891Z"}"#, 1, #""stamp":null"#,
                "has 10 significant digits: a date keeps 6"
            ),
            (#"{"stamp": "2014-08-31T00:29:15.123456Z"}"#, 0, #""stamp":"2014-08-31T00:29:15.123456Z""#, ""),
            // 4. Signs and kinds.
            (#"{"d": -0.0, "raw": [-0, -0.0, 1.0, 2.50]}"#, 0, #""raw":[-0,-0.0,1.0,2.50],"i":null,"d":-0.0"#, ""),
            // 7. Messages: control characters shown escaped, absent and null told apart.
            (
                #"{"m": {"a": "\u001b[31mRED\nX", "b": 1}}"#, 1, #""m":{"a":null,"b":1}"#,
                #"found string "\u001b[31mRED\nX""#
            ),
            // 9. Decimal's one rule, and years 1 to 9999 for every reading.
            (#"{"n": 10e127}"#, 1, #""n":null"#, "more digits than a Decimal keeps"),
            (#"{"n": 123456789012345678901234567890123456789}"#, 1, #""n":null"#, "more digits than a Decimal keeps"),
            (#"{"stamp": "0000-01-01T00:00:00Z"}"#, 1, #""stamp":null"#, "outside the years 1 to 9999"),
        ])
    func edges(_ payload: String, _ status: Int32, _ output: String, _ message: String) throws {
        let result = try Self.run(["map", "--context", "$Tweet"], input: payload)
        #expect(result.status == status, "\(result.stderr)")
        #expect(result.stdout.contains(output), "\(result.stdout)")
        #expect(message.isEmpty || result.stderr.contains(message), "\(result.stderr)")
        // Whatever the payload held, each issue is one line of visible text.
        for line in result.stderr.split(separator: "\n") {
            #expect(!line.unicodeScalars.contains { $0.value < 0x20 || $0.properties.generalCategory == .format })
        }
    }

    @Test("a stream rejects a record with a repeated key, and the reject escapes what a terminal would run")
    func streamRejects() throws {
        let result = try Self.run(
            ["stream", "--context", "$Tweet"], input: "{\"i\": \"a\", \"i\": \"x\u{202E}y\"}\n{\"i\": \"ok\"}\n")
        #expect(result.status == 1)
        #expect(result.stdout.split(separator: "\n").count == 1)
        #expect(result.stderr.contains(#"<stdin>:1: rejected: $.i: duplicate key"#), "\(result.stderr)")
        // In a rejects file, the record whole, its issues as JSON.
        let file = try Self.run(
            ["stream", "--context", "$Tweet", "--rejects", "/dev/stdout"],
            input: "{\"i\": \"a\", \"i\": \"x\u{202E}y\"}\n{\"i\": \"ok\"}\n")
        #expect(file.stdout.contains(#""kind":"duplicate key","path":"$.i""#), "\(file)")
        // The right-to-left override the record holds raw is written as its escape.
        #expect(file.stdout.contains(#"x\u202ey"#), "\(file)")
        #expect(!file.stdout.unicodeScalars.contains { $0 == "\u{202E}" })
        #expect(!result.stderr.unicodeScalars.contains { $0 == "\u{202E}" })
    }

    @Test("explain tells a null from a missing key")
    func explainNull() throws {
        let result = try Self.run(["explain", "--context", "$Tweet"], input: #"{"body": null}"#)
        #expect(result.stdout.contains("Tweet.body skipped: $.body null, optional"), "\(result.stdout)")
        #expect(result.stdout.contains("Tweet.s skipped: $.s missing, optional"), "\(result.stdout)")
    }

    @Test("a Lua identity keeps floats as floats and numbers as written")
    func luaKinds() throws {
        let result = try Self.run(["map", "--context", "$Echo"], input: #"{"v": [1, 1.0, 2.50, -0.0, 1E2]}"#)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == #"{"v":[1,1.0,2.50,-0.0,1E2]}"# + "\n")
    }

    @Test("serialize writes a fan-out back as the array of objects GitHub sends, in the context's key order")
    func reverseFanOut() throws {
        let payload = #"{"labels":[{"name":"bug"},{"name":"ui"}],"title":"Fix"}"#
        let mapped = try Self.run(["map", "--context", "$PR"], input: payload)
        #expect(mapped.stdout == #"{"labels":["bug","ui"],"title":"Fix"}"# + "\n")
        let back = try Self.run(["serialize", "--context", "$PR"], input: mapped.stdout)
        #expect(back.stdout == payload + "\n", "\(back.stderr)")
    }

    @Test("--into reads the existing object with its repeated keys reported")
    func intoRepeats() throws {
        var files = Self.files
        files["into.json"] = #"{"i": "a", "i": "b"}"#
        let directory = try ToolRunner.directory(with: files)
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try ToolRunner.run(
            ["map", "--context", "$Tweet", "--into", "into.json"], in: directory, input: #"{"body": "x"}"#)
        #expect(result.status == 1)
        #expect(result.stderr.contains("$.i: duplicate key"), "\(result.stderr)")
    }
}
