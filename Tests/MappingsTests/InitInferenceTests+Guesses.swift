import Foundation
import MappingsJSON
import Testing

@testable import Mappings

/// What `init` guesses, and how safely: dates only where a key names a time, keys told apart by
/// their bytes, flat models for tables, the report of what the types rest on.
extension InitInferenceTests {
    static func project(_ text: String, model: String = "Record", flat: Bool = false) throws -> InitProject {
        try InitProject.infer(
            from: try InitSample.read(Array(text.utf8)), model: model, sampleName: "sample.json", flat: flat)
    }

    static func types(_ model: InferredModel) -> [String: String] {
        Dictionary(
            uniqueKeysWithValues: model.properties.map {
                ($0.name, $0.type.text + ($0.isOptional ? "?" : "") + ($0.dateFormat.map { " " + $0 } ?? ""))
            })
    }

    @Test(
        "a day without a time is a Date only at a key that names a time; whole numbers at period_start are dates",
        arguments: [
            (#"{"api_version": "2020-03-02"}"#, "apiVersion", "String"),
            (#"{"version": "2024-01-01"}"#, "version", "String"),
            (#"{"published_on": "2020-03-02"}"#, "publishedOn", "Date @iso8601"),
            (#"{"date": "2020-03-02"}"#, "date", "Date @iso8601"),
            (#"{"birthday": "1990-05-17"}"#, "birthday", "Date @iso8601"),
            (#"{"release": "2020-03-02T10:00:00Z"}"#, "release", "Date @iso8601"),
            (#"{"period_start": 1730884461}"#, "periodStart", "Date @unixSeconds"),
            (#"{"period_end": 1733562861}"#, "periodEnd", "Date @unixSeconds"),
            (#"{"trial_end": 1733562861000}"#, "trialEnd", "Date @unixMilliseconds"),
            (#"{"due_date": "2024-12-31"}"#, "dueDate", "Date @iso8601"),
            (#"{"start": 12}"#, "start", "Int"),
            (#"{"end_offset": 1733562861}"#, "endOffset", "Date @unixSeconds"),
            (#"{"amount_due": 1733562861}"#, "amountDue", "Int"),
            (#"{"backend": 1733562861}"#, "backend", "Int"),
        ])
    func timeKeys(payload: String, property: String, type: String) throws {
        let project = try Self.project(payload)
        #expect(Self.types(project.models[0])[property] == type)
    }

    @Test("two keys equal as Unicode but not as bytes are two properties, the second numbered, each read exactly")
    func canonicallyEqualKeys() throws {
        let text = "[{\"caf\u{E9}\": 1, \"cafe\u{301}\": \"x\"}, {\"cafe\u{301}\": \"y\"}]"
        let project = try Self.project(text)
        let properties = project.models[0].properties
        #expect(properties.map { Array($0.key.utf8) } == [Array("caf\u{E9}".utf8), Array("cafe\u{301}".utf8)])
        #expect(properties.map { Array($0.name.utf8) } == [Array("caf\u{E9}".utf8), Array("caf\u{E9}2".utf8)])
        #expect(properties.map { $0.type.text + ($0.isOptional ? "?" : "") } == ["Int?", "String"])
        try Self.checkKeepsEveryValue(project, records: try InitSample.read(Array(text.utf8)).records)
    }

    @Test("flat: nested objects' scalars by key path, arrays of objects as JSON, dictionaries kept, an identity")
    func flat() throws {
        let text = """
            {"id": 1, "user": {"login": "ann", "site": {"url": "https://a.example"}}, "labels": [{"name": "bug"}], "tags": ["a"], "rain": {"1h": 0.5}, "meta": {}}
            {"id": 2, "user": null, "labels": [], "tags": [], "rain": {"3h": 1.5}, "meta": {}}
            """
        let project = try Self.project(text, model: "Issue", flat: true)
        #expect(project.models.map(\.name) == ["Issue"])
        #expect(project.identity == "id")
        #expect(
            Self.types(project.models[0]) == [
                "id": "Int", "userLogin": "String?", "userSiteUrl": "URL?", "labels": "JSON", "tags": "[String]",
                "rain": "[String: Double]", "meta": "JSON",
            ])
        let context = try #require(project.files.first { $0.path == "contexts/Issue.mappings" }?.text)
        #expect(context.contains(#""@identity": "id""#), "\(context)")
        #expect(context.contains(#""userSiteUrl": { "@keyPath": "user.site.url", "@optional": true }"#), "\(context)")
        try Self.checkKeepsEveryValue(project, records: try InitSample.read(Array(text.utf8)).records)
    }

    @Test(
        "the identity: id or <model>_id, in every record, no two the same; none otherwise",
        arguments: [
            (#"{"id": 1}"# + "\n" + #"{"id": 2}"#, "id"),
            (#"{"order_id": "a", "id": 1}"# + "\n" + #"{"order_id": "b", "id": 1}"#, "orderId"),
            (#"{"id": 1}"# + "\n" + #"{"id": 1}"#, nil),
            (#"{"id": 1}"# + "\n" + #"{"x": 1}"#, nil),
            (#"{"id": 1.5}"# + "\n" + #"{"id": 2.5}"#, nil),
            (#"{"user": {"id": 1}}"# + "\n" + #"{"user": {"id": 2}}"#, nil),
        ] as [(String, String?)])
    func identity(payload: String, identity: String?) throws {
        #expect(try Self.project(payload, model: "Order", flat: true).identity == identity)
    }

    @Test("the report: how many records, the properties resting on few values or only nulls")
    func report() throws {
        var lines = (0..<30).map { index in
            index < 4 ? #"{"gap": \#(index), "rms": null, "id": \#(index)}"# : #"{"rms": null, "id": \#(index)}"#
        }
        var project = try Self.project(lines.joined(separator: "\n"), model: "Quake")
        #expect(
            InitReport.lines(project) == [
                "typed from 30 records",
                "resting on few values: Quake.gap (Int from 4 values, null or missing in 26: optional; "
                    + "a fraction elsewhere would need Double), Quake.rms (only null: JSON?, any value)",
            ])
        #expect(Self.types(project.models[0])["gap"] == "Int?", "a key some records lack is optional")
        lines = Array(lines.prefix(3))
        project = try Self.project(lines.joined(separator: "\n"), model: "Quake")
        #expect(
            InitReport.lines(project) == [
                "typed from 3 records: every type rests on at most 3 values — a larger sample makes the types surer "
                    + "(`--sample N` spreads N records over a large NDJSON file)",
                "resting on few values: Quake.rms (only null: JSON?, any value)",
            ])
        #expect(InitReport.count(1000, "record") == "1,000 records")
    }

    @Test("--sample: records spread over the file, from the first line to the last part")
    func spread() throws {
        let lines = (0..<1000).map { #"{"n": \#($0), "pad": "\#(String(repeating: "x", count: $0 % 7))"}"# }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("init-spread-\(getpid()).ndjson")
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let sample = try #require(try InitSample.spread(10, ofLinesAt: file.path))
        let numbers = sample.records.compactMap { record -> Int64? in
            if case .integer(let n) = record["n"] { return n }
            return nil
        }
        #expect(numbers.count == 10 && numbers.first == 0 && numbers.last! >= 880, "\(numbers)")
        #expect(zip(numbers, numbers.dropFirst()).allSatisfy { $1 - $0 > 80 }, "\(numbers)")
        #expect(try InitSample.spread(2000, ofLinesAt: file.path) == nil, "fewer lines than asked: read whole")
        let whole = try InitSample.read(Array((lines.joined(separator: "\n")).utf8)).spread(4)
        #expect(whole.records.count == 4 && whole.spreadOver == "1,000 records")
    }

    @Test(
        "model names: a letter then letters, digits or _, no built-in type's",
        arguments: [
            ("Quake", nil), ("Int", "Int is a built-in type: name the model something else, e.g. IntRecord"),
            ("JSON", "JSON is a built-in type: name the model something else, e.g. JSONRecord"),
            ("../../x", #"a model name is a letter, then letters, digits or _, but got "../../x" (did you mean 'X'?)"#),
            (
                "my-model",
                #"a model name is a letter, then letters, digits or _, but got "my-model" (did you mean 'MyModel'?)"#
            ),
        ] as [(String, String?)])
    func modelNames(name: String, problem: String?) {
        #expect(InferredNames.problem(withModelName: name) == problem)
        if let problem {
            #expect(throws: InitFailure.self) { try InitProject.skeleton(model: name) }
            do {
                _ = try InitProject.skeleton(model: name)
            } catch {
                #expect(error.description == problem)
            }
        }
    }

    @Test("a key written twice in a record is refused, naming the record and where")
    func duplicateKeys() {
        for (text, reason) in [
            (#"{"a": 1, "a": 2}"#, #"the sample writes the key "a" twice in $: keep one of its values in the sample"#),
            (
                #"[{"a": 1}, {"b": [{"c": 1, "c": 1}]}]"#,
                #"the sample's element [1] writes the key "c" twice in $.b[0]: keep one of its values in the sample"#
            ),
        ] {
            do {
                _ = try InitSample.read(Array(text.utf8))
                Issue.record("\(text) was read")
            } catch {
                #expect(error.description == reason)
            }
        }
    }
}
