import Foundation
import MappingsTestSupport
import Testing

/// Which `@tests` must pass before `mappings stream` maps a record, with and without `--watch`:
/// those of the streamed context and the contexts it uses, or every one with `--require-tests`.
@Suite("stream runs the tests of what it maps with, as a process")
struct StreamTestsScopeTests {
    /// `$R` maps `inner` with `$Inner`; `$Other` is unrelated. Each gets a test passing or not.
    static func files(r: Bool = true, inner: Bool = true, other: Bool = true) -> [String: String] {
        func test(_ passing: Bool, _ key: String) -> String {
            #""@tests": [ { "input": { "\#(key)": "x" }, "outputIncludes": { "\#(key)": "\#(passing ? "x" : "y")" } } ]"#
        }
        return [
            "contexts/a.mappings": """
            {
                "$R": { "r": "r", "inner": { "@keyPath": "i", "@optional": true, "@object": { "@mappings": "$Inner" } },
                        \(test(r, "r")) },
                "$Inner": { "n": "n", \(test(inner, "n")) },
                "$Other": { "o": "o", \(test(other, "o")) }
            }
            """,
            "in.ndjson": #"{"r": "a", "i": {"n": "b"}}"# + "\n",
        ]
    }

    static let written = #"{"r":"a","inner":{"n":"b"}}"# + "\n"

    @Test(
        "an unrelated context's failing test blocks neither stream nor stream --watch",
        arguments: [[String](), ["--watch"]])
    func unrelated(extra: [String]) throws {
        let directory = try ToolRunner.directory(with: Self.files(other: false))
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try ToolRunner.run(["stream", "--context", "$R", "in.ndjson"] + extra, in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == Self.written)
    }

    @Test(
        "a failing test of the streamed context, or of one it uses, refuses to start, with or without --watch",
        arguments: [(false, true), (true, false)], [[String](), ["--watch"]])
    func used(failing: (r: Bool, inner: Bool), extra: [String]) throws {
        let directory = try ToolRunner.directory(with: Self.files(r: failing.r, inner: failing.inner))
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try ToolRunner.run(["stream", "--context", "$R", "in.ndjson"] + extra, in: directory)
        #expect(result.status == 2)
        #expect(result.stdout == "")
        let context = failing.r ? "$Inner test 1" : "$R test 1"
        #expect(result.stderr.hasPrefix("error: the contexts' tests fail:\n\(context) (contexts/a.mappings:"))
    }

    @Test(
        "--require-tests: every context's tests must pass, with or without --watch",
        arguments: [[String](), ["--watch"]])
    func required(extra: [String]) throws {
        let directory = try ToolRunner.directory(with: Self.files(other: false))
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try ToolRunner.run(
            ["stream", "--context", "$R", "--require-tests", "in.ndjson"] + extra, in: directory)
        #expect(result.status == 2)
        #expect(result.stderr.contains("$Other test 1 (contexts/a.mappings:"), "\(result.stderr)")
        let passing = try ToolRunner.directory(with: Self.files())
        defer { try? FileManager.default.removeItem(at: passing) }
        let clean = try ToolRunner.run(
            ["stream", "--context", "$R", "--require-tests", "in.ndjson"] + extra, in: passing)
        #expect(clean.status == 0, "\(clean.stderr)")
        #expect(clean.stdout == Self.written)
    }

    @Test("--watch reloads follow the same rule: an unrelated failing test does not refuse a version")
    func reload() throws {
        let directory = try ToolRunner.directory(with: Self.files())
        defer { try? FileManager.default.removeItem(at: directory) }
        let (process, stdin, stdout, stderr) = try ToolRunner.start(
            ["stream", "--context", "$R", "--watch"], in: directory)
        let exchange = LineExchange(stdin: stdin, stdout: stdout)
        #expect(exchange.send(#"{"r": "a", "e": "z"}"#) == #"{"r":"a"}"#)
        // $Other's test now fails and $R reads one more key: version 2 all the same.
        var edited = Self.files(other: false)["contexts/a.mappings"] ?? ""
        edited = edited.replacingOccurrences(
            of: #""r": "r","#, with: #""r": "r", "e": { "@keyPath": "e", "@optional": true },"#)
        try Data(edited.utf8).write(to: directory.appendingPathComponent("contexts/a.mappings"))
        Thread.sleep(forTimeInterval: 0.4)
        var swapped = ""
        for _ in 0..<50 where swapped != #"{"r":"a","e":"z"}"# {
            swapped = exchange.send(#"{"r": "a", "e": "z"}"#)
            Thread.sleep(forTimeInterval: 0.1)
        }
        #expect(swapped == #"{"r":"a","e":"z"}"#)
        try stdin.fileHandleForWriting.close()
        process.waitUntilExit()
        let log = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(log.contains("mappings stream: now mapping with version 2"), "\(log)")
        #expect(!log.contains("refused"))
    }
}
