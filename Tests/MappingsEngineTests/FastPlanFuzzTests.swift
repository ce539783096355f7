import Foundation
import MappingsTestSupport
import Testing

@testable import Mappings
@testable import MappingsCompiler
@testable import MappingsEngine
@testable import MappingsJSON
@testable import MappingsModel

/// A seeded differential fuzzer: random catalogs (types, key paths through objects and arrays,
/// fallbacks, defaults, value maps, date formats, nested contexts, transformers) over random
/// payloads. Every record is mapped by the catalog's fast plan and by the general engine, and
/// `FastPlanTests.compare` checks the plan writes the general engine's bytes, on a record the
/// general engine maps without any issue, or gives the record back untouched.
@Suite("fast plans, fuzzed against the general engine")
struct FastPlanFuzzTests {
    typealias Random = SeededGenerator

    static func pick<T>(_ choices: [T], _ random: inout Random) -> T {
        choices[Int.random(in: 0..<choices.count, using: &random)]
    }

    static func chance(_ oneIn: Int, _ random: inout Random) -> Bool { Int.random(in: 0..<oneIn, using: &random) == 0 }

    /// Property types, each with a default of its type the catalog may give it.
    static let types: [(type: String, defaultValue: String)] = [
        ("String", #""d""#), ("Int", "5"), ("Decimal", "1.50"), ("Double", "0.5"), ("Bool", "false"),
        ("Date", #""2020-01-01T00:00:00Z""#), ("URL", #""https://x.y/a""#), ("[String]", #"["a","b"]"#),
        ("[Int]", "[1,2]"), ("JSON", #"{"k":null,"l":[1,null]}"#), ("Kind", #""a""#), ("[String: Int]", #"{"a":1}"#),
        ("{String}", #"["x"]"#), ("[Decimal]", "[0.10]"), ("UUID", #""E621E1F8-C36C-495A-93FC-0C247A3E6E5F""#),
    ]

    /// Key paths over the payloads `payload` makes: keys of the root, of an object, of an
    /// array of objects, of arrays in arrays.
    static let keyPaths = [
        "a", "b", "c", "o.a", "o.b", "o.o.a", "l.a", "l.b", "l.l.a", "o.l.a", "l.o.a", "n", "\u{e9}",
    ]

    static let valueMaps = [
        #"{ "1": "one", "true": "yes", "x": "ex", "N": 7 }"#, #"{ "a": "b", "2": 3 }"#, #"{ "x": null }"#,
    ]

    /// `@dateFormat`s: patterns the plan reads from bytes (alone, and before formats it does
    /// not), named formats, and an ICU pattern.
    static let dateFormats = [
        #""yyyy-MM-dd""#, #""@unixMilliseconds""#, #""@iso8601""#, #""EEE MMM dd HH:mm:ss Z yyyy""#,
        #""dd/MM/yyyy HH:mm""#, #"["dd/MM/yyyy HH:mm", "@iso8601"]"#, #"["@iso8601", "yyyy-MM-dd"]"#,
        #"["yyyy-MM-dd", "dd/MM/yyyy HH:mm"]"#, #""yyyy-MM-dd'T'HH:mm:ss.SSSXXX""#, #""QQQ yyyy""#,
    ]

    /// A random catalog: `$M` of model `M`, maybe with `$I` (model `I`) for objects.
    static func catalog(_ random: inout Random) -> String {
        var properties: [String] = []
        var entries: [String] = [#""@class": "M""#]
        var used = Set<String>()
        for index in 0..<Int.random(in: 1...6, using: &random) {
            let name = "p\(index)"
            let optional = !chance(8, &random)
            if chance(5, &random) {
                // Objects through the context `$I`.
                let type = Bool.random(using: &random) ? "I" : "[I]"
                properties.append("\"\(name)\": \"\(type)\(optional ? "?" : "")\"")
                let path = pick(["o", "l", "a", "o.o", "l.o"], &random)
                guard used.insert(path).inserted else { continue }
                entries.append(
                    "\"\(name)\": { \"@keyPath\": \"\(path)\", \"@optional\": \(optional), \"@object\": { \"@mappings\": \"$I\" } }"
                )
                continue
            }
            let (type, defaultValue) = pick(types, &random)
            properties.append("\"\(name)\": \"\(type)\(optional ? "?" : "")\"")
            if chance(8, &random) { continue }  // a property no entry sets
            var options: [String] = []
            let path = pick(keyPaths, &random)
            if chance(4, &random) {
                let fallbacks = (0..<Int.random(in: 1...2, using: &random)).map { _ in pick(keyPaths, &random) }
                options.append(
                    "\"@keyPath\": [\"\(path)\", " + fallbacks.map { "\"\($0)\"" }.joined(separator: ", ") + "]")
            } else {
                options.append("\"@keyPath\": \"\(path)\"")
            }
            if optional { options.append("\"@optional\": true") }
            if chance(3, &random) { options.append("\"@defaultValue\": \(defaultValue)") }
            if chance(6, &random) { options.append("\"@valueMap\": \(pick(valueMaps, &random))") }
            if type == "Date", chance(3, &random) {
                options.append(
                    "\"@dateFormat\": \(pick(dateFormats, &random))")
            }
            if chance(7, &random) {
                options.append(#""@transformClass": "F", "@transformSelector": "\#(pick(["same", "odd"], &random))""#)
            }
            entries.append("\"\(name)\": { " + options.joined(separator: ", ") + " }")
        }
        return """
            { "@models": { "M": { \(properties.joined(separator: ", ")) },
                           "I": { "x": "String?", "y": "Int", "z": "Date?", "w": "[String]?" },
                           "Kind": ["a", "b", "c"] },
              "$I": { "@class": "I", "x": { "@keyPath": "a", "@optional": true },
                      "y": { "@keyPath": "b", "@defaultValue": 3 },
                      "z": { "@keyPath": "c", "@optional": true }, "w": { "@keyPath": "l.a", "@optional": true } },
              "$M": { \(entries.joined(separator: ", ")) } }
            """
    }

    static let scalars = [
        "null", "0", "-0", "1", "-12", "007", "9223372036854775807", "9223372036854775808", "123456789012345678",
        "1234567890123456789", "12.5", "1e2", "1E2", "1e-7", "0.1", "-0.0", "1.50", "0.000", "100.10", "-0.500",
        "1.0E+2", "123456789012345678.90", "0.00000000000000000000000000000000000010",
        "1.00000000000000000000000000000000000000",
        "12345678901234567.5", "123456789012345678.5", "true", "false", #""""#, #""x""#, #""a""#, #""b""#, #""d""#,
        #""N""#, #""1""#, #""12""#, #"" 12""#, #""+12""#, #""012""#, #""-0""#, #""1.50""#, #""12.""#, #""true""#,
        #""caf\u00e9""#, #""\u0000""#, #""\ud83d\ude80""#, #""\ud83d""#, #""a\"b""#, #""\/""#, #""\u007f""#,
        #""\u2028""#, "\"\u{7f}\"", "\"e\u{301}\"", #""2020-02-29T12:00:00Z""#, #""2021-02-29T12:00:00Z""#,
        #""0000-01-01T00:00:00Z""#, #""2020-01-01T00:00:00.5Z""#, #""2020-01-01t00:00:00z""#,
        #""2020-01-01T00:00:00+01:00""#, #""2020-01-01""#, "1700000000123", #""https://a.b/c?d#e""#,
        #""https://a.b:80/""#, #""http://u@a.b""#, #""https://A.b""#, #""https://a.b/%zz""#, #""https://a.b/ c""#,
        #""https://é.fr""#, #""https://a.b/%41""#, #""ftp://a.b""#, #""E621E1F8-C36C-495A-93FC-0C247A3E6E5F""#,
        "[]", "[null]", #"["a","b"]"#, #"["a",null]"#, "[1,2]", #"["1"]"#, #"{"a":1}"#, #"{"a":null}"#, "{}",
        #"[{"a":"x"},null,1,{"b":2}]"#, #"[[{"a":1}],[]]"#,
        // The edges of fidelity round 2: fractions past microseconds, years out of range, signs
        // of zero in JSON, keys repeated inside values taken whole, escapes a message must show.
        #""2020-01-01T00:00:00.1234567Z""#, #""2020-01-01T00:00:00.123456000Z""#, #""9999-12-31T23:59:59.123456Z""#,
        #""9999-12-31T23:59:59-01:00""#, "-0.0e0", "1e128", "10e127", #"{"a":1,"a":2}"#, #"[{"b":1,"b":1}]"#,
        #""\u001b[31m""#, #""\u202e""#, "1346250005.1234567",
        // Dates in the patterns above: right, wrong weekday, short year, out of range, escaped.
        #""Wed Aug 29 14:40:05 +0000 2012""#, #""Thu Aug 29 14:40:05 +0000 2012""#,
        #""Wed Aug 29 14:40:05 +0000 12""#, #""Wed Aug 29 14:40:05 -0130 2012""#, #""29/02/2020 10:00""#,
        #""29/02/2021 10:00""#, #""31/12/9999 23:59""#, #"" 01/01/2020 00:00 ""#, #""2012-08-29""#,
        #""2012-08-29T14:40:05.123+02:00""#, #""2012-08-29T14:40:05.1234567Z""#, #""Q3 2012""#,
        #""2012\u002d08-29""#, #""0000-12-31""#,
    ]

    /// Values most properties convert without an issue.
    static let clean = [
        "null", "1", "-12", "0", "12.5", "true", "false", #""x""#, #""a""#, #""b""#, #""1""#,
        #""2020-01-01T00:00:00Z""#,
        #""https://a.b/c""#, #"["a","b"]"#, "[1,2]", #"{"a":1}"#,
    ]

    /// A random payload value at `depth`: scalars, objects of the keys the catalogs read,
    /// arrays of such objects, nulls and other elements.
    static func value(_ depth: Int, _ random: inout Random) -> String {
        if depth > 3 || Int.random(in: 0..<3, using: &random) > 0 {
            return Bool.random(using: &random) ? pick(clean, &random) : pick(scalars, &random)
        }
        if Bool.random(using: &random) { return object(depth + 1, &random) }
        let elements = (0..<Int.random(in: 0...3, using: &random)).map { _ in
            chance(5, &random) ? pick(["null", "1", #""s""#, "[]"], &random) : object(depth + 1, &random)
        }
        return "[" + elements.joined(separator: ",") + "]"
    }

    static func object(_ depth: Int, _ random: inout Random) -> String {
        var members: [String] = []
        for key in ["a", "b", "c", "o", "l", "n", "\u{e9}", "z"].shuffled(using: &random)
        where Bool.random(using: &random) {
            let written = chance(12, &random) ? pick([#"\u0061"#, "e\u{301}", #"\u00e9"#], &random) : key
            members.append("\"\(written)\":\(value(depth, &random))")
            if chance(15, &random) { members.append("\"\(key)\":\(value(depth, &random))") }
        }
        return "{" + members.joined(separator: ",") + "}"
    }

    static func payload(_ random: inout Random) -> [UInt8] {
        var text = object(0, &random)
        switch Int.random(in: 0..<40, using: &random) {
        case 0: text = " \n\t" + text + " \r\n"
        case 1: text = "\u{feff}" + text
        case 2: text = String(text.dropLast(Int.random(in: 1...3, using: &random)))
        case 3: text = "[" + text + "]"
        default: break
        }
        var bytes = Array(text.utf8)
        if chance(60, &random) { bytes.insert(0xFF, at: Int.random(in: 0...bytes.count, using: &random)) }
        return bytes
    }

    static let transformers = registry(counted: true)

    /// The fuzzed catalogs' transformers; `counted`: each call counted in `calls` (which only
    /// the fuzzer's own test reads, one catalog at a time).
    static func registry(counted: Bool) -> TransformerRegistry {
        var registry = TransformerRegistry()
        registry.register(className: "F", selector: "same") { value, _ in
            if counted { calls.add() }
            return value
        }
        registry.register(className: "F", selector: "odd") { value, _ in
            if counted { calls.add() }
            switch value {
            case .string("x"): return .null
            case .string("a"): return .array([.string("a"), .null])
            case .string("b"): return .object(JSONObject([("k", .integer(1))]))
            case .integer: return .string("12")
            case .string("d"): throw Failure()
            default: return value
            }
        }
        return registry
    }

    struct Failure: Error {}

    static let calls = FastPlanTests.Calls()

    /// Whether the plan and the general engine, sharing a memo as the stream does, call the
    /// transformers as often as the general engine alone, and the general engine's output is its own.
    static func callsOnce(_ bytes: [UInt8], _ context: CompiledContext, _ plan: FastPlan, _ mapper: Mapper) -> String? {
        _ = calls.take()
        let memo = TransformerMemo()
        var out: [UInt8] = []
        var again: MappingResult?
        if !plan.write(bytes, into: &out, omittingNulls: false, memo: memo) {
            again = try? mapper.object(fromJSON: bytes, using: context, memo: memo)
        }
        let shared = calls.take()
        let alone = try? mapper.object(fromJSON: bytes, using: context)
        let record = String(decoding: bytes, as: UTF8.self)
        if shared != calls.take() { return "transformer calls differ with the memo: \(record)" }
        if let again, let alone,
            JSONWriter.string(again.value) != JSONWriter.string(alone.value)
                || again.issues.map(\.description) != alone.issues.map(\.description)
        {
            return "the general engine with the plan's memo maps otherwise: \(record)"
        }
        return nil
    }

    @Test("random catalogs over random payloads: the general engine's bytes, or the general engine")
    func randomCatalogs() throws {
        let environment = ProcessInfo.processInfo.environment
        var random = Random(seed: environment["FAST_PLAN_FUZZ_SEED"].flatMap { UInt64($0) } ?? 0xF022_0001)
        var plans = 0
        var tally = FastPlanTests.Tally()
        var violations: [String] = []
        for _ in 0..<(environment["FAST_PLAN_FUZZ_CATALOGS"].flatMap { Int($0) } ?? 500) {
            let text = Self.catalog(&random)
            guard
                let catalog = try? Catalog.load(
                    ["main.mappings"], from: .memory(["main.mappings": text]), transformers: Self.transformers)
            else { continue }
            let mapper = Mapper(catalog: catalog)
            guard let context = try? mapper.context("$M"), case .success(let plan) = mapper.fastPlan(for: context)
            else { continue }
            plans += 1
            for _ in 0..<60 {
                let bytes = Self.payload(&random)
                if let violation = Self.violation(bytes, context, plan, mapper, &tally)
                    ?? (plan.callsTransformers ? Self.callsOnce(bytes, context, plan, mapper) : nil)
                {
                    violations.append("\(violation)\ncatalog: \(text)")
                    break
                }
            }
            if violations.count >= 5 { break }
        }
        #expect(violations.isEmpty, "\(violations.joined(separator: "\n\n"))")
        #expect(plans > 150)
        #expect(tally.fast > 2000)
        #expect(tally.general > 2000)
        print("fast plan fuzz: \(plans) plans, \(tally.fast) records written by plans, \(tally.general) given back")
    }

    @Test(
        "every @dateFormat over every date string: the plan reads the general engine's date, or gives the record back")
    func formattedDates() throws {
        let dates = Self.scalars.filter { $0.hasPrefix("\"") } + Self.clean.filter { $0.hasPrefix("\"") }
        var tally = FastPlanTests.Tally()
        var violations: [String] = []
        for format in Self.dateFormats {
            let catalog = try load(
                """
                { "@models": { "M": { "d": "Date?", "e": "Date" } },
                  "$M": { "@class": "M", "d": { "@keyPath": "a", "@optional": true, "@dateFormat": \(format) },
                          "e": { "@keyPath": "b", "@dateFormat": \(format) } } }
                """)
            let mapper = Mapper(catalog: catalog)
            let context = try mapper.context("$M")
            let plan = try mapper.fastPlan(for: context).get()
            for date in dates {
                for record in ["{\"a\":\(date)}", "{\"b\":\(date),\"a\":\(date)}"] {
                    if let violation = Self.violation(Array(record.utf8), context, plan, mapper, &tally) {
                        violations.append("@dateFormat \(format): \(violation)")
                    }
                }
            }
        }
        #expect(violations.isEmpty, "\(violations.prefix(5).joined(separator: "\n\n"))")
        // The patterns the plan reads itself write most of the dates their formats read.
        #expect(tally.fast > 40)
    }

    /// What the plan did wrong with `bytes`, if anything (the oracle of `FastPlanTests.compare`,
    /// answering instead of recording, so a failure names its catalog).
    static func violation(
        _ bytes: [UInt8], _ context: CompiledContext, _ plan: FastPlan, _ mapper: Mapper,
        _ tally: inout FastPlanTests.Tally
    ) -> String? {
        let record = String(decoding: bytes, as: UTF8.self)
        for omittingNulls in [false, true] {
            var fast: [UInt8] = [UInt8(ascii: "<")]
            let memo = plan.callsTransformers ? TransformerMemo() : nil
            guard plan.write(bytes, into: &fast, omittingNulls: omittingNulls, memo: memo) else {
                if fast != [UInt8(ascii: "<")] { return "a refused record left output: \(record)" }
                if !omittingNulls { tally.general += 1 }
                continue
            }
            if !omittingNulls { tally.fast += 1 }
            guard let result = try? mapper.object(fromJSON: bytes, using: context) else {
                return "the plan wrote a record the parser refuses: \(record)"
            }
            var general: [UInt8] = [UInt8(ascii: "<")]
            JSONWriter.write(result.value, into: &general, omittingNulls: omittingNulls)
            if !result.issues.isEmpty {
                return "the plan wrote a record the general engine reports: \(record)\n\(result.issues)"
            }
            if fast != general {
                return """
                    omitting nulls: \(omittingNulls), record: \(record)
                    fast:    \(String(decoding: fast, as: UTF8.self))
                    general: \(String(decoding: general, as: UTF8.self))
                    """
            }
        }
        return nil
    }
}

/// Violations the fuzzer found, each in its smallest form.
@Suite("fast plans: the fuzzer's findings")
struct FastPlanFuzzFindings {
    /// An `@object` entry whose key path fans out (`l.o` over an array `l`) found an array: the
    /// plan converted it with the conversion whose index is the nested object's (a JSON one
    /// here, which wrote `[]`), where the general engine maps the object from the array.
    @Test("an @object entry whose key path fans out is the general engine's")
    func objectThroughFanOut() throws {
        let catalog = try load(
            """
            { "@models": { "M": { "i": "I" }, "I": { "x": "JSON?", "y": "JSON?" } },
              "$I": { "@class": "I", "x": { "@keyPath": "a", "@optional": true },
                      "y": { "@keyPath": "b", "@optional": true } },
              "$M": { "@class": "M", "i": { "@keyPath": "l.o", "@object": { "@mappings": "$I" } } } }
            """)
        let mapper = Mapper(catalog: catalog)
        let context = try mapper.context("$M")
        let plan = try mapper.fastPlan(for: context).get()
        var tally = FastPlanTests.Tally()
        for record in [#"{"l":[]}"#, #"{"l":[{"o":{"a":1}},{"o":{"b":2}}]}"#] {
            let violation = FastPlanFuzzTests.violation(Array(record.utf8), context, plan, mapper, &tally)
            #expect(violation == nil, "\(violation ?? "")")
        }
    }
}

/// The plan's allow-list (`PlanFeatures`) against the fields of a compiled entry: a field a
/// change adds to `Rule` or `EntryPolicies` fails here until a plan decision covers it.
@Suite("fast plans: every entry feature decided")
struct PlanFeatureTests {
    @Test("every field of Rule and of EntryPolicies is listed in PlanFeatures, and nothing else")
    func everyFieldDecided() throws {
        let catalog = try load(
            #"{ "@models": { "M": { "a": "String" } }, "$M": { "@class": "M", "a": "a" } }"#)
        let rule = try #require(catalog.context("$M")?.rules.first)
        let ruleFields = Set(Mirror(reflecting: rule).children.compactMap(\.label))
        let policyFields = Set(Mirror(reflecting: EntryPolicies()).children.compactMap(\.label))
        #expect(
            ruleFields.subtracting(PlanFeatures.rule.keys).isEmpty,
            "Rule fields no plan decision covers: \(ruleFields.subtracting(PlanFeatures.rule.keys).sorted()); decide in PlanFeatures.rule and PlanTables.addProperty"
        )
        #expect(
            Set(PlanFeatures.rule.keys).subtracting(ruleFields).isEmpty,
            "PlanFeatures.rule lists fields Rule has no more")
        #expect(
            policyFields.subtracting(PlanFeatures.policies.keys).isEmpty,
            "EntryPolicies fields no plan decision covers: \(policyFields.subtracting(PlanFeatures.policies.keys).sorted())"
        )
        #expect(Set(PlanFeatures.policies.keys).subtracting(policyFields).isEmpty)
        #expect(PlanFeatures.unknownFeature(of: rule) == nil)
    }

    /// An entry type with a field the tables do not list: set, it is named; unset, it is not.
    struct LaterRule {
        var target = "a"
        var source = "b"
        var sortsBy: String?
        var caseInsensitive = false
        var synonyms: [String] = []
    }

    @Test("a field the allow-list does not list refuses the entry when it holds something, not when unset")
    func unknownFieldsRefused() {
        let known: [String: PlanFeatures.Decision] = ["target": .compiled, "source": .compiled]
        #expect(PlanFeatures.unknownField(of: LaterRule(), in: known) == nil)
        #expect(PlanFeatures.unknownField(of: LaterRule(sortsBy: "name"), in: known) == "sortsBy")
        #expect(PlanFeatures.unknownField(of: LaterRule(caseInsensitive: true), in: known) == "caseInsensitive")
        #expect(PlanFeatures.unknownField(of: LaterRule(synonyms: ["x"]), in: known) == "synonyms")
    }
}
