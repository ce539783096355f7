import Foundation
import MappingsTestSupport
import Testing

/// `log(...)` and `print(...)` in Lua scripts, through the tool as a process: lines on stderr
/// (never stdout) with the script line and, in `stream`, the record; bounded; `--quiet`.
@Suite("scripts' log lines, as a process")
struct ScriptLogTests {
    static let files: [String: String] = [
        "contexts/x.mappings": """
        {
            "$X": {
                "v": { "@keyPath": "@self", "@transformClass": "Geo", "@transformSelector": "f" },
                "@tests": [ { "input": { "n": 1 }, "output": { "v": 1 } } ]
            }
        }
        """,
        "scripts/Geo.lua": """
        local function f(value)
            log("n", value.n, {1, 2, a = "x", b = {c = {d = 1}}}, nil, true, null)
            if value.n == 2 then print("two\\nlines\\there") end
            if value.n == 3 then for i = 1, 20 do log("loop", i) end end
            if value.n == 4 then log(("é"):rep(1e5)) end
            return value.n
        end
        return { f = f }
        """,
    ]

    static func directory() throws -> URL {
        var files = files
        files["in.ndjson"] = "{\"n\": 1}\n\n{\"n\": 2}\n"
        return try ToolRunner.directory(with: files)
    }

    /// The first line is the context's test's (a stream runs them first), with no record. Two
    /// workers map records 1 and 3 at once; their lines still come out in input order.
    @Test(
        "stream: each line names the script line and the record, on stderr only",
        arguments: ["none", "process"], ["1", "2"])
    func stream(isolation: String, workers: String) throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try ToolRunner.run(
            ["stream", "--context", "$X", "--lua-isolation", isolation, "--workers", workers, "in.ndjson"],
            in: directory)
        #expect(result.status == 0)
        #expect(result.stdout == "{\"v\":1}\n{\"v\":2}\n")
        #expect(
            result.stderr == """
                scripts/Geo.lua:2: n\t1\t{1, 2, a="x", b={c={…}}}\tnil\ttrue\tnull
                scripts/Geo.lua:2: [record 1] n\t1\t{1, 2, a="x", b={c={…}}}\tnil\ttrue\tnull
                scripts/Geo.lua:2: [record 3] n\t2\t{1, 2, a="x", b={c={…}}}\tnil\ttrue\tnull
                scripts/Geo.lua:3: [record 3] two\\nlines\there
                mappings stream: read 2, written 2, rejected 0

                """)
    }

    /// Records that take longer the earlier they come, so that with two workers later ones
    /// finish first: their lines are written in input order all the same.
    @Test(
        "stream: log lines come out in input order whatever the worker count (and batches, in workers)",
        arguments: ["none", "process"], ["1", "2"])
    func inputOrder(isolation: String, workers: String) throws {
        var files = Self.files
        files["scripts/Geo.lua"] = """
            local function f(value)
                local spin = (40 - value.n) * 2000
                for i = 1, spin do end
                log("record", value.n)
                log("again", value.n)
                return value.n
            end
            return { f = f }
            """
        files["contexts/x.mappings"] = """
            { "$X": { "v": { "@keyPath": "@self", "@transformClass": "Geo", "@transformSelector": "f" } } }
            """
        let directory = try ToolRunner.directory(with: files)
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = (1...40).map { "{\"n\": \($0)}\n" }.joined()
        let result = try ToolRunner.run(
            ["stream", "--context", "$X", "--workers", workers, "--lua-isolation", isolation], in: directory,
            input: input)
        #expect(result.status == 0)
        let expected = (1...40).flatMap { n in
            ["scripts/Geo.lua:4: [record \(n)] record\t\(n)", "scripts/Geo.lua:5: [record \(n)] again\t\(n)"]
        }
        let lines = result.stderr.split(separator: "\n").map(String.init).filter { $0.hasPrefix("scripts/") }
        #expect(lines == expected)
    }

    @Test("a call keeps 16 lines, a long line is cut, and the dropped ones are counted at the end")
    func bounded() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try ToolRunner.run(
            ["stream", "--context", "$X"], in: directory, input: "{\"n\": 3}\n{\"n\": 4}\n")
        #expect(result.status == 0)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.filter { $0.contains(": [record 1] loop") }.count == 15)
        let long = lines.first { $0.hasPrefix("scripts/Geo.lua:5: [record 2] éé") }
        #expect(long?.hasSuffix("é… (cut at 512 bytes)") == true)
        #expect(
            (long?.utf8.count ?? 0) <= "scripts/Geo.lua:5: [record 2] ".utf8.count + 512
                + "… (cut at 512 bytes)".utf8.count)
        #expect(
            lines.last
                == "mappings: 5 log lines dropped (scripts may log 16 lines per call and 100 lines per second each)")
    }

    @Test("one script logs at most 100 lines a second; the rest are dropped and counted")
    func rateLimited() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = String(repeating: "{\"n\": 5}\n", count: 2000)
        let started = ContinuousClock.now
        let result = try ToolRunner.run(["stream", "--context", "$X"], in: directory, input: input)
        let seconds = (ContinuousClock.now - started).components.seconds
        #expect(result.status == 0)
        let kept = result.stderr.split(separator: "\n").filter { $0.hasPrefix("scripts/Geo.lua:2: ") }.count
        #expect(kept <= 100 * Int(seconds + 2))
        let summary = result.stderr.split(separator: "\n").last ?? ""
        // 2,000 records and the context's test.
        #expect(
            summary
                == "mappings: \(2001 - kept) log lines dropped (scripts may log 16 lines per call and 100 lines per second each)"
        )
    }

    @Test(
        "--quiet turns logging off wherever transformers run",
        arguments: [
            ["stream", "--context", "$X", "--quiet", "in.ndjson"],
            ["map", "--context", "$X", "--quiet", "in.json"],
            ["explain", "--context", "$X", "--quiet", "in.json"],
            ["test", "--quiet"],
        ])
    func quiet(arguments: [String]) throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data("{\"n\": 3}".utf8).write(to: directory.appendingPathComponent("in.json"))
        let result = try ToolRunner.run(arguments, in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("Geo.lua"), "\(result.stderr)")
        #expect(!result.stderr.contains("dropped"))
    }

    @Test("map, explain and test log without a record; map's stdout is only the object")
    func map() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try ToolRunner.run(["map", "--context", "$X"], in: directory, input: "{\"n\": 2}")
        #expect(result.status == 0)
        #expect(result.stdout == "{\"v\":2}\n")
        #expect(
            result.stderr == """
                scripts/Geo.lua:2: n\t2\t{1, 2, a="x", b={c={…}}}\tnil\ttrue\tnull
                scripts/Geo.lua:3: two\\nlines\there

                """)
        let test = try ToolRunner.run(["test"], in: directory)
        #expect(test.status == 0)
        #expect(test.stderr.hasPrefix("scripts/Geo.lua:2: n\t1\t"))
    }
}
