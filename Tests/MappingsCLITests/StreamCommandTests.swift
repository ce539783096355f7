import Foundation
import MappingsTestSupport
import Testing

/// `mappings stream` as a process: thousands of records with bad lines mixed in.
@Suite("mappings stream, as a process")
struct StreamCommandTests {
    /// Contexts and a script: `score` goes through Lua, which fails on negatives and loops on 999.
    static let files: [String: String] = [
        "contexts/records.mappings": """
        {
            "@models": { "Record": { "id": "Int", "name": "String", "score": "Int", "tags": "[String]" } },
            "$Record": {
                "@class": "Record",
                "id": "id",
                "name": "name",
                "score": { "@keyPath": "score", "@transformClass": "Score", "@transformSelector": "double" },
                "tags": { "@keyPath": "tags", "@optional": true }
            }
        }
        """,
        "scripts/Score.lua": """
        return { double = function(n)
            if n == 999 then while true do end end
            if n < 0 then return nil, "negative score " .. n end
            return n * 2
        end }
        """,
    ]

    /// What a record line is, and what it should become.
    enum Kind { case good, badJSON, missingName, negative, looping }

    static func kind(of index: Int) -> Kind {
        if index % 97 == 13 { return .badJSON }
        if index % 89 == 7 { return .missingName }
        if index % 83 == 5 { return .negative }
        if index % 211 == 17 { return .looping }
        return .good
    }

    static func line(_ index: Int) -> String {
        switch kind(of: index) {
        case .good: #"{"id": \#(index), "name": "r\#(index)", "score": \#(index % 50), "tags": ["a"]}"#
        case .badJSON: #"{"id": \#(index), "name": "#
        case .missingName: #"{"id": \#(index), "score": 1}"#
        case .negative: #"{"id": \#(index), "name": "n", "score": -\#(index)}"#
        case .looping: #"{"id": \#(index), "name": "l", "score": 999}"#
        }
    }

    @Test("thousands of records: exactly the good ones written in order, every bad one rejected with its line")
    func thousands() throws {
        let count = 3000
        var files = Self.files
        files["in.ndjson"] = (0..<count).map(Self.line).joined(separator: "\n") + "\n"
        let directory = try ToolRunner.directory(with: files)
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try ToolRunner.run(
            [
                "stream", "--context", "$Record", "--rejects", "rejects.ndjson", "--stats", "stats.json",
                "--lua-budget", "20000", "--workers", "2", "in.ndjson",
            ], in: directory)
        let good = (0..<count).filter { Self.kind(of: $0) == .good }
        let expected = good.map { #"{"id":\#($0),"name":"r\#($0)","score":\#(($0 % 50) * 2),"tags":["a"]}"# }
        #expect(result.status == 1)
        #expect(result.stdout == expected.joined(separator: "\n") + "\n")
        let rejects = try String(contentsOf: directory.appendingPathComponent("rejects.ndjson"), encoding: .utf8)
            .split(separator: "\n")
        let bad = (0..<count).filter { Self.kind(of: $0) != .good }
        #expect(rejects.count == bad.count)
        for (line, index) in zip(rejects, bad) {
            #expect(line.hasPrefix(#"{"file":"in.ndjson","line":\#(index + 1),"input":"#))
            switch Self.kind(of: index) {
            case .badJSON: #expect(line.contains(#""kind":"invalid JSON""#))
            case .missingName: #expect(line.contains(#""path":"$.name""#))
            case .negative: #expect(line.contains("negative score -\(index)"))
            case .looping: #expect(line.contains("ran out of its instruction budget"))
            case .good: Issue.record("a good record was rejected")
            }
        }
        #expect(
            result.stderr
                == "mappings stream: read \(count), written \(good.count), rejected \(bad.count)\n")
        let stats = try String(contentsOf: directory.appendingPathComponent("stats.json"), encoding: .utf8)
        let invalid = bad.filter { Self.kind(of: $0) == .badJSON }.count
        let size = try Data(contentsOf: directory.appendingPathComponent("in.ndjson")).count
        // The counts come first; StreamStatsTests checks what follows them.
        #expect(
            stats.hasPrefix(
                #"{"read":\#(count),"written":\#(good.count),"rejected":\#(bad.count),"filtered":0,"withIssues":0,"invalid":\#(invalid),"unprocessed":0,"interrupted":0,"stopped":"end of input","resume":null,"inputs":[{"file":"in.ndjson","size":\#(size)}],"running":false,"issues":{"invalid JSON":\#(invalid),"#
            ))
    }

    @Test("--on-issue emit writes every record and the issues to stderr; fail stops at the first")
    func policies() throws {
        var files = Self.files
        files["in.ndjson"] = [Self.line(0), Self.line(7), Self.line(1)].joined(separator: "\n") + "\n"
        let directory = try ToolRunner.directory(with: files)
        defer { try? FileManager.default.removeItem(at: directory) }
        let emit = try ToolRunner.run(
            ["stream", "--context", "$Record", "--on-issue", "emit", "in.ndjson"], in: directory)
        #expect(emit.status == 1)
        #expect(emit.stdout.split(separator: "\n").count == 3)
        #expect(
            emit.stderr == """
                in.ndjson:2: $.name: missing required value for Record.name (contexts/records.mappings:6)
                mappings stream: read 3, written 3, rejected 0 (1 written with issues)

                """)
        let fail = try ToolRunner.run(
            ["stream", "--context", "$Record", "--on-issue", "fail"], in: directory, input: files["in.ndjson"]!)
        #expect(fail.status == 1)
        #expect(fail.stdout.split(separator: "\n").count == 1)
        #expect(
            fail.stderr.hasSuffix(
                "mappings stream: read 3, written 1, rejected 1, not processed 1, stopped by the first record with issues (--on-issue fail); resume with --resume-from -:3\n"
            ))
    }

    @Test("SIGTERM in the middle: records in flight are finished, and read = written + rejected + unprocessed")
    func sigterm() throws {
        var files = Self.files
        files["scripts/Score.lua"] = """
            return { double = function(n) local s = 0 for i = 1, 20000 do s = s + i end return n * 2 end }
            """
        let directory = try ToolRunner.directory(with: files)
        defer { try? FileManager.default.removeItem(at: directory) }
        let (process, stdin, stdout, stderr) = try ToolRunner.start(
            ["stream", "--context", "$Record", "--stats", "stats.json"], in: directory)
        let count = 20_000
        let input = (0..<count).map { #"{"id": \#($0), "name": "r", "score": 1}"# }.joined(separator: "\n") + "\n"
        signal(SIGPIPE, SIG_IGN)  // the tool stops reading; writing the rest must fail, not kill the tests
        let writer = Thread {
            try? stdin.fileHandleForWriting.write(contentsOf: Data(input.utf8))
            try? stdin.fileHandleForWriting.close()
        }
        writer.start()
        Thread.sleep(forTimeInterval: 0.5)
        process.terminate()  // SIGTERM
        let out = stdout.fileHandleForReading.readDataToEndOfFile()
        let err = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let lines = String(decoding: out, as: UTF8.self).split(separator: "\n")
        let stats =
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: directory.appendingPathComponent("stats.json"))) as? [String: Any]
        let read = stats?["read"] as? Int ?? -1
        let written = stats?["written"] as? Int ?? -1
        let rejected = stats?["rejected"] as? Int ?? -1
        let unprocessed = stats?["unprocessed"] as? Int ?? -1
        #expect(read == written + rejected + unprocessed)
        // What was read in whole blocks is accounted; the stop came before all of it was written.
        #expect(read > 0 && written < count, "read \(read), written \(written) of \(count)")
        #expect(lines.count == written)
        #expect(lines.enumerated().allSatisfy { $0.element.hasPrefix(#"{"id":\#($0.offset),"#) })
        #expect(stats?["stopped"] as? String == "SIGTERM")
        #expect(err.contains(", stopped by SIGTERM; resume with --resume-from -:"), "\(err)")
    }

    @Test("--watch: edits are picked up between records; a broken edit or failing @tests keeps the old version")
    func reload() throws {
        /// The context, reading `name` from `key`, with `tests` after its entries.
        func context(name key: String, tests: String = "") -> String {
            """
            { "@models": { "R": { "name": "String", "score": "Int" } },
              "$R": { "@class": "R", "name": "\(key)",
                      "score": { "@keyPath": "score", "@transformClass": "Score", "@transformSelector": "f" }\(tests) } }
            """
        }
        /// Tests that expect `score` for a score of 1.
        func tests(expecting score: Int) -> String {
            #", "@tests": [ { "input": { "name": "x", "score": 1 }, "output": { "name": "x", "score": \#(score) } } ]"#
        }
        let directory = try ToolRunner.directory(with: [
            "contexts/r.mappings": context(name: "name"),
            "scripts/Score.lua": "return { f = function(n) return n * 2 end }",
        ])
        func write(_ name: String, _ text: String) throws {
            try Data(text.utf8).write(to: directory.appendingPathComponent(name))
        }
        defer { try? FileManager.default.removeItem(at: directory) }
        let (process, stdin, stdout, stderr) = try ToolRunner.start(
            ["stream", "--context", "$R", "--watch"], in: directory)
        let exchange = LineExchange(stdin: stdin, stdout: stdout)
        func send(_ record: String) -> String { exchange.send(record) }
        let pause = 0.4
        #expect(send(#"{"name": "a", "label": "A", "score": 1}"#) == #"{"name":"a","score":2}"#)
        // A context edit and a script edit together: version 2.
        try write("contexts/r.mappings", context(name: "label"))
        try write("scripts/Score.lua", "return { f = function(n) return n * 3 end }")
        Thread.sleep(forTimeInterval: pause)
        #expect(send(#"{"name": "b", "label": "B", "score": 1}"#) == #"{"name":"B","score":3}"#)
        // A syntax error: refused, version 2 keeps serving.
        try write("contexts/r.mappings", "{ \"$R\": ")
        Thread.sleep(forTimeInterval: pause)
        #expect(send(#"{"name": "c", "label": "C", "score": 1}"#) == #"{"name":"C","score":3}"#)
        // Failing tests: refused too.
        try write("contexts/r.mappings", context(name: "name", tests: tests(expecting: 99)))
        Thread.sleep(forTimeInterval: pause)
        #expect(send(#"{"name": "d", "label": "D", "score": 1}"#) == #"{"name":"D","score":3}"#)
        // A fixed edit with passing tests: version 3.
        try write("contexts/r.mappings", context(name: "name", tests: tests(expecting: 3)))
        Thread.sleep(forTimeInterval: pause)
        #expect(send(#"{"name": "e", "label": "E", "score": 2}"#) == #"{"name":"e","score":6}"#)
        try stdin.fileHandleForWriting.close()
        let log = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(log.contains("mappings stream: now mapping with version 2 (after record 1)"))
        #expect(log.contains("mappings stream: a reload was refused, still mapping with version 2:\nerror:"))
        #expect(
            log.contains("the contexts' tests fail:\n$R test 1 (contexts/r.mappings:3)\n  $.score: expected 99, got 3"))
        #expect(log.contains("mappings stream: now mapping with version 3 (after record 4)"))
        #expect(log.hasSuffix("mappings stream: read 5, written 5, rejected 0\n"))
    }
}
