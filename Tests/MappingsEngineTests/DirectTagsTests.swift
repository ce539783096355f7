import Foundation
import MappingsEncoding
import MappingsSpark
import MappingsTestSupport
import Testing

@testable import Mappings
@testable import MappingsEngine

/// A fast plan that writes the Python module's value tags itself (`RecordEncoding.directSchema`)
/// writes, record for record, what `ValueEncoder` makes of the JSON the plan writes otherwise:
/// the same outcome, the same bytes.
@Suite("fast plans writing value tags directly")
struct DirectTagsTests {
    /// The record mapper writing tags directly, and the one that writes JSON then encodes it.
    static func mappers(_ mapper: Mapper, _ context: CompiledContext, omittingNulls: Bool = false) throws
        -> (direct: RecordMapper, encoded: RecordMapper)?
    {
        guard let schema = ValueSchema(spark: mapper.catalog.sparkSchema(of: context)) else { return nil }
        let encoder = ValueEncoder(schema: schema, forArrow: false)
        let json = RecordMapper(mapper: mapper, context: context, omittingNulls: omittingNulls)
        return (json.encoding(encoder), json.encoding(JSONThenTags(encoder: encoder)))
    }

    /// `ValueEncoder` without its direct schema: the record's JSON, then its tags.
    struct JSONThenTags: RecordEncoding {
        let encoder: ValueEncoder
        var target: String { encoder.target }
        func encodeRecord(_ json: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) throws(RecordEncodingFailure) {
            try encoder.encodeRecord(json, into: &out)
        }
    }

    /// What differs between the two mappers on `bytes`, or `nil`.
    static func difference(_ bytes: [UInt8], _ direct: RecordMapper, _ encoded: RecordMapper) -> String? {
        var written: [UInt8] = [7]
        var expected: [UInt8] = [7]
        let outcome = direct.map(bytes, into: &written)
        let reference = encoded.map(bytes, into: &expected)
        let record = String(decoding: bytes, as: UTF8.self)
        guard outcome.kind == reference.kind, outcome.unwritable == reference.unwritable,
            outcome.byFastPlan == reference.byFastPlan,
            outcome.issues.map(\.description) == reference.issues.map(\.description)
        else { return "outcomes differ on \(record): \(outcome.kind) vs \(reference.kind)" }
        guard written == expected else {
            return "tags differ on \(record):\ndirect:  \(written)\nencoded: \(expected)"
        }
        return nil
    }

    /// The fuzzer's transformers, uncounted: the fuzzer counts its own calls while this runs.
    static let transformers = FastPlanFuzzTests.registry(counted: false)

    @Test("random catalogs over random payloads: ValueEncoder's tags of the plan's JSON")
    func randomCatalogs() throws {
        var random = SeededGenerator(seed: 0xD1EC_7001)
        var (catalogs, direct, records) = (0, 0, 0)
        var violations: [String] = []
        for _ in 0..<400 {
            let text = FastPlanFuzzTests.catalog(&random)
            guard
                let catalog = try? Catalog.load(
                    ["main.mappings"], from: .memory(["main.mappings": text]),
                    transformers: Self.transformers)
            else { continue }
            let mapper = Mapper(catalog: catalog)
            guard let context = try? mapper.context("$M") else { continue }
            for omittingNulls in [false, true] {
                guard let (tags, encoded) = try Self.mappers(mapper, context, omittingNulls: omittingNulls) else {
                    continue
                }
                catalogs += 1
                if tags.writesTagsDirectly { direct += 1 }
                for _ in 0..<40 {
                    let bytes = FastPlanFuzzTests.payload(&random)
                    records += 1
                    if let violation = Self.difference(bytes, tags, encoded) {
                        violations.append("\(violation)\nomitting nulls: \(omittingNulls)\ncatalog: \(text)")
                        break
                    }
                }
            }
            if violations.count >= 3 { break }
        }
        #expect(violations.isEmpty, "\(violations.joined(separator: "\n\n"))")
        // Most plans follow their schema: the comparison is of tags the plan wrote.
        #expect(direct > catalogs / 2, "\(direct) of \(catalogs) catalogs with direct tags")
        print("direct tags: \(direct) of \(catalogs) catalogs, \(records) records")
    }

    @Test(
        "the benchmarks' contexts write tags directly, as ValueEncoder encodes their JSON",
        arguments: [
            ("$RealStatus", "real"), ("$SmallTweet", "small"), ("$BenchTweet", "tweet"), ("$LargeTweet", "large"),
            ("$WideRecord", "wide"),
        ])
    func benchmarkContexts(_ identifier: String, _ shape: String) throws {
        let mapper = Mapper(catalog: try BenchmarkPlans.catalog())
        let context = try mapper.context(identifier)
        let records = try BenchmarkPlans.records(shape: shape).prefix(200)
        for omittingNulls in [false, true] {
            let (tags, encoded) = try #require(try Self.mappers(mapper, context, omittingNulls: omittingNulls))
            // A lane's own copy writes tags directly too.
            for mapper in [tags, tags.independentCopy()] {
                #expect(mapper.writesTagsDirectly)
                var random = SeededGenerator(seed: 0xD1EC_7002)
                for record in records {
                    // As generated, and with characters of its strings written as `\u` escapes.
                    for bytes in [record, RecordMutation.escape(record, using: &random)] {
                        let difference = Self.difference(bytes, mapper, encoded)
                        #expect(difference == nil, "omitting nulls: \(omittingNulls): \(difference ?? "")")
                        if difference != nil { return }
                    }
                }
            }
        }
    }

    @Test("a schema the plan does not follow field by field, and Arrow's tags, keep JSON then the encoder")
    func schemasNotFollowed() throws {
        let source = """
            {
              "@models": {"M": {"a": "String", "b": "Int", "c": "[String]"}},
              "$M": {"@class": "M", "a": "a", "b": "b", "c": "c"}
            }
            """
        let catalog = try Catalog.load(["m.mappings"], from: .memory(["m.mappings": source]))
        let mapper = Mapper(catalog: catalog)
        let context = try mapper.context("$M")
        let schema = try #require(ValueSchema(spark: catalog.sparkSchema(of: context)))
        let json = RecordMapper(mapper: mapper, context: context)
        #expect(json.encoding(ValueEncoder(schema: schema, forArrow: false)).writesTagsDirectly)
        #expect(!json.encoding(ValueEncoder(schema: schema, forArrow: true)).writesTagsDirectly)
        #expect(!json.encoding(JSONThenTags(encoder: ValueEncoder(schema: schema, forArrow: false))).writesTagsDirectly)
        func changed(_ change: (inout [ValueSchema.Node]) -> Void) -> ValueSchema {
            var nodes = schema.nodes
            change(&nodes)
            return ValueSchema(nodes: nodes, names: schema.names)
        }
        let fields = Int(schema.nodes[0].first)
        let refused = [
            // Two fields' names swapped.
            changed { nodes in
                let name = (nodes[fields].nameStart, nodes[fields].nameCount)
                (nodes[fields].nameStart, nodes[fields].nameCount) = (
                    nodes[fields + 1].nameStart, nodes[fields + 1].nameCount
                )
                (nodes[fields + 1].nameStart, nodes[fields + 1].nameCount) = name
            },
            // A string's field that holds integers, an integer's that holds strings.
            changed { $0[fields].kind = .integer },
            changed { $0[fields + 1].kind = .string },
            // The strings' list of another kind, a field fewer, a struct out of the table.
            changed { $0[Int($0[fields + 2].first)].kind = .integer },
            changed { $0[0].count = 2 },
            changed { $0[0].first = Int32($0.count) },
            changed { $0[0].first = -1 },
        ]
        let record = Array(#"{"a":"x","b":2,"c":["y"]}"#.utf8)
        for schema in refused {
            let encoder = ValueEncoder(schema: schema, forArrow: false)
            let mapper = json.encoding(encoder)
            #expect(!mapper.writesTagsDirectly)
            // What a schema a field fewer makes of the record: the encoder's, as before.
            guard schema.nodes[0].first >= 0, Int(schema.nodes[0].first) < schema.nodes.count else { continue }
            var out: [UInt8] = []
            var expected: [UInt8] = []
            _ = mapper.map(record, into: &out)
            _ = json.encoding(JSONThenTags(encoder: encoder)).map(record, into: &expected)
            #expect(out == expected)
        }
    }

    @Test("a record the plan gives back calls each transformer once, as without direct tags")
    func givenBackCallsOnce() throws {
        let calls = FastPlanTests.Calls()
        var registry = TransformerRegistry()
        registry.register(className: "C", selector: "same") { value, _ in
            calls.add()
            return value
        }
        let source = """
            {
              "@models": {"M": {"s": "String?", "n": "Int", "d": "Date?"}},
              "$M": {"@class": "M", "s": {"@keyPath": "s", "@optional": true, "@transformClass": "C", "@transformSelector": "same"},
                     "n": "n", "d": {"@keyPath": "d", "@optional": true}}
            }
            """
        let catalog = try Catalog.load(["m.mappings"], from: .memory(["m.mappings": source]), transformers: registry)
        let mapper = Mapper(catalog: catalog)
        let context = try mapper.context("$M")
        let (tags, encoded) = try #require(try Self.mappers(mapper, context))
        #expect(tags.writesTagsDirectly)
        // Mapped by the plan; given back (an issue, a number past 64 bits): one call each time.
        for record in [#"{"s":"a","n":1,"d":"2020-01-01T00:00:00Z"}"#, #"{"s":"a","n":"x"}"#, #"{"s":"a","n":1e400}"#] {
            for mapper in [tags, encoded] {
                var out: [UInt8] = []
                _ = mapper.map(Array(record.utf8), into: &out)
                #expect(calls.take() == 1, "\(record)")
            }
            #expect(Self.difference(Array(record.utf8), tags, encoded) == nil)
            _ = calls.take()
        }
    }

    @Test("escapes, every kind of number, dates and nested objects: the encoder's tags")
    func valuesOfEveryKind() throws {
        let source = """
            {
              "@models": {
                "Item": {"name": "String", "price": "Decimal", "at": "Date?"},
                "Order": {"id": "Int", "note": "String?", "site": "URL?", "paid": "Bool", "total": "Decimal",
                          "placed": "Date", "shipped": "Date?", "tags": "[String]", "items": "[Item]", "first": "Item?",
                          "extra": "JSON?", "count": "Int?", "ratio": "Double?", "codes": "[String]?", "far": "Date?"}
              },
              "$Order": {
                "@class": "Order",
                "id": "id", "note": {"@keyPath": "note", "@optional": true}, "site": {"@keyPath": "site", "@optional": true},
                "paid": "paid", "total": "total", "placed": "placed",
                "shipped": {"@keyPath": "shipped", "@optional": true, "@dateFormat": "EEE MMM dd HH:mm:ss Z yyyy"},
                "tags": "tags", "items": {"@keyPath": "items", "@object": {"@mappings": "$Item"}},
                "first": {"@keyPath": "first", "@optional": true, "@object": {"@mappings": "$Item"}},
                "extra": {"@keyPath": "extra", "@optional": true}, "count": {"@keyPath": "count", "@optional": true, "@defaultValue": 3},
                "ratio": {"@keyPath": "ratio", "@optional": true}, "codes": {"@keyPath": "items.name", "@optional": true},
                "far": {"@keyPath": "far", "@optional": true, "@dateFormat": ["yyyy-MM-dd", "@unixMilliseconds"]}
              },
              "$Item": {"@class": "Item", "name": "name", "price": "price", "at": {"@keyPath": "at", "@optional": true}}
            }
            """
        let catalog = try Catalog.load(["order.mappings"], from: .memory(["order.mappings": source]))
        let mapper = Mapper(catalog: catalog)
        let context = try mapper.context("$Order")
        let (tags, encoded) = try #require(try Self.mappers(mapper, context))
        #expect(tags.writesTagsDirectly)
        let records = [
            #"{"id":"-0","note":"a\"b\\c\/d\u00e9\ud83d\ude00\u0001\n","site":"https://x.y/a?b=c#d","paid":true,"total":-0.500,"placed":"2024-02-29T23:59:59Z","shipped":"Thu Feb 29 23:59:59 +0100 2024","tags":["x","\u00e9",""],"items":[{"name":"n","price":0.0,"at":"0001-01-01T00:00:00Z"},{"name":"\t","price":12345678901234567.5}],"first":{"name":"f","price":1e3},"far":"2024-02-29","extra":{"k":[1,2.5,null,"s",123456789012345678901234567890]},"count":12,"ratio":0.1,"codes":null}"#,
            #"{"id":123456789012345678,"paid":false,"total":0,"placed":"9999-12-31T23:59:59Z","tags":[],"items":[],"note":"","site":"ftp://x","ratio":-0.0,"count":"7"}"#,
            #"{"id":-12,"paid":false,"total":"1.5","placed":"2024-02-29T23:59:59.250+02:00","tags":["a"],"items":[{"name":"x","price":-0}],"first":null,"far":"0001-01-01"}"#,
            #"{"id":2,"paid":true,"total":123456789012345678.90,"placed":"2020-01-01T00:00:00Z","tags":[],"items":[{"name":"a","price":1.10},{"name":"b","price":-0.0},{"name":"c","price":0.000},{"name":"d","price":1.0E+2},{"name":"e","price":"-0.500"}]}"#,
            #"{"id":1,"paid":true,"total":1,"placed":"2020-01-01T00:00:00Z","tags":[],"items":[],"far":253402300800000}"#,
            #"{"id":1,"paid":true,"total":1,"placed":"2020-01-01T00:00:00Z","tags":[],"items":[],"far":-62135596800001}"#,
            #"{"id":1,"paid":true,"total":1,"placed":"2020-01-01T00:00:00Z","tags":["a"],"items":[],"shipped":"not a date"}"#,
            #"{"id":1234567890123456789012,"paid":true,"total":1,"placed":"2020-01-01T00:00:00Z","tags":["a"],"items":[]}"#,
            #"{"id":1,"paid":1,"total":1,"placed":"2020-01-01T00:00:00Z","tags":["a",2],"items":[null]}"#,
        ]
        var direct = 0
        for record in records {
            let bytes = Array(record.utf8)
            var out: [UInt8] = []
            if tags.map(bytes, into: &out).byFastPlan { direct += 1 }
            let difference = Self.difference(bytes, tags, encoded)
            #expect(difference == nil, "\(difference ?? "")")
        }
        // The first three are the plan's (the others the general engine's: issues).
        #expect(direct >= 3)
    }
}
