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

    @Test("a strict context's fast plan writes what the general engine writes, or gives the record back")
    func plans() throws {
        let catalog = """
            { "@models": { "R": { "s": "String", "n": "Int", "d": "Decimal", "b": "Bool", "u": "URL", "t": "Date",
                                  "tags": "[String]", "inner": "I" }, "I": { "b": "Bool", "n": "Int" } },
              "$R": { "@class": "R", "@conversions": "strict", "s": "s", "n": "n", "d": "d", "b": "b", "u": "u", "t": "t",
                      "tags": "tags", "inner": { "@keyPath": "inner", "@object": { "@mappings": "$I" } } },
              "$I": { "@class": "I", "b": "b", "n": "n" },
              "$Loose": { "@class": "I", "b": "b", "n": "n" } }
            """
        let mapper = Mapper(catalog: try load(catalog))
        let values = [
            #""text""#, #""42""#, "42", "2.50", "true", #""yes""#, #""https://example.com/a""#,
            #""2024-01-01T00:00:00Z""#,
            "1700000000", "null", #"["a", "b"]"#, "[1, 2]",
        ]
        var random = SeededGenerator(seed: 0x57_2101)
        var fast = 0
        var general = 0
        for (identifier, strictly) in [("$R", false), ("$Loose", true)] {
            let used = strictly ? mapper.strictConversions() : mapper
            let context = try used.context(identifier)
            let plan = try used.fastPlan(for: context).get()
            for _ in 0..<400 {
                // Mostly a value of the property's own kind, sometimes any value.
                func pick(_ own: [String]) -> String {
                    Int.random(in: 0..<10, using: &random) < 9
                        ? own.randomElement(using: &random)! : values.randomElement(using: &random)!
                }
                let strings = [#""text""#, #""42""#, #""yes""#]
                let numbers = ["42", "2.50", "1700000000"]
                let inner = #"{"b": \#(pick(["true", "false"])), "n": \#(pick(["42", "7"]))}"#
                let text =
                    identifier == "$R"
                    ? #"{"s": \#(pick(strings)), "n": \#(pick(["42", "-3"])), "d": \#(pick(numbers)), "b": \#(pick(["true"])), "u": \#(pick([#""https://example.com/a""#])), "t": \#(pick([#""2024-01-01T00:00:00Z""#])), "tags": \#(pick([#"["a", "b"]"#, "[]"])), "inner": \#(inner)}"#
                    : inner
                var out: [UInt8] = []
                let result = used.object(from: try JSONParser.parse(text), using: context)
                if plan.write(Array(text.utf8), into: &out, omittingNulls: false) {
                    fast += 1
                    #expect(
                        result.issues.isEmpty, "the plan wrote a record the engine reports: \(text)\n\(result.issues)")
                    #expect(String(decoding: out, as: UTF8.self) == JSONWriter.string(result.value), "\(text)")
                } else {
                    general += 1
                    #expect(out.isEmpty)
                }
            }
        }
        #expect(fast > 20 && general > 20, "fast \(fast), general \(general)")
        // A string into an Int: the plan's lenient fast path is off under strict conversions.
        let strict = mapper.strictConversions()
        let loose = try strict.context("$Loose")
        var out: [UInt8] = []
        #expect(
            !(try strict.fastPlan(for: loose).get()).write(
                Array(#"{"b": true, "n": "5"}"#.utf8), into: &out, omittingNulls: false))
        #expect(
            (try mapper.fastPlan(for: loose).get()).write(
                Array(#"{"b": true, "n": "5"}"#.utf8), into: &out, omittingNulls: false))
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
