import Foundation
import MappingsTestSupport
import Testing

/// Fast plans through the tool: `check --explain-plan` says which contexts have one and why
/// not, and `stream`/`map` write the same bytes, issues and script log lines with a plan as
/// with `--general-engine`.
@Suite("fast plans, through the tool")
struct FastPlanCommandTests {
    @Test("check --explain-plan: each context's way, and the entries that need the general engine")
    func explainPlan() throws {
        let result = try ToolRunner.run([
            "check", "--explain-plan", "--mappings", "Benchmarks/contexts", "--scripts", "Benchmarks/scripts",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        for line in [
            "$SmallTweet: fast plan", "$SmallTweetWithHandle: fast plan", "$WideRecord: fast plan",
            "$BenchDrawing: general engine", "  $BenchDrawing.shapes: a union",
        ] {
            #expect(result.stdout.split(separator: "\n").contains { $0 == line }, "\(line) in:\n\(result.stdout)")
        }
    }

    static let files: [String: String] = [
        "contexts/x.mappings": """
        {
            "@models": { "X": { "id": "Int", "name": "String", "tag": "String?", "when": "Date?" } },
            "$X": {
                "@class": "X",
                "id": "id",
                "name": { "@keyPath": "name", "@transformClass": "Names", "@transformSelector": "upper" },
                "tag": { "@keyPath": "tag", "@optional": true },
                "when": { "@keyPath": "at", "@optional": true }
            }
        }
        """,
        "scripts/Names.lua": """
        local function upper(value)
            log("upper", value)
            if value == "boom" then error("no boom") end
            return string.upper(value)
        end
        return { upper = upper }
        """,
        "in.ndjson": """
        {"id": 1, "name": "ann", "tag": "a", "at": "2020-01-02T03:04:05Z"}
        {"id": "x", "name": "bob"}
        {"id": 3, "name": "boom"}
        {"id": 4, "name": "cy", "at": "2020-02-30T00:00:00Z"}
        not json
        {"id": 6, "name": "dee", "tag": null}

        """,
    ]

    @Test(
        "stream: the same output, rejects and log lines (once per record) with and without the plan",
        arguments: [["--omit-nulls"], []])
    func sameStream(flags: [String]) throws {
        let directory = try ToolRunner.directory(with: Self.files)
        defer { try? FileManager.default.removeItem(at: directory) }
        let fast = try ToolRunner.run(
            ["stream", "--context", "$X", "--workers", "2", "--stats", "stats.json", "in.ndjson"] + flags, in: directory
        )
        let stats = try String(contentsOf: directory.appendingPathComponent("stats.json"), encoding: .utf8)
        // The two clean records went through the plan; the others through the general engine.
        #expect(stats.contains(#""contexts":{"$X":{"version":1,"plan":"fast"}},"fastPlanRecords":2,"#), "\(stats)")
        let general = try ToolRunner.run(
            ["stream", "--context", "$X", "--general-engine", "in.ndjson"] + flags, in: directory)
        // Rejected records: exit 1. Log lines come from the workers as records map, rejects from
        // the writer: the same lines, in an order that depends on timing.
        #expect(fast.status == 1)
        #expect(general.status == 1)
        #expect(fast.stdout == general.stdout)
        #expect(fast.stderr.split(separator: "\n").sorted() == general.stderr.split(separator: "\n").sorted())
        #expect(fast.stdout.split(separator: "\n").count == 2)
        // Record 3's transformer fails: its log line comes once, and the reject names the script line.
        #expect(fast.stderr.components(separatedBy: "[record 3] upper").count == 2, "\(fast.stderr)")
        #expect(fast.stderr.contains("scripts/Names.lua:3"), "\(fast.stderr)")
        #expect(fast.stderr.contains("read 6, written 2, rejected 4"), "\(fast.stderr)")
    }

    @Test("map: the same output and issues with and without the plan")
    func sameMap() throws {
        let directory = try ToolRunner.directory(with: Self.files)
        defer { try? FileManager.default.removeItem(at: directory) }
        for payload in [#"{"id": 1, "name": "ann"}"#, #"{"id": 1, "name": "boom"}"#, #"{"id": 1}"#, "[1]"] {
            let fast = try ToolRunner.run(["map", "--context", "$X"], in: directory, input: payload)
            let general = try ToolRunner.run(
                ["map", "--context", "$X", "--general-engine"], in: directory, input: payload)
            #expect(fast.status == general.status, "\(payload)")
            #expect(fast.stdout == general.stdout, "\(payload)")
            #expect(fast.stderr == general.stderr, "\(payload)")
        }
    }
}
