import Foundation
import MappingsTestSupport
import Testing

/// The Swift host examples of Examples/SwiftHost, built from their own package and run as its
/// README says (from the repository's root).
@Suite("Swift host examples", .serialized)
struct ExamplesTests {
    /// Runs the example `name` with `arguments`.
    static func run(_ name: String, _ arguments: [String] = []) throws -> ToolRunner.Result {
        try ToolRunner.run(arguments, executable: try PackageBuild.swiftHostExamples().appendingPathComponent(name))
    }

    /// The bytes of the pipeline's tweets, which the jobs of the examples end at.
    static func pipelineSize() throws -> Int {
        try FileManager.default.attributesOfItem(
            atPath: ToolRunner.packageRoot.appendingPathComponent("Examples/pipeline/tweets.ndjson").path)[.size]
            as! Int
    }

    @Test("typed models: structs and classes from the shipped contexts")
    func typedModels() throws {
        let run = try Self.run("example-typed-models")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("tweet 240859602684612608 by Twitter API: Introducing the Twitter Certified"))
        #expect(run.stdout.contains(#"created 2012-08-29T17:12:58Z, 121 retweets, tags ["twitter", "api"]"#))
        #expect(run.stdout.contains("at 35.46500176, -97.51087576"))
        #expect(run.stdout.contains("timeline of 2 tweets"))
        #expect(run.stdout.contains("broken tweet: 5 issues"))
        #expect(run.stdout.contains("details: The full text. (same instance: true, 0 issues)"))
        #expect(run.stdout.contains("headline: Twitter API, 121 retweets (0 issues)"))
    }

    @Test("a programmatic context with a Swift closure next to a Lua transformer")
    func programmaticContext() throws {
        let run = try Self.run("example-programmatic-context")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            run.stdout.contains(
                "Twitter API: Introducing the Twitter Certified Products Program: https://t.co/MjJ8xAnT at 35.46500176, -97.51087576"
            ))
        #expect(run.stdout.contains("failed: the text is empty (example_programmatic_context/main.swift:"))
        #expect(run.stdout.contains(#"error: UserModel has no property "nickname""#))
        #expect(run.stdout.contains(#"user.map("nickname", from: "screen_name")"#))
    }

    @Test("reverse mapping: a tweet back to JSON and mapped again")
    func reverseMapping() throws {
        let run = try Self.run("example-reverse-mapping")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains(#""created_at":"Tue Nov 14 22:13:20 +0000 2023""#))
        #expect(run.stdout.contains(#""lat":48.8566"#))
        #expect(run.stdout.contains("mapped again: the same tweet"))
    }

    @Test("into a database: a job that goes on where it stopped")
    func database() throws {
        let folder = try Fixtures.directory(with: ["README": "the example's database\n"])
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = folder.appendingPathComponent("tweets.db").path
        let first = try Self.run("example-database", [database])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("the job starts at Examples/pipeline/tweets.ndjson:1 (byte 0)"))
        #expect(first.stdout.contains("line 3: not JSON"))
        #expect(first.stdout.contains("line 4: missing required value at $.id_str"))
        #expect(first.stdout.contains("line 5: transformer failed at $.coordinates"))
        let size = try Self.pipelineSize()
        #expect(
            first.stdout.contains(
                "read 6, written 3, rejected 3; the job stands at Examples/pipeline/tweets.ndjson:7 (byte \(size))"))
        let rows = try ToolRunner.run(
            [database, "SELECT identifier, message FROM tweet_model; SELECT line FROM rejects"],
            executable: URL(fileURLWithPath: "/usr/bin/sqlite3"))
        #expect(rows.stdout == "1|First\n2|Second\n6|Last\n3\n4\n5\n", "\(rows.stderr)")
        let again = try Self.run("example-database", [database])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.contains("read 0, written 0, rejected 0"))
    }

    @Test("a host's own source and sink: a file of lines into an NDJSON file, committed with its position")
    func ownSink() throws {
        let folder = try Fixtures.directory(with: ["README": "the example's output\n"])
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("out.ndjson").path
        let first = try Self.run("example-own-sink", [output])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("the job starts at Examples/pipeline/tweets.ndjson:1 (byte 0)"))
        #expect(first.stdout.contains("line 3: not JSON"))
        #expect(first.stdout.contains("line 4: missing required value at $.id_str"))
        let size = try Self.pipelineSize()
        #expect(
            first.stdout.contains(
                "read 6, written 3, rejected 3; the job stands at Examples/pipeline/tweets.ndjson:7 (byte \(size))"))
        let written = try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n")
        #expect(written.count == 3)
        #expect(written.first?.contains(#""identifier":"1""#) == true, "\(written)")
        #expect(try String(contentsOfFile: output + ".position", encoding: .utf8).hasPrefix("7 \(size) "))
        // Run again: it starts where the first stopped, reads nothing, writes nothing twice.
        let again = try Self.run("example-own-sink", [output])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.contains("the job starts at Examples/pipeline/tweets.ndjson:7 (byte \(size))"))
        #expect(again.stdout.contains("read 0, written 0, rejected 0"))
        #expect(try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n").count == 3)
    }

    @Test("fetching from a local server")
    func fetch() throws {
        let server = try TestServer()
        let run = try Self.run("example-fetch", [server.url("files/")])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("fetched 240859602684612608 by Twitter API, 0 issues"))
        #expect(run.stdout.contains(#"fetched 2 tweets: ["240859602684612608", "240558470661799936"]"#))
        #expect(run.stdout.contains("missing.json: HTTP 404"))
        let usage = try Self.run("example-fetch")
        #expect(usage.status == 2)
    }
}
