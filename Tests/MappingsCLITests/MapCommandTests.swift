import Foundation
import MappingsTestSupport
import Testing

/// `mappings map` end to end, compared with golden files under `Golden/`.
///
/// Re-record the golden files with `MAPPINGS_RECORD_GOLDEN=1 swift test --filter MapCommandTests`.
@Suite("mappings map, as a process, against golden files")
struct MapCommandTests {
    static let cases: [(name: String, arguments: [String])] = [
        ("tweet", ["map", "--context", "$TweetModel", "Examples/twitter/tweet.json"]),
        ("timeline", ["map", "--context", "$TimelineModel", "Examples/twitter/timeline.json"]),
        ("tweets-many", ["map", "--context", "$TweetModel", "--many", "Examples/twitter/timeline.json"]),
        ("broken-tweet", ["map", "--context", "$TweetModel", "Examples/twitter/broken-tweet.json"]),
        (
            "tweet-details-into",
            [
                "map", "--context", "$TweetModel_Details", "--into",
                "Examples/twitter/existing-tweet.json",
                "Examples/twitter/details.json",
            ]
        ),
        (
            "self-coordinates",
            [
                "map", "--mappings", "Examples/twitter/variants.mappings", "--context", "$TweetFromRoot",
                "Examples/twitter/tweet-root-coordinates.json",
            ]
        ),
        (
            "geo-coordinates",
            [
                "map", "--mappings", "Examples/twitter/variants.mappings", "--context", "$TweetWithGeo",
                "Examples/twitter/tweet-geo.json",
            ]
        ),
        (
            "direct-tweet",
            [
                "map", "--mappings", "Examples/twitter/variants.mappings", "--context", "$DirectTweet",
                "Examples/twitter/tweet.json",
            ]
        ),
        (
            "validated-tweets",
            [
                "map", "--mappings", "Examples/twitter/variants.mappings", "--context", "$ValidatedTweet", "--many",
                "Examples/twitter/timeline.json",
            ]
        ),
        (
            "direct-tweets-missing-image",
            [
                "map", "--mappings", "Examples/twitter/variants.mappings", "--context", "$DirectTweet", "--many",
                "Examples/twitter/timeline.json",
            ]
        ),
        (
            "timeline-newest-first-into",
            [
                "map", "--mappings", "Examples/twitter/variants.mappings", "--context", "$TimelineNewestFirst",
                "--into", "Examples/twitter/timeline-so-far.json", "Examples/twitter/timeline.json",
            ]
        ),
        (
            "timeline-cleared-into",
            [
                "map", "--context", "$TimelineModel", "--into", "Examples/twitter/timeline-so-far.json",
                "Examples/twitter/timeline.json",
            ]
        ),
        ("unknown-context", ["map", "--context", "$TweetModle", "Examples/twitter/tweet.json"]),
        ("invalid-json", ["map", "--context", "$TweetModel", "Tests/MappingsCLITests/Golden/invalid.json"]),
    ]

    static let golden = ToolRunner.packageRoot.appendingPathComponent("Tests/MappingsCLITests/Golden")

    @Test("stdout, stderr and exit status match the golden files", arguments: cases.map(\.name))
    func golden(name: String) throws {
        let arguments = try #require(Self.cases.first(where: { $0.name == name })?.arguments)
        let result = try ToolRunner.run(arguments)
        let actual = ["stdout": result.stdout, "stderr": result.stderr, "status": "\(result.status)\n"]
        for (stream, text) in actual {
            let file = Self.golden.appendingPathComponent("\(name).\(stream)")
            if ProcessInfo.processInfo.environment["MAPPINGS_RECORD_GOLDEN"] == "1" {
                try Data(text.utf8).write(to: file)
                continue
            }
            let expected = try String(contentsOf: file, encoding: .utf8)
            #expect(text == expected, "\(name).\(stream)")
        }
    }

    @Test("stdin is read when no INPUT is given, and --report writes the issues as JSON")
    func stdinAndReport() throws {
        let report = FileManager.default.temporaryDirectory.appendingPathComponent("report-\(UUID().uuidString).json")
        let result = try ToolRunner.run(
            ["map", "--context", "$UserModel", "--report", report.path], input: #"{"profile_image_url": 3}"#)
        #expect(result.status == 1)
        #expect(result.stdout == #"{"name":null,"imageUrl":null}"# + "\n")
        let written = try String(contentsOf: report, encoding: .utf8)
        #expect(
            written.hasPrefix(
                #"[{"kind":"missing required value","path":"$.name","property":"UserModel.name","rule":"contexts/twitter.mappings:9""#
            ))
        #expect(written.contains(#""kind":"conversion failed","path":"$.profile_image_url""#))
    }

    @Test(
        "each report field: kind, path, property, rule, provenance with the inheritance chain, value, message, severity"
    )
    func reportFields() throws {
        let report = FileManager.default.temporaryDirectory.appendingPathComponent("report-\(UUID().uuidString).json")
        let result = try ToolRunner.run(
            [
                "map", "--mappings", "Examples/twitter/variants.mappings", "--context", "$ValidatedTweet", "--report",
                report.path,
            ],
            input: #"{"user": {"name": [1]}, "text": "t", "id_str": "1"}"#)
        #expect(result.status == 1)
        #expect(
            result.stderr == "$.user.name: expected String, found array of 1 (Examples/twitter/variants.mappings:15)\n")
        let written = try String(contentsOf: report, encoding: .utf8)
        #expect(
            written
                == #"[{"kind":"conversion failed","path":"$.user.name","property":"FlatTweetModel.name","rule":"Examples/twitter/variants.mappings:15","provenance":"Examples/twitter/variants.mappings:15, inherited via \"$DirectTweet\" at Examples/twitter/variants.mappings:22","value":"array of 1","message":"expected String, found array of 1","severity":"error"}]"#
                + "\n")
        let imported = try ToolRunner.run(
            [
                "map", "--mappings", "Examples/twitter/variants.mappings", "--context", "$TimelineNewestFirst",
                "--report", report.path,
            ],
            input: #"[{"text": "x", "user": {"name": "n"}}]"#)
        #expect(imported.status == 1)
        #expect(
            try String(contentsOf: report, encoding: .utf8).contains(
                #""provenance":"contexts/twitter.mappings:36, imported at Examples/twitter/variants.mappings:3""#))
    }

    @Test("--many with a non-array input is an issue, exit 1")
    func manyNeedsArray() throws {
        let result = try ToolRunner.run(["map", "--context", "$UserModel", "--many"], input: "{}")
        #expect(result.status == 1)
        #expect(result.stdout == "[]\n")
        #expect(result.stderr.hasPrefix("$: expected an array of payloads, found object of 0 keys"))
    }

    @Test("explain says where each property came from: path, transformer and script line, default, skip, failure")
    func explain() throws {
        let result = try ToolRunner.run([
            "explain", "--context", "$TweetModel_Details", "Examples/twitter/broken-tweet.json",
        ])
        #expect(result.status == 1)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(
            lines.first
                == #"TweetModel.identifier FAILED at $.id_str: missing required value  [contexts/twitter.mappings:36, inherited via "$TweetModel" at contexts/twitter.mappings:91]"#
        )
        #expect(
            lines.contains("TweetModel.message skipped: $.full_text missing, optional  [contexts/twitter.mappings:92]"))
        #expect(
            lines.contains {
                $0.hasPrefix(
                    "TweetModel.coordinates FAILED at $.coordinates via MyTransformers.coordinate2DFromDictionary (scripts/MyTransformers.lua:13): "
                )
            })
        #expect(lines.last?.hasPrefix(#"result: {"identifier":null,"#) == true)
        let good = try ToolRunner.run(["explain", "--context", "$UserModel"], input: #"{"name": "Ann"}"#)
        #expect(good.status == 0)
        #expect(
            good.stdout == """
                UserModel.name <- $.name = "Ann"  [contexts/twitter.mappings:9]
                UserModel.imageUrl = default ($.profile_image_url missing)  [contexts/twitter.mappings:10]
                result: {"name":"Ann","imageUrl":"https://si0.twimg.com/profile_images/1251071930/Untitled.png"}

                """)
    }
}
