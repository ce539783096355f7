import Foundation
import Mappings
import MappingsTestSupport
import Testing

/// What operators see of a running stream: `--progress`, `--stats` and `--stats-interval`.
@Suite("stream progress and stats, as a process")
struct StreamStatsTests {
    static let files: [String: String] = [
        "contexts/r.mappings": """
        { "$R": { "name": "name", "score": { "@keyPath": "score", "@transformClass": "Score", "@transformSelector": "f" } } }
        """,
        "scripts/Score.lua": """
        return { f = function(n) if n < 0 then return nil, "negative" end return n * 2 end }
        """,
    ]

    static func records(_ count: Int) -> String {
        (0..<count).map { index in
            switch index % 10 {
            case 3: "not json"
            case 5: #"{"score": 1}"#
            case 7: #"{"name": "n", "score": -1}"#
            default: #"{"name": "n\#(index)", "score": \#(index)}"#
            }
        }.joined(separator: "\n") + "\n"
    }

    static func object(_ text: String) throws -> JSONObject {
        guard case .object(let object) = try JSONParser.parse(text) else { throw CocoaError(.fileReadCorruptFile) }
        return object
    }

    @Test("--stats: counts, issues by kind, warnings, the version serving, latency percentiles")
    func stats() throws {
        let directory = try ToolRunner.directory(with: Self.files)
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try ToolRunner.run(
            ["stream", "--context", "$R", "--on-issue", "emit", "--stats", "stats.json"], in: directory,
            input: Self.records(100))
        #expect(result.status == 1)
        #expect(!result.stderr.contains("records/s"))
        let stats = try Self.object(String(contentsOf: directory.appendingPathComponent("stats.json"), encoding: .utf8))
        #expect(stats["read"] == 100)
        #expect(stats["written"] == 90)
        #expect(stats["issues"] == ["invalid JSON": 10, "missing required value": 10, "transformer failed": 10])
        // Each issue of a record written anyway (--on-issue emit) is a warning on stderr.
        #expect(stats["warnings"] == 20)
        // `$R` builds a JSON object (no @class): the general engine maps every record.
        #expect(stats["contexts"] == ["$R": ["version": 1, "plan": "general"]])
        #expect(stats["fastPlanRecords"] == 0)
        #expect(stats["reloads"] == [])
        #expect(stats["logLinesDropped"] == 0)
        guard case .object(let latency)? = stats["latency"], case .integer(let p50)? = latency["p50Microseconds"],
            case .integer(let p99)? = latency["p99Microseconds"]
        else {
            Issue.record("no latency: \(stats)")
            return
        }
        #expect(latency["records"] == 100)
        #expect(p50 >= 1 && p50 <= p99 && p99 < 5_000_000)
    }

    @Test("--progress: the counts and the rate on stderr while it runs; stdout is only the records")
    func progress() throws {
        let directory = try ToolRunner.directory(with: Self.files)
        defer { try? FileManager.default.removeItem(at: directory) }
        let (process, stdin, stdout, stderr) = try ToolRunner.start(
            ["stream", "--context", "$R", "--progress", "--rejects", "rejects.ndjson"], in: directory)
        let exchange = LineExchange(stdin: stdin, stdout: stdout)
        #expect(exchange.send(#"{"name": "a", "score": 1}"#) == #"{"name":"a","score":2}"#)
        Thread.sleep(forTimeInterval: 0.6)
        #expect(exchange.send(#"{"name": "b", "score": 2}"#) == #"{"name":"b","score":4}"#)
        try stdin.fileHandleForWriting.close()
        let rest = String(decoding: stdout.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(rest == "")
        let log = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let lines = log.split(separator: "\n")
        #expect(
            lines.contains {
                $0.hasPrefix("mappings stream: read 1, written 1, rejected 0, ") && $0.hasSuffix(" records/s")
            })
        // At most four a second: the run took well under three seconds.
        #expect(lines.filter { $0.hasSuffix(" records/s") }.count <= 12)
        #expect(lines.last == "mappings stream: read 2, written 2, rejected 0")
    }

    @Test("--stats-interval: the stats file is rewritten while the stream waits, whole every time")
    func interval() throws {
        let directory = try ToolRunner.directory(with: Self.files)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("stats.json")
        let (process, stdin, stdout, _) = try ToolRunner.start(
            ["stream", "--context", "$R", "--stats", "stats.json", "--stats-interval", "1"], in: directory)
        let exchange = LineExchange(stdin: stdin, stdout: stdout)
        #expect(exchange.send(#"{"name": "a", "score": 1}"#) == #"{"name":"a","score":2}"#)
        var seen: JSONObject?
        for _ in 0..<40 where seen?["read"] != 1 {
            Thread.sleep(forTimeInterval: 0.1)
            if let text = try? String(contentsOf: file, encoding: .utf8) { seen = try Self.object(text) }
        }
        #expect(seen?["read"] == 1)
        #expect(seen?["running"] == true)
        #expect(seen?["stopped"] == nil)
        #expect(exchange.send(#"{"name": "b", "score": 2}"#) == #"{"name":"b","score":4}"#)
        for _ in 0..<40 where seen?["read"] != 2 {
            Thread.sleep(forTimeInterval: 0.1)
            if let text = try? String(contentsOf: file, encoding: .utf8) { seen = try Self.object(text) }
        }
        #expect(seen?["read"] == 2)
        try stdin.fileHandleForWriting.close()
        process.waitUntilExit()
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter {
            $0.contains(".tmp")
        }
        #expect(leftovers == [])
        let final = try Self.object(String(contentsOf: file, encoding: .utf8))
        #expect(final["running"] == false)
        #expect(final["stopped"] == "end of input")
    }

    @Test("--stats under --watch: the version serving and every reload with its time and outcome")
    func reloads() throws {
        let directory = try ToolRunner.directory(with: Self.files)
        defer { try? FileManager.default.removeItem(at: directory) }
        let (process, stdin, stdout, _) = try ToolRunner.start(
            ["stream", "--context", "$R", "--watch", "--stats", "stats.json"], in: directory)
        let exchange = LineExchange(stdin: stdin, stdout: stdout)
        #expect(exchange.send(#"{"name": "a", "score": 1}"#) == #"{"name":"a","score":2}"#)
        let context = directory.appendingPathComponent("contexts/r.mappings")
        try Data("{ \"$R\": ".utf8).write(to: context)
        Thread.sleep(forTimeInterval: 0.4)
        #expect(exchange.send(#"{"name": "b", "score": 1}"#) == #"{"name":"b","score":2}"#)
        try Data(#"{ "$R": { "name": "name" } }"#.utf8).write(to: context)
        var answer = ""
        for _ in 0..<50 where answer != #"{"name":"c"}"# {
            Thread.sleep(forTimeInterval: 0.1)
            answer = exchange.send(#"{"name": "c", "score": 1}"#)
        }
        #expect(answer == #"{"name":"c"}"#)
        try stdin.fileHandleForWriting.close()
        process.waitUntilExit()
        let stats = try Self.object(String(contentsOf: directory.appendingPathComponent("stats.json"), encoding: .utf8))
        #expect(stats["contexts"] == ["$R": ["version": 2, "plan": "general"]])
        #expect(stats["warnings"] == 1)
        guard case .array(let reloads)? = stats["reloads"], reloads.count == 2,
            case .object(let refused) = reloads[0], case .object(let swapped) = reloads[1]
        else {
            Issue.record("reloads: \(String(describing: stats["reloads"]))")
            return
        }
        // A refusal takes no version number: the swap after it is version 2.
        #expect(refused["outcome"] == "refused")
        #expect(refused["version"] == nil)
        #expect(refused["reason"].map { "\($0)".contains("unexpected end of file") } == true)
        #expect(swapped["outcome"] == "swapped")
        #expect(swapped["version"] == 2)
        guard case .string(let time)? = swapped["time"] else {
            Issue.record("no time")
            return
        }
        #expect(ISO8601DateFormatter().date(from: time) != nil)
    }
}
