import Foundation
import MappingsTestSupport
import Testing

/// The benchmark harness in its smoke mode (small data, one run, the debug builds: the tool
/// under test, and the benchmarks' own package), so that it never rots: every benchmark runs,
/// every peer's output is checked against Mappings'.
@Suite("the benchmark harness, smoke mode", .serialized)
struct BenchmarkSmokeTests {
    static func harness(_ arguments: [String]) throws -> ToolRunner.Result {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("mappings-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments =
            [
                "python3", "Benchmarks/run", "--smoke", "--bin-dir",
                ToolRunner.executable.deletingLastPathComponent().path, "--bench-bin-dir",
                try PackageBuild.benchmarks().path, "--data-dir", data.path,
            ] + arguments
        process.currentDirectoryURL = ToolRunner.packageRoot
        let stdout = Pipe(), stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        let out = stdout.fileHandleForReading.readDataToEndOfFile()
        let err = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return ToolRunner.Result(
            status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self),
            stderr: String(decoding: err, as: UTF8.self))
    }

    @Test("B1 to B8 run on small data and print their tables")
    func allBenchmarks() throws {
        let result = try Self.harness([])
        #expect(result.status == 0, "\(result.stderr)")
        for heading in [
            "B1 stream", "B2 stream with one Lua transformer", "B2 call cost", "B3 document", "B4 scaling",
            "B5 memory", "B6 polymorphic", "B7 Lua-heavy", "B8 service",
        ] {
            #expect(result.stdout.contains(heading), "\(heading) missing from:\n\(result.stdout)")
        }
        for row in [
            "| mappings stream |", "| python 3", "| Swift JSONDecoder+JSONEncoder |", "| Swift JSONSerialization |",
            "| mappings map --many |", "| --workers 2 |", "10-field obj", "| mappings stream --workers 2 |",
            "| mappings stream, explicit entries |", "| mappings stream --general-engine |",
            "| mappings stream --lua-isolation process |", "goal (Lua-heavy, large): ≥ 0.6×",
            "B7 Lua-heavy: $RealStatusScripted", "goal (Lua-heavy, real): --workers 2 ≥ 1.8×",
            "POST /v1/map (NDJSON)", "single payloads, wrk 16 connections",
        ] {
            #expect(result.stdout.contains(row), "\(row) missing from:\n\(result.stdout)")
        }
        for shape in ["tweet shape", "small shape", "wide shape, 40 scalar fields", "the Lua shape"] {
            #expect(result.stdout.contains(shape), "\(shape) missing from:\n\(result.stdout)")
        }
        // Each peer is measured on every shape, or skipped with the reason (never failing the run).
        for (peer, row) in [
            ("msgspec", "| python + msgspec "), ("jq", "| jq-"), ("gojq", "| gojq-"), ("jaq", "| jaq-"),
        ] {
            let rows = result.stdout.components(separatedBy: row).count - 1
            let skipped = result.stdout.contains("note: \(peer) is not installed")
            #expect(rows >= 5 || skipped, "\(peer): \(rows) rows, no reason to skip, in:\n\(result.stdout)")
        }
        #expect(
            result.stdout.contains("goal (small): ≥ 2× python + msgspec") || result.stdout.contains("msgspec is not"))
    }

    @Test("a peer whose output differs stops the run before any timing counts")
    func mismatch() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/jq") else { return }
        let wrong = FileManager.default.temporaryDirectory.appendingPathComponent("wrong-\(UUID().uuidString).jq")
        defer { try? FileManager.default.removeItem(at: wrong) }
        let program = try String(
            contentsOf: ToolRunner.packageRoot.appendingPathComponent("Benchmarks/peers/reshape.jq"), encoding: .utf8)
        try Data(program.replacingOccurrences(of: "text: .text,", with: "text: (.text + \"!\"),").utf8).write(to: wrong)
        let result = try Self.harness(["--only", "B1", "--jq-program", wrong.path])
        #expect(result.status == 1)
        #expect(result.stderr.contains("error: outputs differ, no timing counts: jq-"), "\(result.stderr)")
        #expect(!result.stdout.contains("| mappings stream |"))
    }

    /// The twitter shape reads a file of statuses as the API's search answer holds them
    /// (`{"statuses": [...]}`): here three statuses of the real-like generator stand for
    /// simdjson's file, which is third-party data and never in the repository.
    @Test("the twitter shape maps a given file of statuses beside the generated shapes, or says what it needs")
    func twitterShape() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("twitter-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let statuses = directory.appendingPathComponent("statuses.json")
        let make = Process()
        make.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        make.currentDirectoryURL = ToolRunner.packageRoot
        make.arguments = [
            "python3", "-c",
            "import json, random, sys; sys.path.insert(0, 'Benchmarks'); import generate; "
                + "rng = random.Random(3); json.dump({'statuses': [generate.real(rng, n) for n in range(3)]}, "
                + "open(sys.argv[1], 'w'))",
            statuses.path,
        ]
        try make.run()
        make.waitUntilExit()
        #expect(make.terminationStatus == 0)
        let result = try Self.harness(["--only", "B1,B7", "--shapes", "twitter", "--twitter", statuses.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("the actual statuses of simdjson's twitter.json"), "\(result.stdout)")
        #expect(result.stdout.contains("goal (Lua-heavy, twitter)"), "\(result.stdout)")
        let missing = try Self.harness([
            "--only", "B1", "--shapes", "twitter", "--twitter", directory.appendingPathComponent("none.json").path,
        ])
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("--twitter"), "\(missing.stderr)")
    }
}
