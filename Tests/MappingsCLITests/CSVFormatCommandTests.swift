import Foundation
import MappingsTestSupport
import Testing

/// `--from-format csv` and `--to-format csv` through the tool: rows mapped as JSON records
/// would be, rejects naming the row's line, the output as rows, resumed runs, `map`.
@Suite("CSV in and out, through the tool")
struct CSVFormatCommandTests {
    static let context = """
        { "@models": { "R": { "id": "Int", "name": "String?", "score": "Decimal?", "ok": "Bool?" } },
          "$R": { "@class": "R", "id": "id", "name": { "@keyPath": "name", "@optional": true },
                  "score": { "@keyPath": "score", "@optional": true }, "ok": { "@keyPath": "ok", "@optional": true } } }
        """

    /// Every column as it is: what is read is written back (`String?`: `null` and `""` apart).
    static let identity = """
        { "@models": { "Row": { "a": "String?", "b": "String?", "c": "String?" } },
          "$Row": { "@class": "Row", "a": { "@keyPath": "a", "@optional": true },
                    "b": { "@keyPath": "b", "@optional": true }, "c": { "@keyPath": "c", "@optional": true } } }
        """

    static let rows =
        "id,name,score,ok\r\n1,Ann,1.50,yes\r\n2,\"Smith, \"\"Bob\"\"\",,no\r\n3,\"two\r\nlines\",0.10,\r\nx,bad,1,true\r\n5,ragged\r\n6,,2,1\r\n"

    func directory(_ files: [String: String] = [:]) throws -> URL {
        try ToolRunner.directory(
            with: ["contexts/r.mappings": Self.context, "rows.csv": Self.rows].merging(files) { $1 })
    }

    @Test("rows map as records: every value a string the model converts; rejects name the row's line")
    func streamRows() throws {
        let directory = try directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try ToolRunner.run(
            ["stream", "--context", "$R", "--rejects", "rejects.ndjson", "rows.csv"], in: directory)
        #expect(result.status == 1)
        #expect(
            result.stdout == """
                {"id":1,"name":"Ann","score":1.50,"ok":true}
                {"id":2,"name":"Smith, \\"Bob\\"","score":null,"ok":false}
                {"id":3,"name":"two\\r\\nlines","score":0.10,"ok":null}
                {"id":6,"name":null,"score":2,"ok":true}

                """)
        let rejects = try String(contentsOf: directory.appendingPathComponent("rejects.ndjson"), encoding: .utf8)
        let lines = rejects.split(separator: "\n").map {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(lines.count == 2)
        // The record after the two-line row is on line 6, as in the file.
        #expect(lines.first??["line"] as? Int == 6)
        #expect(lines.last??["line"] as? Int == 7)
        #expect(lines.last??["input"] as? String == "5,ragged")
        let issue = (lines.last??["issues"] as? [[String: Any]])?.first
        #expect(issue?["kind"] as? String == "unreadable record")
        #expect(issue?["message"] as? String == "the row has 2 fields, the header 4, at line 7 (record 5, byte 94)")
        #expect(result.stderr.hasSuffix("mappings stream: read 6, written 4, rejected 2\n"), "\(result.stderr)")
    }

    @Test(
        "a property whose type does not convert from a string (an array) is an issue of that row; a dotted header is one key"
    )
    func notFromString() throws {
        let context = #"""
            { "@models": { "T": { "id": "Int", "tags": "[String]?", "user": "String?" } },
              "$T": { "@class": "T", "id": "id", "tags": { "@keyPath": "tags", "@optional": true },
                      "user": { "@keyPath": "user\\.name", "@optional": true } } }
            """#
        let directory = try ToolRunner.directory(with: [
            "contexts/t.mappings": context, "t.csv": "id,tags,user.name\n1,,Ann\n2,\"[\"\"a\"\"]\",Bob\n",
        ])
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try ToolRunner.run(["stream", "--context", "$T", "t.csv"], in: directory)
        #expect(result.stdout == "{\"id\":1,\"tags\":null,\"user\":\"Ann\"}\n", "\(result.stderr)")
        #expect(
            result.stderr.contains("t.csv:3: rejected: $.tags: expected [String], found string"), "\(result.stderr)")
    }

    @Test("standard input with --from-format csv, and a file by its extension, on one and two workers, alike")
    func stdinAndWorkers() throws {
        let directory = try directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try ToolRunner.run(["stream", "--context", "$R", "--workers", "2", "rows.csv"], in: directory)
        let piped = try ToolRunner.run(
            ["stream", "--context", "$R", "--workers", "1", "--from-format", "csv"], in: directory, input: Self.rows)
        #expect(file.stdout == piped.stdout)
        #expect(file.stdout.split(separator: "\n").count == 4)
        #expect(
            piped.stderr.contains("<stdin>:7: rejected: unreadable record: the row has 2 fields"), "\(piped.stderr)")
        // Without the option, standard input is JSON lines: every row is "not JSON".
        let json = try ToolRunner.run(["stream", "--context", "$R"], in: directory, input: Self.rows)
        #expect(json.stdout.isEmpty)
        #expect(json.stderr.contains("invalid JSON"))
    }

    @Test("--to-format csv: a header of the output's properties, a row each; Python's csv reads it back")
    func toCSV() throws {
        let directory = try directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try ToolRunner.run(["stream", "--context", "$R", "--to-format", "csv", "rows.csv"], in: directory)
        #expect(
            result.stdout
                == "id,name,score,ok\r\n1,Ann,1.50,true\r\n2,\"Smith, \"\"Bob\"\"\",,false\r\n3,\"two\r\nlines\",0.10,\r\n6,,2,true\r\n"
        )
        try Data(result.stdout.utf8).write(to: directory.appendingPathComponent("out.csv"))
        let python = try ToolRunner.runProgram(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["python3", "-c", "import csv, json; print(json.dumps(list(csv.reader(open('out.csv', newline='')))))"],
            in: directory)
        #expect(
            python.stdout
                == #"[["id", "name", "score", "ok"], ["1", "Ann", "1.50", "true"], ["2", "Smith, \"Bob\"", "", "false"], ["3", "two\r\nlines", "0.10", ""], ["6", "", "2", "true"]]"#
                + "\n", "\(python.stderr)")
    }

    /// A canonical CSV (rows ended by CR LF, quotes only where needed, `""` for empty text) of
    /// random cells.
    static func canonicalCSV(rows: Int, seed: UInt64) -> String {
        var random = SeededGenerator(seed: seed)
        let pieces = ["a", "b c", ",", "\"", "\r\n", "\n", "é", "😀", "42", "1.10", "x.y"]
        var text = "a,b,c\r\n"
        for _ in 0..<rows {
            text +=
                (0..<3).map { _ -> String in
                    switch Int.random(in: 0..<6, using: &random) {
                    case 0: return ""
                    case 1: return "\"\""
                    default:
                        let cell = (0..<Int.random(in: 1...4, using: &random)).map { _ in
                            pieces.randomElement(using: &random)!
                        }.joined()
                        let quoted = cell.unicodeScalars.contains { ",\"\r\n".unicodeScalars.contains($0) }
                        return quoted ? "\"" + cell.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : cell
                    }
                }.joined(separator: ",") + "\r\n"
        }
        return text
    }

    @Test("round trip: a canonical CSV through an identity context is itself, byte for byte", arguments: [1, 2])
    func roundTrip(workers: Int) throws {
        let input = Self.canonicalCSV(rows: 3_000, seed: UInt64(40 + workers))
        let directory = try ToolRunner.directory(with: ["contexts/row.mappings": Self.identity, "in.csv": input])
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try ToolRunner.run(
            ["stream", "--context", "$Row", "--workers", "\(workers)", "--to-format", "csv", "in.csv"], in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == input)
    }

    @Test("--on-issue fail, resumed after each failure, is a run that rejects: lines are the CSV file's")
    func failAndResume() throws {
        let directory = try directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let base = ["stream", "--context", "$R", "--rejects", "rejects.ndjson"]
        let whole = try ToolRunner.run(base + ["rows.csv"], in: directory)
        let wholeRejects = try String(contentsOf: directory.appendingPathComponent("rejects.ndjson"), encoding: .utf8)
        var stdout = ""
        var resume: String?
        var places: [String] = []
        for _ in 0..<5 {
            let result = try ToolRunner.run(
                base + ["--on-issue", "fail"] + (resume.map { ["--resume-from", $0] } ?? []) + ["rows.csv"],
                in: directory)
            stdout += result.stdout
            guard let range = result.stderr.range(of: "resume with --resume-from ") else { break }
            resume = String(result.stderr[range.upperBound...].prefix { $0 != "\n" })
            places.append(resume!)
        }
        #expect(places == ["rows.csv:7", "rows.csv:8"])
        #expect(stdout == whole.stdout)
        // The first run started the rejects afresh, each resumed one appended its reject: the whole run's.
        let rejects = try String(contentsOf: directory.appendingPathComponent("rejects.ndjson"), encoding: .utf8)
        #expect(rejects == wholeRejects)
    }

    /// Rows with quoted line feeds, ragged rows and values that do not convert, `count` of them.
    static func bigCSV(rows count: Int) -> String {
        var random = SeededGenerator(seed: 0xB16)
        var text = "id,name,score,ok\r\n"
        for index in 0..<count {
            switch index % 211 {
            case 7: text += "\(index),ragged\r\n"
            case 9: text += "x\(index),bad,1,yes\r\n"
            default:
                let name = ["Ann", "\"Smith, Bob\"", "\"two\r\nlines\"", "", "\"say \"\"hi\"\"\""].randomElement(
                    using: &random)!
                text +=
                    "\(index),\(name),\(Int.random(in: 0...999, using: &random)).5,\(Bool.random(using: &random))\r\n"
            }
        }
        return text
    }

    @Test("SIGTERM at random moments in a CSV input, resumed where each run says: each row written or rejected once")
    func stopsAndResumes() throws {
        let directory = try directory(["big.csv": Self.bigCSV(rows: 40_000)])
        defer { try? FileManager.default.removeItem(at: directory) }
        let whole = try StreamResumeTests.run(["--workers", "2", "big.csv"], in: directory, run: 0)
        #expect(whole.resume == nil)
        var random = SeededGenerator(seed: 0xC5F5)
        var stdout = ""
        var rejects = ""
        var resume: String?
        for number in 1...6 {
            let delay = Duration.milliseconds(Int.random(in: 150...600, using: &random))
            let outcome = try StreamResumeTests.run(
                ["--workers", "2"] + (resume.map { ["--resume-from", $0] } ?? []) + ["big.csv"], in: directory,
                stopAfter: number < 6 ? delay : nil, run: number)
            stdout += outcome.stdout
            rejects += outcome.rejects
            // A stopped CSV run's place is a line, without a byte offset.
            if let place = outcome.stats["resume"] as? [String: Any] { #expect(place["offset"] is NSNull) }
            guard let next = outcome.resume else { break }
            resume = next
        }
        // A row still mapping when a stop's grace ran out is rejected as interrupted, never written.
        var interrupted: Set<String> = []
        var kept: [Substring] = []
        for line in rejects.split(separator: "\n") {
            guard line.contains(#"{"kind":"interrupted""#) else {
                kept.append(line)
                continue
            }
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            let input = try JSONSerialization.jsonObject(with: Data(((object?["input"] as? String) ?? "").utf8))
            interrupted.insert(((input as? [String: Any])?["id"] as? String) ?? "")
        }
        #expect(kept.map { $0 + "\n" }.joined() == whole.rejects)
        let expected = whole.stdout.split(separator: "\n").filter { line in
            !interrupted.contains { line.hasPrefix("{\"id\":\($0),") }
        }
        #expect(stdout.split(separator: "\n") == expected)
    }

    @Test("a stopped CSV stream's stats name its line, with no offset; --resume-from the stats goes on there")
    func resumeFromStats() throws {
        let directory = try directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try ToolRunner.run(
            ["stream", "--context", "$R", "--on-issue", "fail", "--stats", "stats.json", "rows.csv"], in: directory)
        #expect(first.stdout.split(separator: "\n").count == 3)
        let stats =
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: directory.appendingPathComponent("stats.json"))) as? [String: Any]
        let place = stats?["resume"] as? [String: Any]
        #expect(place?["line"] as? Int == 7)
        #expect(place?["offset"] is NSNull)
        let second = try ToolRunner.run(
            ["stream", "--context", "$R", "--resume-from", "stats.json", "rows.csv"], in: directory)
        #expect(second.stdout == "{\"id\":6,\"name\":null,\"score\":2,\"ok\":true}\n", "\(second.stderr)")
        #expect(second.stderr.hasSuffix("read 2, written 1, rejected 1\n"), "\(second.stderr)")
    }

    @Test("a header that cannot be read ends the input with exit 2, naming the byte; a format not built in is refused")
    func refusals() throws {
        let directory = try directory(["dup.csv": "id,id\n1,2\n", "rows.pb": "\u{2}\u{8}\u{1}"])
        defer { try? FileManager.default.removeItem(at: directory) }
        let dup = try ToolRunner.run(["stream", "--context", "$R", "dup.csv"], in: directory)
        #expect(dup.status == 2)
        #expect(
            dup.stderr.contains(
                #"error: mappings stream: dup.csv is not csv past byte 0: the header names the column "id" twice: name every column once"#
            ), "\(dup.stderr)")
        // (Avro is built in: AvroFormatCommandTests.)
        let protobuf = try ToolRunner.run(["stream", "--context", "$R", "rows.pb"], in: directory)
        #expect(protobuf.status == 2)
        #expect(
            protobuf.stderr.contains("rows.pb: reading protobuf is not built into this mappings yet"),
            "\(protobuf.stderr)")
        #expect(protobuf.stdout.isEmpty)
        let both = try ToolRunner.run(
            ["stream", "--context", "$R", "--to-format", "csv", "--spark-frames", "rows.csv"], in: directory)
        #expect(both.status == 64 || both.status == 2)
        #expect(both.stderr.contains("--to-format writes stdout: drop --spark-frames"), "\(both.stderr)")
        let job = try ToolRunner.run(
            ["stream", "--context", "$R", "--to", "sqlite:db.sqlite", "--create-tables", "--job", "j", "rows.csv"],
            in: directory)
        #expect(job.status == 2)
        #expect(job.stderr.contains("a job follows JSON lines inputs only"), "\(job.stderr)")
    }

    @Test("map: every row on the record path, one JSON line each, issues after the row's place; --to-format csv")
    func map() throws {
        let directory = try directory(["one.json": #"{"id": "7", "name": "x,y"}"#])
        defer { try? FileManager.default.removeItem(at: directory) }
        let lines = try ToolRunner.run(["map", "--context", "$R", "rows.csv"], in: directory)
        #expect(lines.status == 1)
        #expect(lines.stdout.split(separator: "\n").count == 5)
        #expect(lines.stdout.contains(#"{"id":null,"name":"bad","score":1,"ok":true}"#))
        #expect(lines.stderr.contains("rows.csv:6: $.id: expected Int"), "\(lines.stderr)")
        #expect(lines.stderr.contains("rows.csv:7: $: the row has 2 fields, the header 4"), "\(lines.stderr)")
        let csv = try ToolRunner.run(["map", "--context", "$R", "--to-format", "csv", "one.json"], in: directory)
        #expect(csv.status == 0, "\(csv.stderr)")
        #expect(csv.stdout == "id,name,score,ok\r\n7,\"x,y\",,\r\n")
    }
}
