import Foundation
import MappingsTestSupport
import Testing

@testable import Mappings
@testable import MappingsCompiler
@testable import MappingsEngine
@testable import MappingsJSON
@testable import MappingsModel

/// `"@conversions": "strict"`: a value converts only from its own JSON kind; every other
/// coercion of the lenient table is an issue. Nested contexts inherit it unless they say
/// `"lenient"`; `--strict` (`Mapper.strictConversions()`) is the default for contexts that say nothing.
@Suite("strict conversions")
struct StrictConversionTests {
    static let types: [TypeReference] = [.string, .int, .double, .decimal, .bool, .url, .uuid, .date]

    static let values: [JSONValue] = [
        .string("42"), .string("yes"), .string("https://example.com"), .string("2024-01-01T00:00:00Z"),
        .string("6F9619FF-8B86-D011-B42D-00C04FC964FF"), .integer(1), .integer(1_700_000_000),
        .number(JSONNumber(checked: "2.50")),
        .bool(true), .bool(false),
    ]

    /// The JSON kind a type converts from under strict conversions.
    static func ownKind(_ type: TypeReference, _ value: JSONValue) -> Bool {
        switch (type, value) {
        case (.string, .string), (.url, .string), (.uuid, .string), (.date, .string): true
        case (.int, .integer), (.int, .number), (.double, .integer), (.double, .number), (.decimal, .integer),
            (.decimal, .number):
            true
        case (.bool, .bool): true
        default: false
        }
    }

    @Test("strict converts what lenient converts of a value's own kind, the same way, and refuses every other kind")
    func table() {
        let lenient = Converter(models: [:])
        let strict = lenient.strict(true)
        for type in Self.types {
            for value in Self.values {
                var lenientFailures: [ConversionFailure] = []
                var strictFailures: [ConversionFailure] = []
                let loose = lenient.convert(value, to: type, failures: &lenientFailures)
                let tight = strict.convert(value, to: type, failures: &strictFailures)
                if Self.ownKind(type, value) {
                    #expect(tight == loose && strictFailures.count == lenientFailures.count, "\(value) → \(type)")
                } else {
                    #expect(strictFailures.count == 1, "\(value) → \(type): \(strictFailures)")
                    #expect(
                        strictFailures.first?.message.contains("strict conversions take only") == true,
                        "\(value) → \(type): \(strictFailures)")
                }
            }
            // null and optionals are as before.
            var failures: [ConversionFailure] = []
            #expect(strict.convert(.null, to: .optional(type), failures: &failures) == .null && failures.isEmpty)
        }
    }

    static let catalog = """
        { "@models": { "P": { "n": "Int", "inner": "I", "other": "O" }, "I": { "b": "Bool" }, "O": { "s": "String" } },
          "$P": { "@class": "P", "@conversions": "strict", "n": "n",
                  "inner": { "@keyPath": "inner", "@object": { "@mappings": "$I" } },
                  "other": { "@keyPath": "other", "@object": { "@mappings": "$O" } } },
          "$I": { "@class": "I", "b": "b" },
          "$O": { "@class": "O", "@conversions": "lenient", "s": "s" },
          "$Loose": { "@class": "I", "b": "b" } }
        """

    @Test("nested contexts inherit strictness unless they say lenient; --strict is the default of the others")
    func inheritance() throws {
        let mapper = Mapper(catalog: try load(Self.catalog))
        let payload = try JSONParser.parse(#"{"n": "5", "inner": {"b": "yes"}, "other": {"s": 7}}"#)
        let result = mapper.object(from: payload, using: try mapper.context("$P"))
        #expect(result.issues.map(\.path) == ["$.n", "$.inner.b"], "\(result.issues)")
        #expect(JSONWriter.string(result.value) == #"{"n":null,"inner":{"b":null},"other":{"s":"7"}}"#)
        let loose = try JSONParser.parse(#"{"b": "yes"}"#)
        #expect(mapper.object(from: loose, using: try mapper.context("$Loose")).issues.isEmpty)
        let strict = mapper.strictConversions()
        #expect(strict.object(from: loose, using: try strict.context("$Loose")).issues.count == 1)
        // A context that says lenient stays so under --strict.
        let other = try JSONParser.parse(#"{"s": 7}"#)
        #expect(strict.object(from: other, using: try strict.context("$O")).issues.isEmpty)
    }

    @Test("a strict context has no fast plan, and the record path writes what the general engine writes")
    func plans() throws {
        let mapper = Mapper(catalog: try load(Self.catalog))
        let refusal = mapper.fastPlan(for: try mapper.context("$P"))
        guard case .failure(let why) = refusal else {
            Issue.record("a strict context got a plan")
            return
        }
        #expect(why.description.contains("strict conversions"))
        #expect((try? mapper.fastPlan(for: try mapper.context("$Loose")).get()) != nil)
        #expect((try? mapper.strictConversions().fastPlan(for: try mapper.context("$Loose")).get()) == nil)
        let records = RecordMapper(mapper: mapper.strictConversions(), context: try mapper.context("$Loose"))
        var out: [UInt8] = []
        let outcome = records.map(Array(#"{"b": "yes"}"#.utf8), into: &out)
        #expect(outcome.kind == .withErrors)
    }

    @Test(
        "a word other than strict or lenient is a load error with a suggestion",
        arguments: [(#""strikt""#, #"did you mean "strict"?"#), ("true", "not a boolean")])
    func misuse(_ value: String, _ says: String) {
        let error = failure(
            #"{ "@models": { "I": { "b": "Bool" } }, "$I": { "@class": "I", "@conversions": \#(value), "b": "b" } }"#)
        #expect(error.contains(#""@conversions" is "strict" or "lenient""#), "\(error)")
        #expect(error.contains(says), "\(error)")
        #expect(error.contains("main.mappings:1:"), "\(error)")
    }

    @Test("Swift hosts: ContextBuilder.strictConversions()")
    func contextBuilder() throws {
        var definitions = Definitions()
        definitions.model("I", ["b": "Bool"])
        definitions.context("$I", class: "I") { context in
            context.strictConversions()
            context.map("b", from: "b")
        }
        let mapper = Mapper(catalog: try Catalog.load([], from: .memory([:]), definitions: definitions))
        let result = mapper.object(from: try JSONParser.parse(#"{"b": "yes"}"#), using: try mapper.context("$I"))
        #expect(result.issues.first?.message.contains("strict conversions take only a boolean") == true)
    }
}
