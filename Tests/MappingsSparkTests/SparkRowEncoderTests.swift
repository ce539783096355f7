import Foundation
import MappingsTestSupport
import Testing

@testable import Mappings
@testable import MappingsEncoding
@testable import MappingsSpark

/// `SparkRowEncoder`: a record's output JSON as Spark's `UnsafeRow` (integrations/spark's tests
/// read the rows in Spark itself; here the layout is read back by hand).
@Suite("Spark rows of a record's output")
struct SparkRowEncoderTests {
    /// Reads an `UnsafeRow` (or array) back, as Spark does.
    struct Row {
        let bytes: [UInt8]
        let base: Int
        let fields: Int

        func word(_ offset: Int) -> UInt64 {
            bytes[(base + offset)..<(base + offset + 8)].reversed().reduce(0) { $0 << 8 | UInt64($1) }
        }
        var bitset: Int { (fields + 63) / 64 * 8 }
        func isNull(_ index: Int) -> Bool { bytes[base + index / 8] & (1 << (index % 8)) != 0 }
        func long(_ index: Int) -> Int64 { Int64(bitPattern: word(bitset + 8 * index)) }
        func double(_ index: Int) -> Double { Double(bitPattern: word(bitset + 8 * index)) }
        func boolean(_ index: Int) -> Bool { bytes[base + bitset + 8 * index] != 0 }
        func span(_ index: Int) -> (offset: Int, size: Int) {
            let slot = word(bitset + 8 * index)
            return (Int(slot >> 32), Int(slot & 0xFFFF_FFFF))
        }
        func string(_ index: Int) -> String {
            let (offset, size) = span(index)
            return String(decoding: bytes[(base + offset)..<(base + offset + size)], as: UTF8.self)
        }
        func row(_ index: Int, fields: Int) -> Row {
            Row(bytes: bytes, base: base + span(index).offset, fields: fields)
        }
        /// An array's elements as a row of `count` fields after its count (element size 8).
        func array(_ index: Int) -> (count: Int, elements: Row) {
            let start = base + span(index).offset
            let count = Int(Row(bytes: bytes, base: start, fields: 0).word(0))
            return (count, Row(bytes: bytes, base: start + 8, fields: count))
        }
    }

    static let contexts = """
        { "@models": {
            "Point": { "x": "Double", "y": "Double" },
            "Shape": { "n": "Int", "ok": "Bool", "at": "Date", "name": "String", "price": "Decimal",
                       "raw": "JSON", "where": "Point?", "tags": "[String?]", "sizes": "[String: Int]" } },
          "$Point": { "@class": "Point", "x": "x", "y": "y" },
          "$Shape": { "@class": "Shape", "n": "n", "ok": "ok", "at": "at", "name": "name", "price": "price",
                      "raw": "raw", "where": { "@keyPath": "where", "@optional": true,
                                               "@object": { "@mappings": "$Point" } },
                      "tags": "tags", "sizes": "sizes" } }
        """

    func encode(_ payload: String) throws -> Row {
        let catalog = try load(Self.contexts)
        let mapper = Mapper(catalog: catalog)
        let context = try mapper.context("$Shape")
        let encoder = try #require(SparkRowEncoder(schema: catalog.sparkSchema(of: context)))
        let records = RecordMapper(mapper: mapper, context: context).encoding(encoder)
        var out: [UInt8] = []
        let outcome = records.map(Array(payload.utf8), into: &out)
        #expect(outcome.kind == .clean)
        // The frame: the row's length, big-endian, and its kind.
        let length = out[0..<4].reduce(0) { $0 << 8 | Int($1) }
        #expect(out[4] == UInt8(ascii: "m") && length == out.count - 5 && length % 8 == 0)
        return Row(bytes: Array(out[5...]), base: 0, fields: 9)
    }

    @Test("fixed values in their slots, variable ones after them, nulls by their bit")
    func layout() throws {
        let row = try encode(
            #"""
            {"n": -5, "ok": true, "at": "1970-01-01T00:00:01.25Z", "name": "caf\u00e9 \"x\"",
             "price": 0.10000000000000000000001, "raw": {"a": [1.50, "s"]}, "where": {"x": 1.5, "y": -2},
             "tags": ["a", null], "sizes": {"k": 7}}
            """#)
        #expect(row.long(0) == -5)
        #expect(row.boolean(1))
        #expect(row.long(2) == 1_250_000)
        #expect(row.string(3) == "café \"x\"")
        #expect(row.string(4) == "0.10000000000000000000001")
        #expect(row.string(5) == #"{"a":[1.50,"s"]}"#)
        let point = row.row(6, fields: 2)
        #expect(point.double(0) == 1.5 && point.double(1) == -2)
        let tags = row.array(7)
        #expect(tags.count == 2 && !tags.elements.isNull(0) && tags.elements.isNull(1))
        let first = tags.elements.span(0)
        let arrayBase = row.base + row.span(7).offset
        #expect(
            String(
                decoding: row.bytes[(arrayBase + first.offset)..<(arrayBase + first.offset + first.size)], as: UTF8.self
            ) == "a")
        for index in 0..<9 { #expect(!row.isNull(index)) }
    }

    @Test(
        "a decimal is its string with the digits and scale as written",
        arguments: [
            ("1.10", "1.10"), ("-0.0", "-0.0"), ("0.000", "0.000"), ("-0.500", "-0.500"), ("1.0E+2", "100"),
            (#""1.10""#, "1.10"), ("123456789012345678.90", "123456789012345678.90"),
        ])
    func decimals(price: String, written: String) throws {
        let row = try encode(
            #"{"n": 1, "ok": false, "at": "2024-02-29T12:00:00Z", "name": "", "price": \#(price), "raw": [null], "tags": [], "sizes": {}}"#
        )
        #expect(row.string(4) == written)
    }

    @Test("a missing optional object is a null field")
    func nulls() throws {
        let row = try encode(
            #"{"n": 1, "ok": false, "at": "2024-02-29T12:00:00Z", "name": "", "price": 1, "raw": [null], "tags": [], "sizes": {}}"#
        )
        #expect(row.isNull(6))
        #expect(row.long(2) == 1_709_208_000_000_000)
        #expect(row.string(3) == "")
        #expect(row.array(7).count == 0)
    }

    @Test(
        "ISO 8601 instants as Spark's microseconds, every year the writer writes",
        arguments: [
            ("1970-01-01T00:00:00Z", Int64(0)),
            ("1969-12-31T23:59:59.999999Z", Int64(-1)),
            ("2000-03-01T00:00:00.5+01:00", Int64(951_865_200_500_000)),
            ("0001-01-01T00:00:00Z", Int64(-62_135_596_800_000_000)),
            ("9999-12-31T23:59:59Z", Int64(253_402_300_799_000_000)),
        ])
    func instants(text: String, micros: Int64) {
        let bytes = Array(text.utf8)
        #expect(bytes.withUnsafeBufferPointer { SparkRowEncoder.microseconds(iso8601: $0) } == micros)
    }

    @Test("output that does not fit the schema is a failure naming the field")
    func misfit() throws {
        let catalog = try load(Self.contexts)
        let context = try Mapper(catalog: catalog).context("$Shape")
        let encoder = try #require(SparkRowEncoder(schema: catalog.sparkSchema(of: context)))
        let json = Array(
            #"{"n":1,"ok":true,"at":"yesterday","name":"a","price":1,"raw":1,"where":null,"tags":[],"sizes":{}}"#.utf8)
        var out: [UInt8] = []
        #expect {
            try json.withUnsafeBufferPointer { try encoder.encode($0, into: &out) }
        } throws: { error in
            (error as? EncodingFailure)?.message.hasPrefix("$.at: \"yesterday\" is not an ISO 8601 instant")
                == true
        }
    }
}
