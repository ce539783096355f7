import Foundation
import MappingsTestSupport
import Testing

@Suite("@identity, the error policies and the null options, through the tool")
struct IdentityCommandTests {
    static let file = "Examples/timeline/timeline.mappings"
    static let example = ["--mappings", file, "--context", "$Timeline"]

    @Test("map --into syncs by identity: the changes in --report as info, the skipped element a warning, exit 0")
    func sync() throws {
        let directory = try ToolRunner.directory(with: ["README": "reports go here\n"])
        let root = ToolRunner.packageRoot.path
        let first = try ToolRunner.run(["map"] + Self.example + ["\(root)/Examples/timeline/page1.json"])
        #expect(first.status == 0 && first.stderr == "")
        try first.stdout.write(to: directory.appendingPathComponent("timeline.json"), atomically: true, encoding: .utf8)
        let report = directory.appendingPathComponent("report.json").path
        let second = try ToolRunner.run(
            ["map"] + Self.example + [
                "--into", directory.appendingPathComponent("timeline.json").path, "--report", report,
                "\(root)/Examples/timeline/page2.json",
            ])
        #expect(second.status == 0)
        #expect(
            second.stdout.contains(#"{"id":2,"text":"Testing in Swift, now with traits","likes":41,"pinned":null}"#))
        #expect(!second.stdout.contains(#""id":3"#))
        #expect(
            second.stderr.hasSuffix(
                "$.tweets: info: by id: 2 updated (1, 2), 1 added (4), 1 removed (3) (\(Self.file):13)\n"))
        let written = try String(contentsOfFile: report, encoding: .utf8)
        #expect(
            written.contains(
                #"{"kind":"collection changes","path":"$.tweets","property":"Timeline.tweets","rule":"Examples/timeline/timeline.mappings:13","#
            ))
        #expect(
            written.contains(#""message":"by id: 2 updated (1, 2), 1 added (4), 1 removed (3)","severity":"info"}"#))
        #expect(written.contains(#""kind":"missing required value","path":"$.tweets[3].id","#))
    }

    @Test("a payload without an existing object reports only duplicates, merged in order")
    func duplicates() throws {
        let result = try ToolRunner.run(
            ["map"] + Self.example,
            input: #"{"account": "a", "tweets": [{"id": 1, "text": "x"}, {"id": 1, "text": "y", "favorite_count": 9}]}"#
        )
        #expect(result.status == 0)
        #expect(result.stdout == #"{"account":"a","tweets":[{"id":1,"text":"y","likes":9,"pinned":null}]}"# + "\n")
        #expect(
            result.stderr
                == "$.tweets[1]: warning: the elements [0] and [1] have the same id 1: merged in order, [1] wins (\(Self.file):13)\n"
        )
    }

    @Test("--omit-nulls leaves unset properties out in map and stream; serialize writes them only with --nulls")
    func nulls() throws {
        let payload = #"{"account": "a", "tweets": [{"id": 1, "text": "x"}]}"#
        let map = try ToolRunner.run(["map"] + Self.example + ["--omit-nulls"], input: payload)
        #expect(map.stdout == #"{"account":"a","tweets":[{"id":1,"text":"x","likes":0}]}"# + "\n")
        let stream = try ToolRunner.run(["stream"] + Self.example + ["--omit-nulls"], input: payload + "\n" + payload)
        #expect(
            stream.stdout
                == String(repeating: #"{"account":"a","tweets":[{"id":1,"text":"x","likes":0}]}"# + "\n", count: 2))
        let object = #"{"account": "a", "tweets": [{"id": 1, "text": "x", "likes": 0, "pinned": null}]}"#
        let plain = try ToolRunner.run(["serialize"] + Self.example, input: object)
        #expect(plain.stdout == #"{"account":"a","tweets":[{"id":1,"full_text":"x","favorite_count":0}]}"# + "\n")
        let withNulls = try ToolRunner.run(["serialize"] + Self.example + ["--nulls"], input: object)
        #expect(
            withNulls.stdout
                == #"{"account":"a","tweets":[{"id":1,"full_text":"x","favorite_count":0,"pinned":null}]}"# + "\n")
        let both = try ToolRunner.run(["serialize"] + Self.example + ["--nulls", "--omit-nulls"], input: object)
        #expect(both.status == 64 || both.status == 2)
        #expect(both.stderr.contains("--nulls and --omit-nulls cannot be used together"))
    }

    @Test("--omit-nulls leaves out unset properties only: a null member of a dictionary or array is a value and stays")
    func nullMembers() throws {
        let directory = try ToolRunner.directory(with: [
            "d.mappings": """
            { "@models": { "A": { "d": "[String: Int?]", "l": "[Int?]", "n": "Int?" } },
              "$A": { "@class": "A", "d": "d", "l": "l", "n": { "@keyPath": "n", "@optional": true } } }
            """
        ])
        let arguments = [
            "--mappings", directory.appendingPathComponent("d.mappings").path, "--context", "$A", "--omit-nulls",
        ]
        let map = try ToolRunner.run(["map"] + arguments, input: #"{"d": {"a": 1, "b": null}, "l": [null, 2]}"#)
        #expect(map.status == 0)
        #expect(map.stdout == #"{"d":{"a":1,"b":null},"l":[null,2]}"# + "\n")
        let serialize = try ToolRunner.run(
            ["serialize"] + arguments, input: #"{"d": {"a": 1, "b": null}, "l": [null, 2], "n": null}"#)
        #expect(serialize.status == 0)
        #expect(serialize.stdout == #"{"d":{"a":1,"b":null},"l":[null,2]}"# + "\n")
    }

    @Test("a set skips a failing element under @onElementError: skip; a repeat is a duplicate element at its index")
    func setElements() throws {
        let directory = try ToolRunner.directory(with: [
            "s.mappings": """
            { "@models": { "A": { "s": "{Int}", "t": "{String}" } },
              "$A": { "@class": "A", "s": { "@keyPath": "s", "@onElementError": "skip" }, "t": "t" } }
            """
        ])
        let report = directory.appendingPathComponent("report.json").path
        let result = try ToolRunner.run(
            [
                "map", "--mappings", directory.appendingPathComponent("s.mappings").path, "--context", "$A", "--report",
                report,
            ],
            input: #"{"s": [3, 1, "x", 3], "t": ["b", "a", "b"]}"#)
        #expect(result.status == 0)
        #expect(result.stdout == #"{"s":[1,3],"t":["a","b"]}"# + "\n")
        let written = try String(contentsOfFile: report, encoding: .utf8)
        #expect(written.contains(#"{"kind":"conversion failed","path":"$.s[2]","property":"A.s[2]","#))
        #expect(written.contains(#"{"kind":"duplicate element","path":"$.s[3]","property":"A.s[3]","#))
        #expect(
            written.contains(
                #""value":"3","message":"3 is already in the set (at [0]): kept once","severity":"warning"}"#))
        #expect(written.contains(#"{"kind":"duplicate element","path":"$.t[2]","property":"A.t[2]","#))
        #expect(written.contains(#""value":"\"b\"","#))
    }

    @Test(
        "an identity property the element context does not map is stored from the payload, so the next sync matches it")
    func unmappedIdentity() throws {
        let directory = try ToolRunner.directory(with: [
            "i.mappings": """
            { "@models": { "I": { "owner": "String", "number": "Int", "title": "String?" }, "A": { "l": "[I]" } },
              "$I": { "@class": "I", "owner": "owner", "title": { "@keyPath": "title", "@optional": true } },
              "$A": { "@class": "A", "l": { "@keyPath": "l", "@object": { "@mappings": "$I" },
                "@identity": ["owner", "number"], "@clearContent": true } } }
            """
        ])
        let arguments = ["map", "--mappings", directory.appendingPathComponent("i.mappings").path, "--context", "$A"]
        let first = try ToolRunner.run(arguments, input: #"{"l": [{"owner": "c", "number": 1}]}"#)
        #expect(first.status == 0 && first.stderr == "")
        #expect(first.stdout == #"{"l":[{"owner":"c","number":1,"title":null}]}"# + "\n")
        let existing = directory.appendingPathComponent("existing.json")
        try first.stdout.write(to: existing, atomically: true, encoding: .utf8)
        let second = try ToolRunner.run(
            arguments + ["--into", existing.path],
            input: #"{"l": [{"owner": "c", "number": 1, "title": "t"}, {"owner": "d", "number": "x"}]}"#)
        #expect(second.status == 1)
        #expect(second.stdout.hasPrefix(#"{"l":[{"owner":"c","number":1,"title":"t"},"#))
        #expect(second.stderr.contains(#"$.l[1].number: expected Int, found string "x""#))
        #expect(second.stderr.contains(#"1 updated (("c",1))"#))
    }

    @Test("explain lists every issue map reports: a repeated set value, a failure inside a dictionary of models")
    func explainsEveryIssue() throws {
        let result = try ToolRunner.run(
            ["explain", "--mappings", "Examples/language/collections.mappings", "--context", "$Board"],
            input: #"{"labels": ["urgent", "bug", "urgent"], "sizes": [], "columns": [], "lanes": {"x": 1}}"#)
        #expect(result.status == 1)
        #expect(
            result.stdout.contains(
                #"Board.labels[2] warning at $.labels[2]: "urgent" is already in the set (at [0]): kept once"#))
        #expect(result.stdout.contains(#"Board.lanes["x"] FAILED at $.lanes.x: expected an array for [Card]"#))
    }

    @Test("check refuses \"@onError\": \"default\" on an entry built by @object, with a caret and a help line")
    func onErrorOnObject() throws {
        let directory = try ToolRunner.directory(with: [
            "c.mappings": """
            { "@models": { "C": { "radius": "Int" }, "A": { "o": "C" } },
              "$C": { "@class": "C", "radius": "r" },
              "$A": { "@class": "A", "o": { "@keyPath": "o", "@defaultValue": { "radius": 0 }, "@onError": "default",
                "@object": { "@mappings": "$C" } } } }
            """
        ])
        let result = try ToolRunner.run(["check", "--mappings", directory.appendingPathComponent("c.mappings").path])
        #expect(result.status == 2)
        #expect(result.stderr.contains(#"but "o" is built by "@object", whose failures are reported inside it"#))
        #expect(result.stderr.contains("c.mappings:3:"))
        #expect(result.stderr.contains("= help: put \"@onError\" on the entries of the nested context"))
    }

    @Test("check reports an @identity naming no property of the element model, with a did you mean")
    func check() throws {
        let directory = try ToolRunner.directory(with: [
            "feed.mappings": """
            { "@models": { "Feed": { "items": "[Item]" }, "Item": { "sku": "String" } },
              "$Feed": { "@class": "Feed",
                "items": { "@keyPath": "items", "@object": { "@class": "Item" }, "@identity": "skus" } } }
            """
        ])
        let result = try ToolRunner.run(["check", "--mappings", "feed.mappings"], in: directory)
        #expect(result.status == 2)
        #expect(
            result.stderr == """
                error: "@identity" names "skus", but Item has no such property
                 --> feed.mappings:3:83
                  |
                3 |     "items": { "@keyPath": "items", "@object": { "@class": "Item" }, "@identity": "skus" } } }
                  |                                                                                   ^^^^^^
                  = help: did you mean "sku"?

                mappings: 1 error found

                """)
    }
}
