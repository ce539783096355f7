import Foundation
import MappingsTestSupport
import Testing

/// A stream stopped early (SIGTERM, `--on-issue fail`) says where to start again, and a run
/// resumed there writes exactly the records the first did not: the two together are one
/// uninterrupted run, byte for byte, output and rejects alike.
@Suite("stopping and resuming a stream")
struct StreamResumeTests {
    /// A little Lua work per record, so that a run lasts long enough to be stopped in its middle.
    static let context = """
        { "@models": { "R": { "id": "Int", "name": "String?" } },
          "$R": { "@class": "R", "id": "id",
                  "name": { "@keyPath": "name", "@optional": true, "@transformClass": "Work", "@transformSelector": "f" } } }
        """
    static let script = "return { f = function(v) local s = 0 for i = 1, 3000 do s = s + i end return v end }"

    /// Records of many lengths (so that lines straddle the reader's 64 KiB reads), blank
    /// lines, and a record with an issue every few hundred.
    static func input(records: Int, seed: UInt64) -> String {
        var random = SeededGenerator(seed: seed)
        var lines: [String] = []
        for index in 0..<records {
            if index % 401 == 7 {
                lines.append(#"{"id": "x\#(index)"}"#)
            } else if index % 613 == 5 {
                lines.append("")
            } else {
                let name = String(repeating: "n", count: Int.random(in: 1...1_500, using: &random))
                lines.append(#"{"id": \#(index), "name": "\#(name)"}"#)
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    struct Outcome {
        var stdout: String
        var rejects: String
        var stderr: String
        var stats: [String: Any]
        /// `FILE:LINE` from the summary, when it says to resume.
        var resume: String? {
            guard let range = stderr.range(of: "resume with --resume-from ") else { return nil }
            return String(stderr[range.upperBound...].prefix { $0 != "\n" })
        }
    }

    /// Runs a stream in `directory`; with `stopAfter`, sends SIGTERM after that long.
    static func run(_ extra: [String], in directory: URL, stopAfter: Duration? = nil, run number: Int) throws -> Outcome
    {
        let rejects = "rejects\(number).ndjson"
        let stats = "stats\(number).json"
        let arguments = ["stream", "--context", "$R", "--rejects", rejects, "--stats", stats] + extra
        let stdout: String
        let stderr: String
        if let stopAfter {
            let (process, _, out, err) = try ToolRunner.start(arguments, in: directory)
            let reading = Awaited { out.fileHandleForReading.readDataToEndOfFile() }
            Thread.sleep(forTimeInterval: stopAfter / .seconds(1))
            process.terminate()
            let errors = err.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            stdout = String(decoding: reading.wait(), as: UTF8.self)
            stderr = String(decoding: errors, as: UTF8.self)
        } else {
            let result = try ToolRunner.run(arguments, in: directory)
            stdout = result.stdout
            stderr = result.stderr
        }
        let statsData = try Data(contentsOf: directory.appendingPathComponent(stats))
        return Outcome(
            stdout: stdout,
            rejects: (try? String(contentsOf: directory.appendingPathComponent(rejects), encoding: .utf8)) ?? "",
            stderr: stderr,
            stats: try JSONSerialization.jsonObject(with: statsData) as? [String: Any] ?? [:])
    }

    /// Stops at random moments, resumes each time from where the summary says, until the
    /// input is done: the pieces together are the uninterrupted run.
    @Test(
        "SIGTERM at random moments, then resume: each record written or rejected exactly once", arguments: ["1", "2"])
    func randomStops(workers: String) throws {
        let directory = try ToolRunner.directory(with: [
            "contexts/r.mappings": Self.context, "scripts/Work.lua": Self.script,
            "a.ndjson": Self.input(records: 30_000, seed: 1),
            "b.ndjson": Self.input(records: 30_000, seed: 2),
        ])
        defer { try? FileManager.default.removeItem(at: directory) }
        let inputs = ["a.ndjson", "b.ndjson"]
        let whole = try Self.run(["--workers", workers] + inputs, in: directory, run: 0)
        #expect(whole.resume == nil)
        #expect(whole.stats["resume"] is NSNull)
        var random = SeededGenerator(seed: workers == "1" ? 0x5107 : 0x5108)
        var stdout = ""
        var rejects = ""
        var resume: String?
        var stops = 0
        // Eight runs stopped at random moments (on a loaded machine a run may do little before its
        // stop), then one to the end.
        for number in 1...9 {
            let delay = Duration.milliseconds(Int.random(in: 30...400, using: &random))
            let outcome = try Self.run(
                ["--workers", workers] + (resume.map { ["--resume-from", $0] } ?? []) + inputs, in: directory,
                stopAfter: number < 9 ? delay : nil, run: number)
            stdout += outcome.stdout
            rejects += outcome.rejects
            let read = outcome.stats["read"] as? Int ?? -1
            let accounted =
                (outcome.stats["written"] as? Int ?? 0) + (outcome.stats["rejected"] as? Int ?? 0)
                + (outcome.stats["unprocessed"] as? Int ?? 0)
            #expect(read == accounted, "\(outcome.stats)")
            guard let next = outcome.resume else {
                #expect(outcome.stats["resume"] is NSNull)
                break
            }
            stops += 1
            // The stats name the same place, with the byte offset of that line in its file.
            let place = try #require(outcome.stats["resume"] as? [String: Any])
            #expect("\(place["file"] ?? ""):\(place["line"] ?? "")" == next)
            let file = try #require(place["file"] as? String)
            let offset = try #require(place["offset"] as? Int)
            let line = try #require(place["line"] as? Int)
            let text = try Data(contentsOf: directory.appendingPathComponent(file))
            #expect(text.prefix(offset).filter { $0 == UInt8(ascii: "\n") }.count == line - 1)
            #expect(offset == 0 || text[offset - 1] == UInt8(ascii: "\n"))
            // A stop never rejects a line as incomplete: the line is there, whole, to resume from.
            #expect(!outcome.rejects.contains("incomplete line"))
            resume = next
        }
        #expect(stops > 0, "no run was stopped before its end")
        // A record still mapping when a stop's grace period ran out (on a loaded machine) is
        // rejected as interrupted: rejected once, and so never written. The pieces are then the
        // uninterrupted run without those records.
        let interrupted = Self.places(of: rejects, kind: "interrupted")
        let written = try Self.writtenPlaces(whole, inputs: inputs, in: directory)
        let wholeLines = whole.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(wholeLines.count == written.count)
        let expected = zip(written, wholeLines).filter { !interrupted.contains($0.0) }.map { $0.1 + "\n" }.joined()
        #expect(interrupted.isSubset(of: Set(written)), "an interrupted record the whole run did not write")
        #expect(stdout == expected)
        let kept = rejects.split(separator: "\n").filter { !$0.contains(#"{"kind":"interrupted""#) }
        #expect(kept.map { $0 + "\n" }.joined() == whole.rejects)
    }

    /// The `FILE:LINE` of each reject of `kind` in `rejects`.
    static func places(of rejects: String, kind: String) -> Set<String> {
        var places: Set<String> = []
        for line in rejects.split(separator: "\n") where line.contains(#"{"kind":"\#(kind)""#) {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let file = object["file"] as? String, let number = object["line"] as? Int
            else { continue }
            places.insert("\(file):\(number)")
        }
        return places
    }

    /// The `FILE:LINE` of each record an uninterrupted run wrote, in output order: every record
    /// of the inputs, in order, but those it rejected.
    static func writtenPlaces(_ whole: Outcome, inputs: [String], in directory: URL) throws -> [String] {
        let rejected = Set(
            whole.rejects.split(separator: "\n").compactMap { line -> String? in
                guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                    let file = object["file"] as? String, let number = object["line"] as? Int
                else { return nil }
                return "\(file):\(number)"
            })
        var places: [String] = []
        for file in inputs {
            let text = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
            for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where !line.isEmpty && !rejected.contains("\(file):\(index + 1)") {
                places.append("\(file):\(index + 1)")
            }
        }
        return places
    }

    /// `--on-issue fail` stops at each record with an issue; resuming after it goes on to the
    /// next: the runs together are one run that rejects instead.
    @Test("--on-issue fail, resumed after each failure, is a run that rejects")
    func failAndResume() throws {
        let directory = try ToolRunner.directory(with: [
            "contexts/r.mappings": Self.context, "scripts/Work.lua": Self.script,
            "a.ndjson": Self.input(records: 2_000, seed: 3),
        ])
        defer { try? FileManager.default.removeItem(at: directory) }
        let whole = try Self.run(["a.ndjson"], in: directory, run: 0)
        var stdout = ""
        var rejects = ""
        var resume: String?
        var runs = 0
        repeat {
            runs += 1
            let outcome = try Self.run(
                ["--on-issue", "fail"] + (resume.map { ["--resume-from", $0] } ?? []) + ["a.ndjson"], in: directory,
                run: runs)
            stdout += outcome.stdout
            rejects += outcome.rejects
            resume = outcome.resume
        } while resume != nil && runs < 20
        #expect(runs == 6)  // five records with an issue, then the end
        #expect(stdout == whole.stdout)
        #expect(rejects == whole.rejects)
    }

    @Test(
        "--resume-from must name an input and a line",
        arguments: [
            ("c.ndjson:3", #"--resume-from names "c.ndjson", which is not an input of this stream ("a.ndjson")"#),
            ("b.ndjson", #"--resume-from takes FILE:LINE (a line number from 1), or the --stats file"#),
            ("a.ndjson:0", #"--resume-from takes FILE:LINE (a line number from 1), or the --stats file"#),
            ("a.ndjson", #"--resume-from "a.ndjson" is neither FILE:LINE nor the stats file of a stream"#),
        ])
    func badResume(_ argument: String, _ message: String) throws {
        let directory = try ToolRunner.directory(with: [
            "contexts/r.mappings": Self.context, "scripts/Work.lua": Self.script, "a.ndjson": "{\"id\": 1}\n",
        ])
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try ToolRunner.run(
            ["stream", "--context", "$R", "--resume-from", argument, "a.ndjson"], in: directory)
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }

    @Test("resuming skips the earlier inputs and lines, and keeps line numbers as in the file")
    func skips() throws {
        let directory = try ToolRunner.directory(with: [
            "contexts/r.mappings": Self.context, "scripts/Work.lua": Self.script,
            "a.ndjson": "{\"id\": 1}\n{\"id\": 2}\n",
            "b.ndjson": "{\"id\": 3}\n\n{\"id\": \"x\"}\n{\"id\": 5}\n",
        ])
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try ToolRunner.run(
            ["stream", "--context", "$R", "--resume-from", "b.ndjson:2", "a.ndjson", "b.ndjson"], in: directory)
        #expect(result.stdout == "{\"id\":5,\"name\":null}\n")
        #expect(result.stderr.contains(#"b.ndjson:3: rejected: $.id: expected Int"#), "\(result.stderr)")
        #expect(result.stderr.hasSuffix("mappings stream: read 2, written 1, rejected 1\n"), "\(result.stderr)")
    }
}

/// What the first resumed runs lost, each seen as a user met it: the rejects of the run before,
/// a stop that looked like the end, a place past the end of a file or in a file that changed.
@Suite("resuming loses nothing and refuses what does not fit")
struct StreamResumeChecksTests {
    /// Runs a stream that maps slowly (one worker) until it has written `records` records, then
    /// sends SIGTERM: a stop in the middle of the input, whatever the machine's speed.
    static func stopEarly(_ arguments: [String], in directory: URL, after records: Int = 1) throws
        -> ToolRunner.Result
    {
        let (process, _, stdout, stderr) = try ToolRunner.start(arguments, in: directory)
        let handle = stdout.fileHandleForReading
        var out = Data()
        while out.filter({ $0 == UInt8(ascii: "\n") }).count < records {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            out += chunk
        }
        process.terminate()
        out += handle.readDataToEndOfFile()
        let err = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return ToolRunner.Result(
            status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self),
            stderr: String(decoding: err, as: UTF8.self))
    }

    static let files: [String: String] = [
        "contexts/r.mappings": StreamResumeTests.context,
        "scripts/Work.lua": "return { f = function(v) local s = 0 for i = 1, 200000 do s = s + i end return v end }",
        "a.ndjson": StreamResumeTests.input(records: 3_000, seed: 7),
    ]

    @Test("stopped by SIGTERM, a stream exits 75; resumed with the same --rejects, no reject is lost")
    func sameRejectsFile() throws {
        let directory = try ToolRunner.directory(with: Self.files)
        defer { try? FileManager.default.removeItem(at: directory) }
        let common = ["stream", "--context", "$R", "--workers", "1", "--rejects", "rejects.ndjson"]
        let whole = try ToolRunner.run(common + ["--stats", "whole.json", "a.ndjson"], in: directory)
        #expect(whole.status == 1)
        let wholeRejects = try String(contentsOf: directory.appendingPathComponent("rejects.ndjson"), encoding: .utf8)
        try FileManager.default.removeItem(at: directory.appendingPathComponent("rejects.ndjson"))
        let stopped = try Self.stopEarly(common + ["--stats", "stats.json", "a.ndjson"], in: directory)
        #expect(stopped.status == 75, "\(stopped.stderr)")
        #expect(stopped.stderr.contains("stopped by SIGTERM; resume with --resume-from a.ndjson:"), "\(stopped.stderr)")
        let resumed = try ToolRunner.run(
            common + ["--stats", "stats2.json", "--resume-from", "stats.json", "a.ndjson"], in: directory)
        #expect(resumed.status == 1, "\(resumed.stderr)")
        let rejects = try String(contentsOf: directory.appendingPathComponent("rejects.ndjson"), encoding: .utf8)
        // A record a stop cut short is rejected as interrupted; the rest are the whole run's rejects.
        let kept = rejects.split(separator: "\n").filter { !$0.contains(#"{"kind":"interrupted""#) }
        #expect(kept.map { $0 + "\n" }.joined() == wholeRejects)
        #expect(stopped.stdout + resumed.stdout == whole.stdout || rejects.contains("interrupted"))
    }

    @Test("a place past the end of its file, or of standard input, is refused with what the input has")
    func pastTheEnd() throws {
        let directory = try ToolRunner.directory(with: [
            "contexts/r.mappings": StreamResumeTests.context, "scripts/Work.lua": StreamResumeTests.script,
            "a.ndjson": "{\"id\": 1}\n{\"id\": 2}\n{\"id\": 3}\n",
        ])
        defer { try? FileManager.default.removeItem(at: directory) }
        let stream = ["stream", "--context", "$R"]
        let far = try ToolRunner.run(stream + ["--resume-from", "a.ndjson:1000000", "a.ndjson"], in: directory)
        #expect(far.status == 2 && far.stdout.isEmpty)
        #expect(
            far.stderr.contains(
                "error: --resume-from a.ndjson:1000000: a.ndjson has 3 lines: line 1000000 is past its end"),
            "\(far.stderr)")
        // The line after the last line break is the end itself: nothing left, nothing refused.
        let end = try ToolRunner.run(stream + ["--resume-from", "a.ndjson:4", "a.ndjson"], in: directory)
        #expect(end.status == 0 && end.stdout.isEmpty, "\(end.stderr)")
        let last = try ToolRunner.run(stream + ["--resume-from", "a.ndjson:3", "a.ndjson"], in: directory)
        #expect(last.stdout == "{\"id\":3,\"name\":null}\n", "\(last.stderr)")
        // `-` for standard input, as the docs write it, after a space.
        let input = "{\"id\": 1}\n{\"id\": 2}\n"
        let stdin = try ToolRunner.run(stream + ["--resume-from", "-:2"], in: directory, input: input)
        #expect(stdin.stdout == "{\"id\":2,\"name\":null}\n", "\(stdin.stderr)")
        let beyond = try ToolRunner.run(stream + ["--resume-from", "-:9"], in: directory, input: input)
        #expect(beyond.status == 2 && beyond.stdout.isEmpty)
        #expect(beyond.stderr.contains("standard input ended after 2 lines, before line 9"), "\(beyond.stderr)")
    }

    @Test("resumed from its stats file, a run refuses an input that changed, and takes one that only grew")
    func changedInputs() throws {
        let directory = try ToolRunner.directory(with: Self.files.merging(["b.ndjson": "{\"id\": 1}\n"]) { $1 })
        defer { try? FileManager.default.removeItem(at: directory) }
        let common = ["stream", "--context", "$R", "--workers", "1"]
        // b's record, then one of a: the stop comes inside a.
        let stopped = try Self.stopEarly(
            common + ["--stats", "stats.json", "b.ndjson", "a.ndjson"], in: directory, after: 2)
        #expect(stopped.status == 75, "\(stopped.stderr)")
        let stats =
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: directory.appendingPathComponent("stats.json"))) as? [String: Any] ?? [:]
        let place = try #require(stats["resume"] as? [String: Any])
        #expect(place["file"] as? String == "a.ndjson")
        let offset = try #require(place["offset"] as? Int)
        #expect(offset > 0)
        let digest = try #require(place["digest"] as? String)
        #expect(digest.count == 16)
        let inputs = try #require(stats["inputs"] as? [[String: Any]])
        #expect(inputs.map { $0["file"] as? String } == ["b.ndjson", "a.ndjson"])
        let original = try Data(contentsOf: directory.appendingPathComponent("a.ndjson"))
        #expect(inputs.last?["size"] as? Int == original.count)
        func resume() throws -> ToolRunner.Result {
            try ToolRunner.run(
                common + ["--resume-from", "stats.json", "--rejects", "/dev/null", "b.ndjson", "a.ndjson"],
                in: directory)
        }
        func write(_ name: String, _ data: Data) throws { try data.write(to: directory.appendingPathComponent(name)) }
        // A byte changed before the place: refused, nothing written.
        var changed = original
        changed[offset / 2] = changed[offset / 2] == UInt8(ascii: "1") ? UInt8(ascii: "2") : UInt8(ascii: "1")
        try write("a.ndjson", changed)
        var refused = try resume()
        #expect(refused.status == 2 && refused.stdout.isEmpty)
        #expect(refused.stderr.contains("a.ndjson is not the file the stopped run read: its \(offset) bytes"))
        // Truncated after the place: shorter than it was.
        try write("a.ndjson", original.prefix(offset + 10))
        refused = try resume()
        #expect(refused.status == 2 && refused.stderr.contains("bytes now and was \(original.count)"), "\(refused)")
        // An input before it grew: its new records would be skipped.
        try write("a.ndjson", original)
        try write("b.ndjson", Data("{\"id\": 1}\n{\"id\": 2}\n".utf8))
        refused = try resume()
        #expect(refused.status == 2 && refused.stderr.contains("b.ndjson, an input before a.ndjson"), "\(refused)")
        // The file grew after the place (a log still written): resumed, its new record mapped.
        try write("b.ndjson", Data("{\"id\": 1}\n".utf8))
        try write("a.ndjson", original + Data("{\"id\": 99999}\n".utf8))
        let grown = try resume()
        #expect(grown.status == 1, "\(grown.stderr)")
        #expect(grown.stdout.hasSuffix("{\"id\":99999,\"name\":null}\n"))
        // A stats file of a run that ended has nothing to resume.
        let ended = try ToolRunner.run(common + ["--stats", "end.json", "b.ndjson"], in: directory)
        #expect(ended.status == 0)
        let nothing = try ToolRunner.run(common + ["--resume-from", "end.json", "b.ndjson"], in: directory)
        #expect(nothing.status == 2 && nothing.stderr.contains("there is nothing to resume"), "\(nothing.stderr)")
    }
}

/// A value one thread makes and another waits for.
private final class Awaited<T>: @unchecked Sendable {
    private var value: T?
    private let done = DispatchSemaphore(value: 0)

    /// Starts `body` on a thread of its own.
    init(_ body: @escaping @Sendable () -> T) {
        Thread.detachNewThread {
            self.value = body()
            self.done.signal()
        }
    }

    /// Waits for the value.
    func wait() -> T {
        done.wait()
        return value!
    }
}
