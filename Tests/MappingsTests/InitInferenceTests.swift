import Foundation
import MappingsCompiler
import MappingsEngine
import MappingsJSON
import MappingsTestSupport
import Testing

@testable import Mappings

/// `mappings init`'s inference, property-tested: for generated samples (nested objects, arrays
/// of objects and of scalars, keys missing or null in some records, dates in each format,
/// escapes, unicode and clashing keys), the project loads, its tests pass, and every record maps
/// without an issue into an object that keeps every value of the record.
@Suite("init: models inferred from a sample")
struct InitInferenceTests {
    @Test("generated samples: every record maps cleanly and keeps every value", arguments: 0..<60)
    func generated(seed: Int) throws {
        var random = SeededGenerator(seed: UInt64(seed) &* 7919 &+ 3)
        let schema = Shape.object(depth: 0, using: &random)
        let count = Int.random(in: 1...6, using: &random)
        let records = (0..<count).map { _ in schema.record(using: &random) }
        let sample = try InitSample.read(Array(Self.ndjsonOrArray(records, using: &random).utf8))
        #expect(sample.records.count == records.count)
        let project = try InitProject.infer(from: sample, model: "Sample", sampleName: "sample.json")
        try Self.checkKeepsEveryValue(project, records: sample.records)
    }

    @Test("GitHub-like issues: URLs, ISO dates, a shared user model, optional keys, reactions' +1 and -1")
    func issues() throws {
        let text = """
            [{"html_url": "https://github.com/o/r/issues/1", "id": 1, "title": "Crash", "user": {"login": "ann", "id": 7},
              "assignee": null, "labels": [{"name": "bug", "color": "d73a4a"}], "created_at": "2024-03-01T10:00:00Z",
              "closed_at": null, "reactions": {"+1": 2, "-1": 0}},
             {"html_url": "https://github.com/o/r/issues/2", "id": 2, "title": "Docs", "user": {"login": "bo", "id": 8},
              "assignee": {"login": "ann", "id": 7}, "labels": [], "created_at": "2024-03-02T10:00:00.250+02:00",
              "closed_at": "2024-03-04T11:30:00Z", "reactions": {"+1": 0, "-1": 1}, "score": 1.5}]
            """
        let project = try InitProject.infer(
            from: try InitSample.read(Array(text.utf8)), model: "Issue", sampleName: "issues.json")
        let issue = try #require(project.models.first)
        func type(_ name: String) -> String? {
            issue.properties.first { $0.name == name }.map { $0.type.text + ($0.isOptional ? "?" : "") }
        }
        #expect(type("htmlUrl") == "URL")
        #expect(type("createdAt") == "Date")
        #expect(type("closedAt") == "Date?")
        #expect(type("user") == "User")
        #expect(type("assignee") == "User?", "the assignee is the same model as the user")
        #expect(type("labels") == "[Label]")
        #expect(type("score") == "Double?")
        let reactions = try #require(project.models.first { $0.name == "Reactions" })
        #expect(reactions.properties.map(\.name) == ["plus1", "minus1"])
        #expect(project.tests == 2)
        try Self.checkKeepsEveryValue(project, records: try InitSample.read(Array(text.utf8)).records)
    }

    @Test("weaker types when a value does not convert: a date beyond what a date holds stays a String")
    func weaker() throws {
        let text = #"{"when": "2024-03-01T10:00:00Z"}"# + "\n" + #"{"when": "0000-01-01T00:00:00Z"}"#
        let project = try InitProject.infer(
            from: try InitSample.read(Array(text.utf8)), model: "Event", sampleName: "events.ndjson")
        #expect(project.models[0].properties[0].type == .scalar("String"))
        #expect(project.form == .lines)
    }

    @Test("names: camelCase properties, clashes numbered, keys that are no names, models not named as types")
    func names() {
        #expect(InferredNames.property("html_url") == "htmlUrl")
        #expect(InferredNames.property("Content-Type") == "contentType")
        #expect(InferredNames.property("ID") == "id")
        #expect(InferredNames.property("1h") == "_1h")
        #expect(InferredNames.property("+1") == "plus1")
        #expect(InferredNames.property("-1") == "minus1")
        #expect(InferredNames.property("名前") == "名前")
        #expect(InferredNames.property("🎉") == "field")
        #expect(InferredNames.model("date") == "DateObject")
        #expect(InferredNames.element("categories") == "Category")
        #expect(InferredNames.unique("userId", in: ["userId"]) == "userId2")
        #expect(InitTexts.keyPath("a.b") == #"a\.b"#)
        #expect(InitTexts.keyPath("@type") == #"\@type"#)
        #expect(InitTexts.keyPath("0") == #"\0"#)
    }

    @Test("a key no key path can name (the empty one) is left out, and said")
    func emptyKey() throws {
        let sample = try InitSample.read(Array(#"{"": 1, "b": 2}"#.utf8))
        let project = try InitProject.infer(from: sample, model: "P", sampleName: "p.json")
        #expect(project.models[0].properties.map(\.key) == ["b"])
        #expect(project.notes == [#"the key "" of P cannot be read by a key path: left out"#])
    }

    @Test("samples that are no objects are refused with the reason")
    func refusals() {
        for (text, reason) in [
            ("[1, 2]", "element [0] is a JSON number"), ("\"x\"", "a JSON string"), ("[]", "empty array"),
            ("{\"a\": ", "not JSON"),
        ] {
            #expect(throws: InitFailure.self) { try InitSample.read(Array(text.utf8)) }
            do {
                _ = try InitSample.read(Array(text.utf8))
            } catch {
                #expect(error.description.contains(reason), "\(error.description)")
            }
        }
    }

    // MARK: - What the property test checks

    /// Loads the project, runs its tests, maps each record and checks the output keeps its values.
    static func checkKeepsEveryValue(_ project: InitProject, records: [JSONObject]) throws {
        var texts: [String: String] = [:]
        for file in project.files where file.path.hasSuffix(".mappings") { texts[file.path] = file.text }
        for file in project.files where file.path.hasSuffix(".mappings") {
            #expect(MappingsFormatter.format(file.text) == file.text, "\(file.path) is not laid out as fmt does")
        }
        let catalog = try Catalog.load(texts.keys.sorted(), from: .memory(texts))
        let results = ContextTestRunner.run(catalog)
        let failures = results.flatMap(\.failures)
        #expect(failures.isEmpty, "\(failures)")
        let mapper = Mapper(catalog: catalog)
        let context = try mapper.context(project.context)
        let models = Dictionary(uniqueKeysWithValues: project.models.map { ($0.name, $0) })
        for record in records {
            let result = mapper.object(from: .object(record), using: context)
            #expect(result.issues.isEmpty, "\(result.issues.map(\.message)) for \(record)")
            var text: [UInt8] = []
            JSONWriter.write(result.value, into: &text)
            let output = try JSONParser.parse(text)
            let kept = Self.keeps(.object(record), output, as: .model(project.model), models: models)
            #expect(kept == nil, "\(kept ?? ""): \(String(decoding: text, as: UTF8.self))")
        }
    }

    /// Where `output` does not hold `input`'s value as `type` holds it, or `nil`.
    static func keeps(
        _ input: JSONValue, _ output: JSONValue?, as type: InferredType, models: [String: InferredModel]
    ) -> String? {
        if input == .null {
            return output == nil || output == .null ? nil : "null became \(String(describing: output))"
        }
        guard let output else { return "\(input) was lost" }
        switch (type, input, output) {
        case (.model(let name), .object(let object), .object(let out)):
            for property in models[name]?.properties ?? [] {
                // The key by its code points, inside the objects a flat model's key path goes through.
                var value = JSONValue.object(object)
                for key in property.parents + [property.key] {
                    guard case .object(let inner) = value else {
                        value = .null
                        break
                    }
                    value = inner[key] ?? .null
                }
                let written = out[property.name]
                if let lost = keeps(value, written, as: property.type, models: models) {
                    return "\(name).\(property.name): \(lost)"
                }
            }
            return nil
        case (.array(let element, _), .array(let items), .array(let out)):
            guard items.count == out.count else { return "\(items.count) elements became \(out.count)" }
            return zip(items, out).lazy.compactMap { keeps($0, $1, as: element, models: models) }.first
        case (.dictionary(let value, _), .object(let object), .object(let out)):
            for (key, item) in object.members {
                if let lost = keeps(item, out.members.first { $0.key == key }?.value, as: value, models: models) {
                    return "[\(key)]: \(lost)"
                }
            }
            return nil
        case (.scalar("Date"), _, .string(let written)):
            return instant(input) != nil && instant(input) == instant(.string(written))
                ? nil : "the date \(input) became \(written)"
        case (.scalar("Int"), _, _), (.scalar("Double"), _, _), (.scalar("Decimal"), _, _):
            return number(input) == number(output) ? nil : "\(input) became \(output)"
        default:
            return input == output ? nil : "\(input) became \(output)"
        }
    }

    static func number(_ value: JSONValue) -> Decimal? {
        switch value {
        case .integer(let integer): Decimal(integer)
        case .double(let double): Decimal(string: "\(double)")
        case .number(let number): Decimal(string: number.literal)
        default: nil
        }
    }

    /// Seconds since 1970 of a date as the samples write them (ISO 8601, RFC 2822, Unix seconds).
    static func instant(_ value: JSONValue) -> Double? {
        switch value {
        case .integer(let seconds): return Double(seconds)
        case .string(let text):
            let iso = ISO8601DateFormatter()
            iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            if let date = iso.date(from: text) { return date.timeIntervalSince1970 }
            iso.formatOptions = [.withInternetDateTime]
            if let date = iso.date(from: text) { return date.timeIntervalSince1970 }
            let rfc = DateFormatter()
            rfc.locale = Locale(identifier: "en_US_POSIX")
            rfc.dateFormat = "EEE, dd MMM yyyy HH:mm:ss Z"
            return rfc.date(from: text)?.timeIntervalSince1970
        default: return nil
        }
    }

    static func ndjsonOrArray(_ records: [JSONObject], using random: inout SeededGenerator) -> String {
        let texts = records.map { record -> String in
            var out: [UInt8] = []
            JSONWriter.write(.object(record), into: &out)
            return String(decoding: out, as: UTF8.self)
        }
        if records.count > 1, Bool.random(using: &random) { return texts.joined(separator: "\n") + "\n" }
        return records.count == 1 && Bool.random(using: &random) ? texts[0] : "[" + texts.joined(separator: ",") + "]"
    }
}

/// A generated kind of record: objects of keys, each a scalar kind, a nested object, an array
/// of objects or of scalars; a key may be left out of a record, or null in it.
indirect enum Shape {
    case string, integer, double, bool, isoDate, rfcDate, unixTime, url, text
    case object([(key: String, shape: Shape, optional: Bool)])
    case array(Shape)

    static let keys = [
        "id", "user_id", "userId", "name", "html_url", "created_at", "Content-Type", "café", "名前", "a.b",
        "@type", "1h", "+1", "-1", "x\\y", "labels", "items", "meta", "count", "score", "when", "ключ", "🎉", "date",
    ]

    static func object(depth: Int, using random: inout SeededGenerator) -> Shape {
        var members: [(key: String, shape: Shape, optional: Bool)] = []
        for key in keys.shuffled(using: &random).prefix(Int.random(in: 1...7, using: &random)) {
            members.append((key, leaf(depth: depth, key: key, using: &random), Bool.random(using: &random)))
        }
        return .object(members)
    }

    static func leaf(depth: Int, key: String, using random: inout SeededGenerator) -> Shape {
        let scalars: [Shape] = [.string, .integer, .double, .bool, .isoDate, .rfcDate, .url, .text]
        let pick = Int.random(in: 0..<(depth < 2 ? 12 : 9), using: &random)
        switch pick {
        case 0..<8: return scalars[pick]
        case 8: return key == "created_at" || key == "when" ? .unixTime : .integer
        case 9: return object(depth: depth + 1, using: &random)
        case 10: return .array(object(depth: depth + 1, using: &random))
        default: return .array(scalars[Int.random(in: 0..<scalars.count, using: &random)])
        }
    }

    func record(using random: inout SeededGenerator) -> JSONObject {
        guard case .object(let members) = self else { return JSONObject() }
        var values: [(key: String, value: JSONValue)] = []
        for member in members {
            if member.optional {
                switch Int.random(in: 0..<3, using: &random) {
                case 0: continue
                case 1:
                    values.append((member.key, .null))
                    continue
                default: break
                }
            }
            values.append((member.key, member.shape.value(using: &random)))
        }
        return JSONObject(values)
    }

    func value(using random: inout SeededGenerator) -> JSONValue {
        switch self {
        case .string:
            return .string(
                ["a", "b c", "Ünïcødé", "名前", "line\nbreak", "quote \" and \\"].randomElement(using: &random)!)
        case .integer: return .integer(Int64.random(in: -1_000_000...1_000_000, using: &random))
        case .double: return .double(Double(Int.random(in: -100_000...100_000, using: &random)) / 64)
        case .bool: return .bool(Bool.random(using: &random))
        case .isoDate:
            let day = Int.random(in: 1...28, using: &random)
            return .string(String(format: "2024-02-%02dT10:%02d:00Z", day, Int.random(in: 0...59, using: &random)))
        case .rfcDate:
            return .string(
                "Wed, 29 Aug 2012 14:40:\(String(format: "%02d", Int.random(in: 0...59, using: &random))) +0000")
        case .unixTime: return .integer(Int64.random(in: 1_500_000_000...1_800_000_000, using: &random))
        case .url: return .string("https://example.com/\(Int.random(in: 0...999, using: &random))?q=1")
        case .text: return .string(["", "0", "true", "2024", "http not a url"].randomElement(using: &random)!)
        case .object: return .object(record(using: &random))
        case .array(let element):
            // Now and then a null element, which the inferred type must keep (`[Label?]`).
            return .array(
                (0..<Int.random(in: 0...3, using: &random)).map { _ in
                    Int.random(in: 0..<8, using: &random) == 0 ? .null : element.value(using: &random)
                })
        }
    }
}
