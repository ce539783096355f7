import Foundation
import MappingsTestSupport
import Testing

/// `mappings init` on payloads it was not written for — a USGS earthquake feed, a Stripe
/// `invoice.paid` event (Golden/init/, written by hand after the real ones) — saying what its
/// types rest on, spreading a sample over a large file, writing a table's context, and
/// writing all or nothing.
extension InitCommandTests {
    static let golden = ToolRunner.packageRoot.appendingPathComponent("Tests/MappingsCLITests/Golden/init")

    static func fixture(_ name: String) throws -> String {
        try String(contentsOf: golden.appendingPathComponent(name), encoding: .utf8)
    }

    static func read(_ path: String, in directory: URL) throws -> String {
        try String(contentsOf: directory.appendingPathComponent(path), encoding: .utf8)
    }

    /// 1,000 features of the USGS feed, one a line: `gap` whole in the first half and with a
    /// fraction in the second, `rms` null in every second record of the second half.
    static func quakes() throws -> String {
        let collection = try JSONSerialization.jsonObject(with: Data(try fixture("usgs-2.5_day.geojson").utf8))
        let features = try #require((collection as? [String: Any])?["features"] as? [[String: Any]])
        var lines: [String] = []
        for index in 0..<1000 {
            var feature = features[index % features.count]
            var properties = try #require(feature["properties"] as? [String: Any])
            properties["gap"] = index < 500 ? Double(20 + index % 200) : 20.5 + Double(index % 200)
            properties["rms"] = index >= 500 && index % 2 == 0 ? NSNull() : 0.25
            properties["time"] = 1_733_540_000_000 + index * 60_000
            feature["properties"] = properties
            feature["id"] = "us7000q\(index)"
            let data = try JSONSerialization.data(withJSONObject: feature, options: [.sortedKeys])
            lines.append(String(decoding: data, as: UTF8.self))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    @Test("a USGS feed: dates in milliseconds, nulls said, the files test and map it")
    func usgsFeed() throws {
        let directory = try ToolRunner.directory(with: ["usgs.geojson": try Self.fixture("usgs-2.5_day.geojson")])
        defer { try? FileManager.default.removeItem(at: directory) }
        let made = try ToolRunner.run(["init", "--from", "usgs.geojson", "--model", "Quakes"], in: directory)
        #expect(made.status == 0, "\(made)")
        let models = try Self.read("contexts/models.mappings", in: directory)
        for declared in [#""time": "Date""#, #""updated": "Date""#, #""tz": "JSON?""#, #""gap": "Int""#] {
            #expect(models.contains(declared), "\(declared) in \(models)")
        }
        #expect(
            made.stderr.contains(
                "note: typed from 1 record: every type rests on one value — a larger sample makes the types surer"),
            "\(made)")
        #expect(made.stderr.contains("Properties.tz (only null: JSON?, any value)"), "\(made)")
        #expect(try ToolRunner.run(["test"], in: directory).status == 0)
        let mapped = try ToolRunner.run(["map", "--context", "$Quakes", "usgs.geojson"], in: directory)
        #expect(mapped.status == 0 && mapped.stdout.contains(#""time":"2024-12-07T08:46:52.345Z""#), "\(mapped)")
    }

    @Test("--sample 12 spreads over 1,000 records: the types hold for every one, unlike the first 12")
    func spreadSample() throws {
        let quakes = try Self.quakes()
        let first12 = quakes.split(separator: "\n").prefix(12).joined(separator: "\n") + "\n"
        let directory = try ToolRunner.directory(with: ["quakes.ndjson": quakes])
        defer { try? FileManager.default.removeItem(at: directory) }

        let head = try ToolRunner.run(
            ["init", "--from", "-", "--model", "Quake", "--dir", "head"], in: directory, input: first12)
        #expect(head.status == 0, "\(head)")
        #expect(head.stderr.contains("note: typed from 12 records\n"), "\(head)")
        #expect(head.stderr.contains("Properties.tz (only null: JSON?, any value)"), "\(head)")
        #expect(
            head.stderr.contains(
                "Properties.felt (Int from 3 values, null or missing in 9: optional; a fraction elsewhere would need Double)"
            ),
            "\(head)")
        // Through files: the rejects said on stderr are more than a pipe holds.
        let streamedHead = try ToolRunner.runProgram(
            ToolRunner.executable, ["stream", "--mappings", "head/contexts", "--context", "$Quake", "quakes.ndjson"],
            in: directory)
        #expect(
            streamedHead.status == 1, "the first 12 records type gap as Int and rms as Double: \(streamedHead.stderr)")

        let spread = try ToolRunner.run(
            ["init", "--from", "quakes.ndjson", "--sample", "12", "--model", "Quake", "--dir", "spread"], in: directory)
        #expect(spread.status == 0, "\(spread)")
        #expect(spread.stderr.contains("note: typed from 12 records (spread over a file of "), "\(spread)")
        let models = try Self.read("spread/contexts/models.mappings", in: directory)
        #expect(models.contains(#""gap": "Double""#) && models.contains(#""rms": "Double?""#), "\(models)")
        let streamed = try ToolRunner.runProgram(
            ToolRunner.executable, ["stream", "--mappings", "spread/contexts", "--context", "$Quake", "quakes.ndjson"],
            in: directory)
        #expect(streamed.status == 0, "\(streamed.stderr)")
        #expect(streamed.stdout.split(separator: "\n").count == 1000)

        let whole = try ToolRunner.run(["init", "--from", "quakes.ndjson", "--dir", "whole"], in: directory)
        #expect(whole.status == 0 && whole.stderr.contains("note: typed from 1,000 records\n"), "\(whole)")
    }

    @Test("--for sqlite: one flat model, nested fields by key path, collections as JSON, @identity id; stream fills it")
    func sqliteTable() throws {
        let directory = try ToolRunner.directory(with: ["quakes.ndjson": try Self.quakes()])
        defer { try? FileManager.default.removeItem(at: directory) }
        let made = try ToolRunner.run(
            ["init", "--from", "quakes.ndjson", "--for", "sqlite", "--model", "Quake"], in: directory)
        #expect(made.status == 0, "\(made)")
        #expect(made.stdout.contains("wrote ./contexts/models.mappings (1 model: Quake)"), "\(made)")
        #expect(made.stdout.contains("wrote ./contexts/Quake.mappings ($Quake, @identity id, "), "\(made)")
        #expect(
            made.stdout.contains(
                "mappings stream --to sqlite:quake.db --create-tables --context '$Quake' quakes.ndjson"), "\(made)")
        let context = try Self.read("contexts/Quake.mappings", in: directory)
        #expect(context.contains(#""propertiesMag": "properties.mag""#), "\(context)")
        #expect(context.contains(#""geometryCoordinates": "geometry.coordinates""#), "\(context)")
        let schema = try ToolRunner.run(
            ["schema", "--format", "sql", "--dialect", "sqlite", "--context", "$Quake"], in: directory)
        #expect(schema.status == 0, "\(schema)")
        for column in [
            #""properties_mag" REAL NOT NULL"#, #""properties_time" TEXT NOT NULL"#, #""properties_rms" REAL,"#,
            #""geometry_coordinates" TEXT NOT NULL"#, #"PRIMARY KEY ("id")"#,
        ] {
            #expect(schema.stdout.contains(column), "\(column) in \(schema.stdout)")
        }
        let streamed = try ToolRunner.run(
            ["stream", "--to", "sqlite:quake.db", "--create-tables", "--context", "$Quake", "quakes.ndjson"],
            in: directory)
        #expect(streamed.status == 0 && streamed.stderr.contains("written 1000"), "\(streamed)")
    }

    @Test("a Stripe invoice.paid event: api_version stays a String, period_start and period_end are dates")
    func stripeEvent() throws {
        let directory = try ToolRunner.directory(with: [
            "invoice.paid.json": try Self.fixture("stripe-invoice.paid.json")
        ])
        defer { try? FileManager.default.removeItem(at: directory) }
        let made = try ToolRunner.run(["init", "--from", "invoice.paid.json", "--model", "Event"], in: directory)
        #expect(made.status == 0, "\(made)")
        let models = try Self.read("contexts/models.mappings", in: directory)
        for declared in [
            #""apiVersion": "String""#, #""created": "Date""#, #""periodEnd": "Date""#, #""periodStart": "Date""#,
            #""dueDate": "JSON?""#, #""metadata": "JSON""#,
        ] {
            #expect(models.contains(declared), "\(declared) in \(models)")
        }
        #expect(try ToolRunner.run(["test"], in: directory).status == 0)

        let table = try ToolRunner.run(
            ["init", "--from", "invoice.paid.json", "--model", "Event", "--for", "postgresql", "--dir", "table"],
            in: directory)
        #expect(table.status == 0, "\(table)")
        let schema = try ToolRunner.run(
            [
                "schema", "--format", "sql", "--dialect", "postgresql", "--mappings", "table/contexts", "--context",
                "$Event",
            ], in: directory)
        for column in [
            #""api_version" text NOT NULL"#, #""data_object_period_start" timestamptz NOT NULL"#,
            #""data_object_lines_data" jsonb NOT NULL"#, #"PRIMARY KEY ("id")"#,
        ] {
            #expect(schema.stdout.contains(column), "\(column) in \(schema)")
        }
        #expect(
            try ToolRunner.run(["test", "--mappings", "table/contexts", "--scripts", "table/scripts"], in: directory)
                .status == 0)
    }

    @Test("keys equal as Unicode but not as bytes are two properties: each value kept")
    func canonicallyEqualKeys() throws {
        let payload = "{\"caf\u{E9}\": 1, \"cafe\u{301}\": 2}"
        let directory = try ToolRunner.directory(with: ["cafe.json": payload])
        defer { try? FileManager.default.removeItem(at: directory) }
        let made = try ToolRunner.run(["init", "--from", "cafe.json"], in: directory)
        #expect(made.status == 0, "\(made)")
        let models = try Self.read("contexts/models.mappings", in: directory)
        #expect(Self.holds(models, "\"caf\u{E9}\": \"Int\""), "\(models)")
        #expect(Self.holds(models, "\"caf\u{E9}2\": \"Int\""), "\(models)")
        let context = try Self.read("contexts/Cafe.mappings", in: directory)
        #expect(Self.holds(context, "\"caf\u{E9}2\": \"cafe\u{301}\""), "\(context)")
        #expect(try ToolRunner.run(["test"], in: directory).status == 0)
        let mapped = try ToolRunner.run(["map", "--context", "$Cafe", "cafe.json"], in: directory)
        #expect(
            Self.holds(mapped.stdout, "\"caf\u{E9}\":1") && Self.holds(mapped.stdout, "\"caf\u{E9}2\":2"), "\(mapped)")
    }

    /// Whether `text` holds the bytes of `part` (`contains` compares by canonical equivalence).
    static func holds(_ text: String, _ part: String) -> Bool {
        Data(text.utf8).range(of: Data(part.utf8)) != nil
    }

    @Test("reasons instead of a bug: a built-in type's name, a key written twice, a column too long, records too deep")
    func reasons() throws {
        let deep = String(repeating: #"{"a":"#, count: 130) + "1" + String(repeating: "}", count: 130)
        let directory = try ToolRunner.directory(with: [
            "twice.ndjson": "{\"id\": 1, \"user\": {\"id\": 2}}\n{\"id\": 2, \"user\": {\"id\": 3, \"id\": 4}}\n",
            "deep.json": "[{\"b\": 1}, \(deep)]",
            "long.json":
                #"{"id": 1, "a_rather_long_object_name_for_testing": {"and_an_even_longer_field_name_inside_it": 1}}"#,
        ])
        defer { try? FileManager.default.removeItem(at: directory) }
        let builtIn = try ToolRunner.run(["init", "--model", "Int"], in: directory)
        #expect(builtIn.status == 2, "\(builtIn)")
        #expect(
            builtIn.stderr.contains("Int is a built-in type: name the model something else, e.g. IntRecord"),
            "\(builtIn)")
        let twice = try ToolRunner.run(["init", "--from", "twice.ndjson"], in: directory)
        #expect(
            twice.status == 2
                && twice.stderr.contains(
                    #"error: line 2 of the sample writes the key "id" twice in $.user: keep one of its values"#),
            "\(twice)")
        let long = try ToolRunner.run(
            ["init", "--from", "long.json", "--for", "postgresql", "--dir", "pg"], in: directory)
        #expect(long.status == 2, "\(long)")
        #expect(
            long.stderr.contains(
                #"error: $Long makes no postgresql table: the column of aRatherLongObjectNameForTestingAndAnEvenLongerFieldNameInsideIt "#
            ), "\(long)")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("pg").path))
        let deeper = try ToolRunner.run(["init", "--from", "deep.json"], in: directory)
        #expect(deeper.status == 0, "\(deeper)")
        #expect(
            deeper.stderr.contains(
                "note: a record nests deeper than 124 levels, which @tests cannot hold (a .mappings file nests at most 128): tests hold the others"
            ),
            "\(deeper)")
        let tests = try ToolRunner.run(["test"], in: directory)
        #expect(tests.status == 0 && tests.stdout.contains("1 passed, 0 failed"), "\(tests)")
        #expect(try ToolRunner.run(["map", "--many", "--context", "$Deep", "deep.json"], in: directory).status == 0)
    }

    @Test("all or nothing: a symbolic link is refused even with --force, a failure leaves no file")
    func atomicWrites() throws {
        let directory = try ToolRunner.directory(with: ["weather.json": Self.weather, "elsewhere/keep.txt": "x"])
        defer { try? FileManager.default.removeItem(at: directory) }
        let manager = FileManager.default
        try manager.createSymbolicLink(
            atPath: directory.appendingPathComponent("contexts").path,
            withDestinationPath: directory.appendingPathComponent("elsewhere").path)
        let linked = try ToolRunner.run(["init", "--from", "weather.json", "--force"], in: directory)
        #expect(linked.status == 2, "\(linked)")
        #expect(linked.stderr.contains("error: ./contexts is a symbolic link (to "), "\(linked)")
        #expect(
            try manager.contentsOfDirectory(atPath: directory.appendingPathComponent("elsewhere").path) == ["keep.txt"])
        #expect(!manager.fileExists(atPath: directory.appendingPathComponent("scripts").path))

        try manager.removeItem(at: directory.appendingPathComponent("contexts"))
        // `scripts` a file: its folder cannot be made, so nothing is written, contexts/ neither.
        try Data("not a folder".utf8).write(to: directory.appendingPathComponent("scripts"))
        let blocked = try ToolRunner.run(["init", "--from", "weather.json"], in: directory)
        #expect(blocked.status == 2 && blocked.stderr.contains("nothing written"), "\(blocked)")
        #expect(!manager.fileExists(atPath: directory.appendingPathComponent("contexts").path))

        try manager.removeItem(at: directory.appendingPathComponent("scripts"))
        #expect(try ToolRunner.run(["init", "--from", "weather.json"], in: directory).status == 0)
        let again = try ToolRunner.run(["init", "--from", "weather.json", "--force"], in: directory)
        #expect(again.status == 0, "\(again)")
        #expect(
            try manager.contentsOfDirectory(atPath: directory.path).sorted() == [
                "contexts", "elsewhere", "scripts", "weather.json",
            ])
    }

    @Test("20,000 keys in a record: init is near-linear (under 20 s in the debug build, on a loaded machine)")
    func manyKeys() throws {
        let members = (0..<20_000).map { "\"key_\($0)\": \($0)" }.joined(separator: ", ")
        let directory = try ToolRunner.directory(with: ["wide.json": "{" + members + "}"])
        defer { try? FileManager.default.removeItem(at: directory) }
        let started = Date()
        let made = try ToolRunner.run(["init", "--from", "wide.json"], in: directory)
        let seconds = Date().timeIntervalSince(started)
        #expect(made.status == 0, "\(made.stderr)")
        #expect(seconds < 20, "init took \(seconds) s on 20,000 keys")
    }
}
