import Foundation
import MappingsTestSupport
import Testing

/// Lookup tables through the tool: `check`'s diagnostics in the table's file, `map`'s issue for a
/// key with no row, `stream` in both isolations, `serialize` leaving `@lookup` entries out.
@Suite("lookup tables, through the tool")
struct LookupTableCommandTests {
    static let example = [
        "--mappings", "Examples/enrichment/contexts", "--scripts", "Examples/enrichment/scripts", "--context",
        "$Status",
    ]
    static let status =
        #"{"id_str":"7","text":"t","lang":"ja","source":"<a href=\"https://mobile.twitter.com\">Web</a>"}"#

    @Test("check: the lookup tables, their rows and their memory in the summary")
    func checkSummary() throws {
        let result = try ToolRunner.run(["check"] + Self.example.dropLast(2))
        #expect(
            result.stdout.wholeMatch(
                of: #/ok: 1 context, 2 models and 2 lookup tables \(10 rows, \d+ bytes in memory\) in 1 file\n/#)
                != nil,
            "\(result.stdout)")
        #expect(result.status == 0)
    }

    @Test("map: a cell of a CSV table and a row a script read; exit 0")
    func map() throws {
        let result = try ToolRunner.run(["map"] + Self.example, input: Self.status)
        #expect(result.stderr == "")
        #expect(
            result.stdout
                == #"{"id":"7","text":"t","language":"Japanese","nativeName":"日本語","app":{"name":"Twitter Web App","platform":"Web"}}"#
                + "\n")
        #expect(result.status == 0)
    }

    @Test("map: a key with no row is a missing required value naming the key, the table and the rule; exit 1")
    func missingRow() throws {
        let result = try ToolRunner.run(
            ["map"] + Self.example, input: Self.status.replacingOccurrences(of: #""ja""#, with: #""xx""#))
        #expect(result.status == 1)
        #expect(
            result.stderr
                == #"$.lang: missing required value for Status.language: no row of the table languages has the key "xx" (@lookup languages.name) (Examples/enrichment/contexts/statuses.mappings:23)"#
                + "\n")
    }

    @Test("stream: the same records in process and in two worker processes", arguments: ["none", "process"])
    func stream(isolation: String) throws {
        let result = try ToolRunner.run(
            ["stream", "--lua-isolation", isolation, "--workers", "2"] + Self.example
                + ["Examples/enrichment/statuses.ndjson"])
        #expect(result.status == 1)
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 4)
        #expect(lines[1].contains(#""language":"French","nativeName":"français","app":{"name":"Twitter for iPhone""#))
        #expect(result.stderr.contains("mappings stream: read 5, written 4, rejected 1"), "\(result.stderr)")
    }

    @Test("serialize leaves the @lookup entries out, and writes the others back")
    func serialize() throws {
        let mapped = try ToolRunner.run(["map"] + Self.example, input: Self.status)
        let back = try ToolRunner.run(["serialize"] + Self.example, input: mapped.stdout)
        #expect(back.stderr == "")
        #expect(back.stdout.hasPrefix(#"{"id_str":"7","text":"t""#), "\(back.stdout)")
        #expect(!back.stdout.contains("lang"), "\(back.stdout)")
    }

    @Test(
        "check: a table's problems at their lines in its file, with the .mappings file's place for the others; exit 2")
    func check() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tables-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("tables"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("code,name\r\nFR,France\r\nDE,\"Germ\"any\r\n".utf8).write(
            to: folder.appendingPathComponent("tables/countries.csv"))
        try Data([UInt8]("code,name\nFR,Fr".utf8) + [0xFF] + [UInt8]("ance\n".utf8)).write(
            to: folder.appendingPathComponent("tables/bytes.csv"))
        try Data(
            #"{ "@tables": { "countries": { "file": "tables/countries.csv", "key": "code" }, "cities": { "file": "tables/cities.csv", "key": "id" }, "bytes": { "file": "tables/bytes.csv", "key": "code" } } }"#
                .utf8
        ).write(to: folder.appendingPathComponent("main.mappings"))
        let result = try ToolRunner.run(["check", "--mappings", "main.mappings"], in: folder)
        #expect(result.status == 2)
        #expect(result.stdout == "")
        #expect(
            result.stderr.contains(
                """
                error: the table countries is not CSV: text after a closing quote (a field is quoted whole)
                 --> tables/countries.csv:3:10
                  |
                3 | DE,"Germ"any
                  |          ^
                """), "\(result.stderr)")
        #expect(
            result.stderr.contains(
                #"error: cannot read the table file "tables/cities.csv" of the table cities: No such file or directory"#
            ))
        #expect(result.stderr.contains("= help: the path is relative to the .mappings file that declares the table"))
        #expect(
            result.stderr.contains(
                "error: the table bytes is not CSV: a field that is not UTF-8\n --> tables/bytes.csv:2:4\n"),
            "\(result.stderr)")
    }

    @Test("a table of a SQLite database file: its cells as SQLite holds them; a missing table with a suggestion")
    func sqlite() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tables-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let made = try ToolRunner.runProgram(
            URL(fileURLWithPath: "/usr/bin/sqlite3"),
            [
                folder.appendingPathComponent("geo.db").path,
                "CREATE TABLE places (code TEXT, name TEXT, lat REAL, pop INTEGER);"
                    + "INSERT INTO places VALUES ('FR', 'France', 46.5, 67000000), ('DE', 'Germany', 51.25, NULL);",
            ])
        #expect(made.status == 0, "\(made.stderr)")
        func write(_ table: String) throws {
            try Data(
                """
                { "@tables": { "places": { "file": "geo.db", "table": "\(table)", "key": "code" } },
                  "$P": { "name": { "@keyPath": "cc", "@lookup": "places.name" },
                          "lat": { "@keyPath": "cc", "@lookup": "places.lat", "@type": "Double" },
                          "pop": { "@keyPath": "cc", "@lookup": "places.pop", "@type": "Int", "@optional": true } } }
                """.utf8
            ).write(to: folder.appendingPathComponent("main.mappings"))
        }
        try write("places")
        let map = try ToolRunner.run(
            ["stream", "--mappings", "main.mappings", "--context", "$P"], in: folder,
            input: #"{"cc":"FR"}"# + "\n" + #"{"cc":"DE"}"# + "\n" + #"{"cc":"ES"}"# + "\n")
        #expect(
            map.stdout == #"{"name":"France","lat":46.5,"pop":67000000}"# + "\n" + #"{"name":"Germany","lat":51.25}"#
                + "\n")
        #expect(map.stderr.contains(#"no row of the table places has the key "ES""#), "\(map.stderr)")
        try write("place")
        let check = try ToolRunner.run(["check", "--mappings", "main.mappings"], in: folder)
        #expect(check.status == 2)
        // The error points at the table's name, not at the file (which is there).
        #expect(
            check.stderr.hasPrefix(
                """
                error: cannot read the table "place" of the database "geo.db" (the table places): no such table: place
                 --> main.mappings:1:55
                  |
                1 | { "@tables": { "places": { "file": "geo.db", "table": "place", "key": "code" } },
                  |                                                       ^^^^^^^
                  = help: did you mean "places"?
                """),
            "\(check.stderr)")
    }

    @Test("--max-table-memory: a table past it is an error naming the table, its file and its size; exit 2")
    func memoryCap() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tables-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let rows = (0..<40_000).map { "K\($0),Name \($0)\n" }.joined()
        try Data(("code,name\n" + rows).utf8).write(to: folder.appendingPathComponent("big.csv"))
        try Data(#"{ "@tables": { "big": { "file": "big.csv", "key": "code" } }, "$A": { "x": "x" } }"#.utf8).write(
            to: folder.appendingPathComponent("main.mappings"))
        let fits = try ToolRunner.run(["check", "--mappings", "main.mappings"], in: folder)
        #expect(fits.status == 0, "\(fits.stderr)")
        #expect(
            fits.stdout.wholeMatch(
                of: #/ok: 1 context, 0 models and 1 lookup table \(40000 rows, 1\.\d MiB in memory\) in 1 file\n/#)
                != nil,
            "\(fits.stdout)")
        for command in [["check"], ["map", "--context", "$A"], ["stream", "--context", "$A"]] {
            let over = try ToolRunner.run(
                command + ["--mappings", "main.mappings", "--max-table-memory", "1"], in: folder, input: "{}\n")
            #expect(over.status == 2, "\(command)")
            #expect(
                over.stderr.wholeMatch(
                    of:
                        #/error: the table big \(big\.csv, 40000 rows\) takes 1\.\d MiB in memory: past the tables' cap of 1\.0 MiB \(--max-table-memory\)\n --> main\.mappings:1:16\n(.|\n)*/#
                )
                    != nil, "\(over.stderr)")
        }
        let range = try ToolRunner.run(["check", "--mappings", "main.mappings", "--max-table-memory", "0"], in: folder)
        #expect(range.status == 64 || range.status == 2, "\(range.status)")
        #expect(range.stderr.contains("--max-table-memory"), "\(range.stderr)")
    }

    @Test("log shows a row as its cells, and a nested value of one as the value")
    func loggedRow() throws {
        let folder = try ToolRunner.directory(with: [
            "contexts/main.mappings": """
            { "@tables": { "t": { "file": "t.jsonl", "key": "id" } },
              "$A": { "x": { "@keyPath": "k", "@transformClass": "L", "@transformSelector": "show" } } }
            """,
            "contexts/t.jsonl": #"{"id": "a", "tags": ["x", "y"]}"# + "\n",
            "scripts/L.lua": """
            local M = {}
            function M.show(k) local row = tables.t[k]; log(row, row.tags); return row.id end
            return M
            """,
        ])
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try ToolRunner.run(
            ["map", "--context", "$A", "--mappings", "contexts", "--scripts", "scripts"], in: folder,
            input: #"{"k": "a"}"#)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains(#""x":"a""#), "\(result.stdout)")
        #expect(result.stderr.contains(#"{id="a", tags={"x", "y"}}"#), "\(result.stderr)")
        #expect(result.stderr.contains(#"{"x", "y"}"#), "\(result.stderr)")
    }
}
