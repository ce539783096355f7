import Foundation
import MappingsTestSupport
import Testing

/// The examples users found where data changed without an issue, each through the tool as a
/// process: nothing a payload holds is changed or dropped without an issue.
@Suite("fidelity, through the tool")
struct FidelityCommandTests {
    static let files: [String: String] = [
        "f.mappings": """
        {
            "@models": {
                "Price": { "price": "Decimal", "text": "String?", "raw": "JSON?", "count": "Int?", "at": "Date?" },
                "User": { "name": "String", "age": "Int?" },
                "Holder": { "user": "User?", "scripted": "User?" },
                "Label": { "name": "String" },
                "Issue": { "labels": "[Label]", "labelNames": "[String]", "minus": "Int?", "lon": "Double",
                           "lat": "Double", "media": "Int?" },
                "Loop": { "a": "JSON?", "b": "JSON?" }
            },
            "$Price": {
                "@class": "Price", "price": "price",
                "text": { "@keyPath": "text", "@optional": true }, "raw": { "@keyPath": "raw", "@optional": true },
                "count": { "@keyPath": "count", "@optional": true }, "at": { "@keyPath": "at", "@optional": true }
            },
            "$Holder": {
                "@class": "Holder",
                "user": { "@keyPath": "user", "@optional": true, "@object": { "@class": "User" } },
                "scripted": { "@keyPath": "s", "@optional": true, "@transformClass": "F", "@transformSelector": "user" }
            },
            "$Label": { "@class": "Label", "name": "name" },
            "$Issue": {
                "@class": "Issue",
                "labels": { "@keyPath": "labels", "@object": { "@mappings": "$Label" } },
                "labelNames": "labels.name",
                "minus": { "@keyPath": "reactions.-1", "@optional": true },
                "lon": "geometry.coordinates.0",
                "lat": "geometry.coordinates.1",
                "media": { "@keyPath": "media_attachments.@count", "@optional": true }
            },
            "$Loop": {
                "@class": "Loop",
                "a": { "@keyPath": "v", "@optional": true, "@transformClass": "F", "@transformSelector": "xp" },
                "b": { "@keyPath": "v", "@optional": true, "@transformClass": "F", "@transformSelector": "tail" }
            },
            "$Keys": { "nfc": "\\u00e9", "nfd": "e\\u0301" }
        }
        """,
        "scripts/F.lua": """
        return {
            user = function(value) return { age = 3 } end,
            xp = function(value) return xpcall(function() while true do end end, function() while true do end end) end,
            tail = function(value) return pcall(function() while true do end end) end,
        }
        """,
    ]

    static func run(_ arguments: [String], input: String = "") throws -> ToolRunner.Result {
        let directory = try ToolRunner.directory(with: files)
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent("a-directory"), withIntermediateDirectories: true)
        return try ToolRunner.run(arguments + ["--mappings", "f.mappings"], in: directory, input: input)
    }

    @Test(
        "numbers keep their digits: Decimal, String and JSON; an Int that cannot hold one says so",
        arguments: [
            (#"{"price": 123456789.123456789}"#, #""price":123456789.123456789"#, 0),
            (#"{"price": 12345678901234567890.123456789}"#, #""price":12345678901234567890.123456789"#, 0),
            (#"{"price": 1.10}"#, #""price":1.10"#, 0), (#"{"price": "1.10"}"#, #""price":1.10"#, 0),
            (#"{"price": -0.0}"#, #""price":-0.0"#, 0), (#"{"price": 1.0E+2}"#, #""price":100"#, 0),
            (#"{"price": 1, "text": 18446744073709551617}"#, #""text":"18446744073709551617""#, 0),
            (
                #"{"price": 1, "raw": [18446744073709551617, -9223372036854775809]}"#,
                #""raw":[18446744073709551617,-9223372036854775809]"#, 0
            ),
            (#"{"price": 1, "text": -9223372036854775809}"#, #""text":"-9223372036854775809""#, 0),
            (#"{"price": 1, "count": -9223372036854775809}"#, #""count":null"#, 1),
        ])
    func numbers(input: String, output: String, status: Int32) throws {
        let result = try Self.run(["map", "--context", "$Price"], input: input)
        #expect(result.status == status, "\(result.stderr)")
        #expect(result.stdout.contains(output), "\(result.stdout)")
        if status == 1 {
            #expect(
                result.stderr.contains(
                    "$.count: expected Int, found number -9223372036854775809, which is outside Int's range"))
        }
    }

    @Test(
        "serialize writes a decimal with the digits and scale map wrote",
        arguments: ["1.10", "-0.0", "0.000", "123456789012345678.90"])
    func serializedDecimals(price: String) throws {
        let mapped = try Self.run(["map", "--context", "$Price"], input: #"{"price": "\#(price)"}"#)
        #expect(mapped.status == 0, "\(mapped.stderr)")
        let back = try Self.run(["serialize", "--context", "$Price"], input: mapped.stdout)
        #expect(back.status == 0, "\(back.stderr)")
        #expect(back.stdout == #"{"price":\#(price)}"# + "\n")
    }

    @Test("a Unix time in milliseconds is an issue suggesting @unixMilliseconds, not the year 56135")
    func milliseconds() throws {
        let result = try Self.run(["map", "--context", "$Price"], input: #"{"price": 1, "at": 1709287200123}"#)
        #expect(result.status == 1)
        #expect(result.stdout.contains(#""at":null"#))
        #expect(result.stderr.contains(#"if it counts milliseconds, set "@dateFormat": "@unixMilliseconds""#))
    }

    @Test("Unix seconds under @unixMilliseconds are written, with a warning on stderr, and stream counts it")
    func secondsAsMilliseconds() throws {
        let folder = try ToolRunner.directory(with: [
            "contexts/e.mappings": #"""
            { "@models": { "E": { "at": "Date" } },
              "$E": { "@class": "E", "at": { "@keyPath": "at", "@dateFormat": "@unixMilliseconds" } } }
            """#
        ])
        defer { try? FileManager.default.removeItem(at: folder) }
        let mapped = try ToolRunner.run(["map", "--context", "$E", "-"], in: folder, input: #"{"at": 1453671950}"#)
        #expect(mapped.status == 0, "\(mapped.stderr)")
        #expect(mapped.stdout == #"{"at":"1970-01-17T19:47:51.950Z"}"# + "\n")
        #expect(
            mapped.stderr
                == #"$.at: warning: number 1453671950 as Unix milliseconds is 1970-01-17T19:47:51.950Z, before 1973: if it counts seconds, set "@dateFormat": "@unixSeconds"; if that is right, give the dates it may be: "@dateRange": ["1970-01-01", "2200-01-01"] (contexts/e.mappings:2)"#
                + "\n")
        let streamed = try ToolRunner.run(
            ["stream", "--context", "$E"], in: folder, input: "{\"at\": 1453671950}\n{\"at\": 1453671950000}\n")
        #expect(streamed.status == 0)
        #expect(streamed.stderr.contains("(1 written with warnings)"), "\(streamed.stderr)")
    }

    @Test("models built by property name, from @object or a Lua result, report missing required values")
    func requiredByName() throws {
        let result = try Self.run(["map", "--context", "$Holder"], input: #"{"user": {"age": 1}, "s": 1}"#)
        #expect(result.status == 1)
        #expect(result.stderr.contains("$.user.name: missing required value for User.name (f.mappings:18)"))
        #expect(result.stderr.contains("$.s.name: missing required value for User.name (f.mappings:19)"))
    }

    @Test("a directory given as input is exit 2 with the system's reason, for stream and map")
    func directoryInput() throws {
        let stream = try Self.run(["stream", "--context", "$Price", "a-directory/"])
        #expect(stream.status == 2)
        #expect(stream.stderr.contains(#"cannot read the input "a-directory/": Is a directory"#))
        #expect(!stream.stderr.contains("read 0"))
        let map = try Self.run(["map", "--context", "$Price", "a-directory"])
        #expect(map.status == 2)
        #expect(map.stderr.contains(#"cannot read the input "a-directory": Is a directory"#))
        let missing = try Self.run(["map", "--context", "$Price", "nosuch.json"])
        #expect(missing.stderr.contains(#"cannot read the input "nosuch.json": No such file or directory"#))
    }

    @Test("serialize writes back what map read: shared prefixes, -1 keys, indexes; @count is a note, not null")
    func serialize() throws {
        let payload = """
            {"labels":[{"name":"bug"},{"name":"ui"}],"reactions":{"-1":2},\
            "geometry":{"coordinates":[2.35,48.85]},"media_attachments":[{},{}]}
            """
        let mapped = try Self.run(["map", "--context", "$Issue"], input: payload)
        #expect(mapped.status == 0)
        let back = try Self.run(["serialize", "--context", "$Issue"], input: mapped.stdout)
        #expect(back.status == 0, "\(back.stderr)")
        #expect(
            back.stdout
                == #"{"labels":[{"name":"bug"},{"name":"ui"}],"reactions":{"-1":2},"geometry":{"coordinates":[2.35,48.85]}}"#
                + "\n")
        #expect(
            back.stderr.hasPrefix(
                #"note: "media" reads "media_attachments.@count", a count, which cannot be written back: serialize leaves it out"#
            ))
        #expect(back.stderr.contains("--> f.mappings:29:"))
    }

    @Test("two entries that would write different values at one place are an issue naming both")
    func conflicts() throws {
        let object = #"{"labels":[{"name":"bug"}],"labelNames":["other"],"minus":null,"lon":1,"lat":2,"media":null}"#
        let back = try Self.run(["serialize", "--context", "$Issue"], input: object)
        #expect(back.status == 1)
        #expect(
            back.stderr.contains(
                #"$.labels[0].name: Issue.labelNames would write "other" at $.labels[0].name, where the entry at f.mappings:24 wrote "bug"; the first is kept (f.mappings:25)"#
            ), "\(back.stderr)")
    }

    @Test("keys that differ only in Unicode normalization stay two keys")
    func normalization() throws {
        let result = try Self.run(["map", "--context", "$Keys"], input: "{\"\u{E9}\": 1, \"e\u{301}\": 2}")
        #expect(result.status == 0)
        #expect(result.stdout == #"{"nfc":1,"nfd":2}"# + "\n")
    }

    @Test("a limit that tripped fails the call even when xpcall or a tail-called pcall returns")
    func limits() throws {
        let result = try Self.run(["map", "--context", "$Loop", "--scripts", "scripts"], input: #"{"v": 1}"#)
        #expect(result.status == 1)
        #expect(result.stdout == #"{"a":null,"b":null}"# + "\n")
        #expect(result.stderr.contains("$.v: F.xp failed: scripts/F.lua:3: ran out of its instruction budget"))
        #expect(result.stderr.contains("$.v: F.tail failed: scripts/F.lua:4: ran out of its instruction budget"))
    }

    @Test("a byte-order mark is skipped; an array without --many says which flag fits")
    func shapes() throws {
        let bom = try Self.run(["map", "--context", "$Price"], input: "\u{FEFF}{\"price\": 1}")
        #expect(bom.status == 0)
        #expect(bom.stdout.hasPrefix(#"{"price":1,"#))
        let array = try Self.run(["map", "--context", "$Price"], input: #"[{"price": 1}, {"price": 2}]"#)
        #expect(array.status == 1)
        // The note comes first, and alone: every issue comes from reading the array as one payload.
        #expect(
            array.stderr.hasPrefix(
                "note: the input is an array; to map each of its elements into $Price, add --many ("),
            "\(array)")
        #expect(array.stderr.split(separator: "\n").count == 1, "\(array)")
        let object = try Self.run(["map", "--context", "$Price", "--many"], input: #"{"price": 1}"#)
        #expect(object.stderr.contains("note: the input is not an array; without --many it is mapped as one payload"))
    }
}
