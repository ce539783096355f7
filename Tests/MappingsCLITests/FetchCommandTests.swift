import Foundation
import MappingsTestSupport
import Testing

/// `mappings fetch` against `tools/test-server.py` on 127.0.0.1.
@Suite("mappings fetch", .serialized)
struct FetchCommandTests {
    @Test("a tweet, an array under --items with --many, parameters and a body")
    func success() throws {
        let server = try TestServer.twitterPayloads()
        let fetched = try ToolRunner.run(["fetch", server.url("files/tweet.json"), "--context", "$TweetModel"])
        let mapped = try ToolRunner.run(["map", "--context", "$TweetModel", "Examples/twitter/tweet.json"])
        #expect(fetched.status == 0)
        #expect(fetched.stderr.isEmpty)
        #expect(fetched.stdout == mapped.stdout)

        let many = try ToolRunner.run([
            "fetch", server.url("files/search.json"), "--context", "$TweetModel", "--items", "data.statuses", "--many",
        ])
        let local = try ToolRunner.run(["map", "--context", "$TweetModel", "--many", "Examples/twitter/timeline.json"])
        #expect(many.status == 0)
        #expect(many.stdout == local.stdout)

        let directory = try ToolRunner.directory(with: [
            "echo.mappings": #"{ "$Echo": { "method": "method", "q": "query.q.@first", "body": "body" } }"#
        ])
        let echoed = try ToolRunner.run([
            "fetch", server.url("echo"), "--context", "$Echo", "--mappings",
            directory.appendingPathComponent("echo.mappings").path,
            "--param", "q=a b&c", "--data", #"{"x": 1}"#,
        ])
        #expect(echoed.status == 0)
        #expect(echoed.stdout == #"{"method":"POST","q":"a b&c","body":"{\"x\": 1}"}"# + "\n")
    }

    @Test("HTTP errors, a wrong content type, invalid JSON, no server: exit 2 with one line saying which")
    func failures() throws {
        let server = try TestServer.twitterPayloads()
        let cases: [(String, String)] = [
            (server.url("files/missing.json"), "answered HTTP 404 Not Found: {\"error\": \"not found\""),
            (server.url("files/tweet.json?status=500"), "answered HTTP 500 Internal Server Error: {"),
            (server.url("files/tweet.json?type=text/plain"), "answered \"text/plain\", not JSON"),
            (server.url("files/invalid.json"), "is not valid JSON: 1:18:"),
            ("http://127.0.0.1:1/tweet.json", "error: cannot fetch http://127.0.0.1:1/tweet.json: "),
        ]
        for (url, message) in cases {
            let result = try ToolRunner.run(["fetch", url, "--context", "$TweetModel"])
            #expect(result.status == 2, "\(url)")
            #expect(result.stdout.isEmpty)
            #expect(result.stderr.contains(message), "\(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1)
        }
        let nothing = try ToolRunner.run([
            "fetch", server.url("files/search.json"), "--context", "$TweetModel", "--items", "data.tweets",
        ])
        #expect(nothing.status == 2)
        #expect(nothing.stderr.contains(#"the response has nothing at "data.tweets""#))
        let usage = try ToolRunner.run(["fetch", "ftp://example.com/x", "--context", "$TweetModel"])
        #expect(usage.status == 2)
        #expect(usage.stderr.contains("is not an http or https URL"))
    }

    @Test("mapping issues: the object on stdout, the issues on stderr and in --report, exit 1")
    func issues() throws {
        let server = try TestServer.twitterPayloads()
        let report = FileManager.default.temporaryDirectory.appendingPathComponent(
            "fetch-report-\(UUID().uuidString).json")
        let fetched = try ToolRunner.run([
            "fetch", server.url("files/broken-tweet.json"), "--context", "$TweetModel", "--report", report.path,
        ])
        let mapped = try ToolRunner.run(["map", "--context", "$TweetModel", "Examples/twitter/broken-tweet.json"])
        #expect(fetched.status == 1)
        #expect(fetched.stdout == mapped.stdout)
        #expect(fetched.stderr == mapped.stderr)
        let written = try String(contentsOf: report, encoding: .utf8)
        #expect(written.hasPrefix(#"[{"kind":"#))
    }

    @Test("serialize writes an object back as the payload its context reads")
    func serialize() throws {
        let mapped = try ToolRunner.run(["map", "--context", "$TweetModel", "Examples/twitter/tweet.json"])
        let back = try ToolRunner.run(["serialize", "--context", "$TweetModel"], input: mapped.stdout)
        #expect(back.status == 0)
        #expect(back.stdout.hasPrefix(#"{"id_str":"240859602684612608","text":"Introducing"#))
        #expect(back.stdout.contains(#""created_at":"Wed Aug 29 17:12:58 +0000 2012""#))
        let again = try ToolRunner.run(["map", "--context", "$TweetModel"], input: back.stdout)
        #expect(again.stdout == mapped.stdout)

        let many = try ToolRunner.run(["map", "--context", "$TweetModel", "--many", "Examples/twitter/timeline.json"])
        let backs = try ToolRunner.run(["serialize", "--context", "$TweetModel", "--many"], input: many.stdout)
        #expect(backs.status == 0)
        let manyAgain = try ToolRunner.run(["map", "--context", "$TweetModel", "--many"], input: backs.stdout)
        #expect(manyAgain.stdout == many.stdout)
        let wrong = try ToolRunner.run(["serialize", "--context", "$TweetModel", "--many"], input: "{}")
        #expect(wrong.status == 2)
    }
}
