import Foundation
import MappingsTestSupport
import Testing

/// `mappings init` as a new user runs it: a payload they brought becomes a project that
/// `check`, `test`, `map` (or `stream`) and `fmt --check` accept as it is written.
@Suite("mappings init")
struct InitCommandTests {
    static let weather = """
        {"coord": {"lon": -0.13, "lat": 51.51}, "weather": [{"id": 300, "main": "Drizzle", "icon": "09d"}],
         "main": {"temp": 280.32, "pressure": 1012, "temp_min": 279.15}, "rain": {"1h": 0.5, "3h": 1},
         "dt": 1485789600, "sys": {"country": "GB", "sunrise": 1485762037}, "name": "London", "cod": 200}
        """

    static let issues = """
        {"id": 1, "title": "Crash", "user": {"login": "ann"}, "created_at": "2024-03-01T10:00:00Z", "closed_at": null}
        {"id": 2, "title": "Docs", "user": {"login": "bo"}, "created_at": "Fri, 01 Mar 2024 10:00:00 +0000", "labels": ["ui"]}

        """

    @Test("an object payload: the files check, test, map it with exit 0 and are laid out as fmt lays them")
    func objectPayload() throws {
        let directory = try ToolRunner.directory(with: ["weather.json": Self.weather])
        defer { try? FileManager.default.removeItem(at: directory) }
        let made = try ToolRunner.run(["init", "--from", "weather.json"], in: directory)
        #expect(made.status == 0, "\(made)")
        #expect(
            made.stdout.contains("wrote ./contexts/models.mappings (5 models: Weather, Coord, WeatherItem"), "\(made)")
        #expect(made.stdout.contains("mappings map --context '$Weather' weather.json"), "\(made)")
        let models = try String(
            contentsOf: directory.appendingPathComponent("contexts/models.mappings"), encoding: .utf8)
        for declared in [#""rain": "[String: Double]""#, #""dt": "Date""#, #""tempMin": "Double""#, #""_1h""#] {
            #expect(models.contains(declared) != (declared == #""_1h""#), "\(declared) in \(models)")
        }
        let context = try String(
            contentsOf: directory.appendingPathComponent("contexts/Weather.mappings"), encoding: .utf8)
        #expect(context.contains(#""dt": { "@keyPath": "dt", "@dateFormat": "@unixSeconds" }"#), "\(context)")
        #expect(context.contains(#""tempMin": "temp_min""#), "\(context)")
        #expect(
            FileManager.default.fileExists(atPath: directory.appendingPathComponent("scripts/Transformers.lua").path))

        #expect(try ToolRunner.run(["check"], in: directory).status == 0)
        let tests = try ToolRunner.run(["test"], in: directory)
        #expect(tests.status == 0 && tests.stdout.contains("1 passed, 0 failed"), "\(tests)")
        let mapped = try ToolRunner.run(["map", "--context", "$Weather", "weather.json"], in: directory)
        #expect(mapped.status == 0, "\(mapped)")
        #expect(mapped.stdout.contains(#""dt":"2017-01-30T15:20:00Z""#), "\(mapped)")
        #expect(mapped.stdout.contains(#""rain":{"1h":0.5,"3h":1}"#), "\(mapped)")
        let layout = try ToolRunner.run(["fmt", "--check"], in: directory)
        #expect(layout.status == 0 && layout.stdout.isEmpty, "\(layout)")
    }

    @Test("NDJSON from stdin: optional keys, dates in two formats become Strings, --model and --dir; stream maps it")
    func ndjsonFromStdin() throws {
        let directory = try ToolRunner.directory(with: ["issues.ndjson": Self.issues])
        defer { try? FileManager.default.removeItem(at: directory) }
        let made = try ToolRunner.run(
            ["init", "--from", "-", "--model", "Ticket", "--dir", "project"], in: directory, input: Self.issues)
        #expect(made.status == 0, "\(made)")
        #expect(made.stdout.contains("mappings test --mappings project/contexts --scripts project/scripts"), "\(made)")
        let models = try String(
            contentsOf: directory.appendingPathComponent("project/contexts/models.mappings"), encoding: .utf8)
        #expect(models.contains(#""closedAt": "JSON?""#), "\(models)")
        #expect(models.contains(#""createdAt": "String""#), "\(models)")
        #expect(models.contains(#""labels": "[String]?""#), "\(models)")
        let streamed = try ToolRunner.run(
            [
                "stream", "--mappings", "project/contexts", "--scripts", "project/scripts", "--context", "$Ticket",
                "issues.ndjson",
            ], in: directory)
        #expect(streamed.status == 0, "\(streamed)")
        #expect(streamed.stdout.split(separator: "\n").count == 2, "\(streamed)")
        let tests = try ToolRunner.run(
            ["test", "--mappings", "project/contexts", "--scripts", "project/scripts"], in: directory)
        #expect(tests.stdout.contains("2 passed, 0 failed"), "\(tests)")
    }

    @Test("nothing is overwritten without --force; --force overwrites")
    func overwrite() throws {
        let directory = try ToolRunner.directory(with: [
            "weather.json": Self.weather, "contexts/models.mappings": "{}",
        ])
        defer { try? FileManager.default.removeItem(at: directory) }
        let refused = try ToolRunner.run(["init", "--from", "weather.json"], in: directory)
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("./contexts/models.mappings already exists: nothing written"), "\(refused)")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("scripts").path))
        #expect(
            try String(contentsOf: directory.appendingPathComponent("contexts/models.mappings"), encoding: .utf8)
                == "{}")
        let forced = try ToolRunner.run(["init", "--from", "weather.json", "--force"], in: directory)
        #expect(forced.status == 0, "\(forced)")
        #expect(try ToolRunner.run(["test"], in: directory).status == 0)
    }

    @Test("without --from, a working example project; a payload that is no object is refused")
    func skeletonAndRefusals() throws {
        let directory = try ToolRunner.directory(with: ["list.json": "[1, 2]"])
        defer { try? FileManager.default.removeItem(at: directory) }
        let made = try ToolRunner.run(["init", "--model", "Note"], in: directory)
        #expect(made.status == 0, "\(made)")
        #expect(try ToolRunner.run(["test"], in: directory).status == 0)
        let mapped = try ToolRunner.run(
            ["map"], in: directory, input: #"{"id": 2, "title": "x", "created_at": "2024-01-01T00:00:00Z", "tags": []}"#
        )
        #expect(mapped.status == 0, "\(mapped)")
        let refused = try ToolRunner.run(["init", "--from", "list.json", "--dir", "other"], in: directory)
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("element [0] is a JSON number, not an object"), "\(refused)")
        let badName = try ToolRunner.run(["init", "--model", "my-model"], in: directory)
        #expect(badName.status == 2 || badName.status == 64, "\(badName)")
        #expect(badName.stderr.contains("did you mean 'MyModel'?"), "\(badName)")
    }
}
