import Foundation
import MappingsTestSupport
import Testing

/// `mappings stream` under pressure: a stop signal while a record is deep in slow work, results
/// far larger than the records, and a reload that does not finish.
@Suite("mappings stream: bounded in time and memory", .serialized)
struct StreamLimitsTests {
    /// The peak resident memory of a running process so far (VmHWM), in bytes; 0 once it is gone.
    static func peakMemory(of pid: Int32) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let kilobytes = line.split(separator: " ").compactMap { Int($0) }.first ?? 0
            return kilobytes << 10
        }
        return 0
    }

    /// Runs `mappings stream` with stdout thrown away, feeding `input`; returns the status, the
    /// stderr text and the highest peak memory seen while it ran.
    static func streamWithoutOutput(_ arguments: [String], in directory: URL, input: String) throws -> (
        status: Int32, stderr: String, peak: Int
    ) {
        let process = Process()
        process.executableURL = ToolRunner.executable
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let stdin = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = FileHandle.nullDevice
        process.standardError = stderr
        try process.run()
        signal(SIGPIPE, SIG_IGN)
        let writer = Thread {
            try? stdin.fileHandleForWriting.write(contentsOf: Data(input.utf8))
            try? stdin.fileHandleForWriting.close()
        }
        writer.start()
        final class Peak: @unchecked Sendable { var bytes = 0 }
        let peak = Peak()
        let watcher = Thread {
            while process.isRunning {
                peak.bytes = max(peak.bytes, peakMemory(of: process.processIdentifier))
                Thread.sleep(forTimeInterval: 0.02)
            }
        }
        watcher.start()
        let err = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        Thread.sleep(forTimeInterval: 0.05)
        return (process.terminationStatus, err, peak.bytes)
    }

    static let bigResult: [String: String] = [
        "contexts/big.mappings": """
        { "@models": { "B": { "id": "Int", "text": "String" } },
          "$B": { "@class": "B", "id": "id",
                  "text": { "@keyPath": "id", "@transformClass": "Big", "@transformSelector": "text" } },
          "$BInt": { "@class": "B", "id": "id",
                  "text": { "@keyPath": "id", "@transformClass": "Big", "@transformSelector": "text" } } }
        """,
        "scripts/Big.lua": "return { text = function(id) return string.rep('x', 15000000) end }",
    ]

    @Test("records whose transformer returns 15 MB each: the records in flight stay within --max-in-flight")
    func largeResults() throws {
        let directory = try ToolRunner.directory(with: Self.bigResult)
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = (0..<60).map { #"{"id": \#($0)}"# }.joined(separator: "\n") + "\n"
        let run = try Self.streamWithoutOutput(
            ["stream", "--context", "$B", "--workers", "2", "--lua-max-result", "16", "--max-in-flight", "64"],
            in: directory, input: input)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr == "mappings stream: read 60, written 60, rejected 0\n")
        // 60 results of 15 MB held at once would be 900 MB; the bound keeps a few.
        #expect(run.peak > 0 && run.peak < 512 << 20, "peak \(run.peak >> 20) MiB")
    }

    @Test("1,000 records whose transformer returns 15 MB each, over the result limit: issues, and little memory")
    func resultLimit() throws {
        let directory = try ToolRunner.directory(with: Self.bigResult)
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = (0..<1000).map { #"{"id": \#($0)}"# }.joined(separator: "\n") + "\n"
        let run = try Self.streamWithoutOutput(
            ["stream", "--context", "$B", "--workers", "2", "--rejects", "rejects.ndjson"], in: directory, input: input)
        #expect(run.status == 1)
        #expect(run.stderr == "mappings stream: read 1000, written 0, rejected 1000\n")
        #expect(run.peak > 0 && run.peak < 512 << 20, "peak \(run.peak >> 20) MiB")
        let rejects = try String(contentsOf: directory.appendingPathComponent("rejects.ndjson"), encoding: .utf8)
        let first = rejects.split(separator: "\n").first.map(String.init) ?? ""
        #expect(first.contains("the value is too large (more than the result limit of 8388608 bytes)"), "\(first)")
    }

    /// `Slow.f`: spins for `wait` seconds of the processor's time, then returns `wait`.
    static let slowScript = """
        return { f = function(wait)
            local started = os.clock()
            while os.clock() - started < wait do end
            return wait
        end }
        """

    @Test(
        "SIGTERM while a record is deep in slow work: the stream ends within the grace period, every record accounted")
    func stopWhileStuck() throws {
        // Each record makes 40 calls of 0.3 s (each within its 500 ms deadline): 12 s a record.
        let properties = (1...40).map { "\"p\($0)\": \"Double\"" }.joined(separator: ", ")
        let entries = (1...40).map {
            "\"p\($0)\": { \"@keyPath\": \"wait\", \"@transformClass\": \"Slow\", \"@transformSelector\": \"f\" }"
        }.joined(separator: ", ")
        let directory = try ToolRunner.directory(with: [
            "contexts/slow.mappings": """
            { "@models": { "S": { "id": "Int", \(properties) } },
              "$S": { "@class": "S", "id": "id", \(entries) } }
            """,
            "scripts/Slow.lua": Self.slowScript,
        ])
        defer { try? FileManager.default.removeItem(at: directory) }
        let (process, stdin, stdout, stderr) = try ToolRunner.start(
            [
                "stream", "--context", "$S", "--workers", "2", "--lua-timeout", "500", "--lua-budget", "100000000000",
                "--stats", "stats.json", "--rejects", "rejects.ndjson",
            ], in: directory)
        var lines = (0..<3).map { #"{"id": \#($0), "wait": 0}"# }
        lines += (3..<6).map { #"{"id": \#($0), "wait": 0.3}"# }
        stdin.fileHandleForWriting.write(Data((lines.joined(separator: "\n") + "\n").utf8))
        Thread.sleep(forTimeInterval: 1)
        let signalled = ContinuousClock.now
        process.terminate()  // SIGTERM
        let out = String(decoding: stdout.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let err = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let took = ContinuousClock.now - signalled
        // The grace period is the Lua timeout plus one second; allow a second more for the process.
        #expect(took < .milliseconds(2500), "stopped after \(took)")
        let stats =
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: directory.appendingPathComponent("stats.json"))) as? [String: Any] ?? [:]
        let read = stats["read"] as? Int ?? -1
        let written = stats["written"] as? Int ?? -1
        let rejected = stats["rejected"] as? Int ?? -1
        let unprocessed = stats["unprocessed"] as? Int ?? -1
        #expect(read == 6)
        #expect(read == written + rejected + unprocessed)
        #expect(written == 3, "\(out)")
        #expect(stats["interrupted"] as? Int == 2, "\(stats)")
        #expect(unprocessed == 1)
        #expect(stats["stopped"] as? String == "SIGTERM")
        #expect(
            err.hasSuffix(
                "mappings stream: read 6, written 3, rejected 2, not processed 1 (2 rejected as interrupted), stopped by SIGTERM; resume with --resume-from -:6\n"
            ), "\(err)")
        let rejects = try String(contentsOf: directory.appendingPathComponent("rejects.ndjson"), encoding: .utf8)
        #expect(rejects.split(separator: "\n").count == 2)
        #expect(rejects.contains(#""kind":"interrupted""#))
    }

    @Test(
        "Ctrl-C reaches the whole process group: the Lua worker processes finish the record in flight, which is written"
    )
    func interruptReachesTheWorkers() throws {
        let directory = try ToolRunner.directory(with: [
            "contexts/slow.mappings": """
            { "@models": { "S": { "id": "Int", "w": "Double" } },
              "$S": { "@class": "S", "id": "id",
                      "w": { "@keyPath": "wait", "@transformClass": "Slow", "@transformSelector": "f" } } }
            """,
            "scripts/Slow.lua": Self.slowScript,
        ])
        defer { try? FileManager.default.removeItem(at: directory) }
        let (process, stdin, stdout, stderr) = try ToolRunner.start(
            [
                "stream", "--context", "$S", "--lua-isolation", "process", "--lua-timeout", "20000",
                "--lua-budget", "100000000000",
            ], in: directory)
        // Foundation starts the tool in a process group of its own, as a shell starts a job: the
        // signal goes to that group, as a terminal sends Ctrl-C to its foreground job.
        try #require(getpgid(process.processIdentifier) == process.processIdentifier)
        let exchange = LineExchange(stdin: stdin, stdout: stdout)
        #expect(exchange.send(#"{"id": 1, "wait": 0}"#) == #"{"id":1,"w":0}"#)
        stdin.fileHandleForWriting.write(Data((#"{"id": 2, "wait": 1.5}"# + "\n").utf8))
        Thread.sleep(forTimeInterval: 0.5)
        kill(-process.processIdentifier, SIGINT)
        let out = String(decoding: stdout.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let err = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 75, "\(err)")
        #expect(out == #"{"id":2,"w":1.5}"# + "\n", "\(err)")
        #expect(err.contains("read 2, written 2, rejected 0"), "\(err)")
        #expect(err.contains("stopped by SIGINT"), "\(err)")
    }

    @Test("--watch: an edit whose load outlasts --reload-timeout is refused and logged; the old version keeps serving")
    func slowReload() throws {
        let context = """
            { "@models": { "R": { "name": "String", "score": "Int" } },
              "$R": { "@class": "R", "name": "name",
                      "score": { "@keyPath": "score", "@transformClass": "Score", "@transformSelector": "f" }TESTS } }
            """
        let directory = try ToolRunner.directory(with: [
            "contexts/r.mappings": context.replacingOccurrences(of: "TESTS", with: ""),
            "scripts/Score.lua": "return { f = function(n) return n * 2 end }",
        ])
        defer { try? FileManager.default.removeItem(at: directory) }
        let (process, stdin, stdout, stderr) = try ToolRunner.start(
            ["stream", "--context", "$R", "--watch", "--reload-timeout", "1", "--lua-timeout", "900"], in: directory)
        let exchange = LineExchange(stdin: stdin, stdout: stdout)
        func send(_ record: String) -> (line: String, took: Duration) {
            let started = ContinuousClock.now
            let line = exchange.send(record)
            return (line, ContinuousClock.now - started)
        }
        #expect(send(#"{"name": "a", "score": 1}"#).line == #"{"name":"a","score":2}"#)
        // Version 2: each of its eight tests calls a function that takes 0.5 s, 4 s in all.
        let test = #"{ "input": { "name": "x", "score": 1 }, "output": { "name": "x", "score": 3 } }"#
        let tests = #", "@tests": ["# + Array(repeating: test, count: 8).joined(separator: ", ") + "]"
        try Data(context.replacingOccurrences(of: "TESTS", with: tests).utf8).write(
            to: directory.appendingPathComponent("contexts/r.mappings"))
        try Data(
            """
            return { f = function(n)
                local started = os.clock()
                while os.clock() - started < 0.5 do end
                return n * 3
            end }
            """.utf8
        ).write(to: directory.appendingPathComponent("scripts/Score.lua"))
        Thread.sleep(forTimeInterval: 0.4)
        let during = send(#"{"name": "b", "score": 1}"#)
        #expect(during.line == #"{"name":"b","score":2}"#)
        #expect(during.took < .seconds(3), "the stream waited \(during.took) for the reload")
        Thread.sleep(forTimeInterval: 1)
        #expect(send(#"{"name": "c", "score": 1}"#).line == #"{"name":"c","score":2}"#)
        try stdin.fileHandleForWriting.close()
        let log = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(
            log.contains(
                "mappings stream: a reload was refused, still mapping with version 1: loading took longer than 1.0 seconds (--reload-timeout)"
            ), "\(log)")
        #expect(!log.contains("now mapping with version 2"))
        #expect(log.hasSuffix("mappings stream: read 3, written 3, rejected 0\n"))
    }
}
