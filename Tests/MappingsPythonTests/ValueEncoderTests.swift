import Foundation
import Mappings
import MappingsSpark
import MappingsTestSupport
import Testing

@testable import MappingsEncoding
@testable import MappingsPython

/// The tagged values the Python module reads, and the Arrow schema and columns, from records'
/// output JSON: exact numbers, dates as microseconds, decimals with every digit.
@Suite struct ValueEncoderTests {
    static let source = """
        {
          "@models": {
            "Money": {"amount": "Decimal", "currency": "String"},
            "Order": {"id": "Int", "placed": "Date?", "total": "Money?", "lines": "[Money]",
                      "tags": "[String: Double]", "extra": "JSON?", "paid": "Bool"}
          },
          "$Order": {
            "@class": "Order",
            "id": "id", "placed": {"@keyPath": "placed_at", "@optional": true, "@dateFormat": "@iso8601"},
            "total": {"@keyPath": "total", "@optional": true, "@object": {"@mappings": "$Money"}},
            "lines": {"@keyPath": "lines", "@object": {"@mappings": "$Money"}}, "tags": "tags",
            "extra": {"@keyPath": "extra", "@optional": true}, "paid": "paid"
          },
          "$Money": {"@class": "Money", "amount": "amount", "currency": "currency"}
        }
        """

    static func context(forArrow: Bool) throws -> (RecordMapper, ValueSchema) {
        let catalog = try load(source)
        let mapper = Mapper(catalog: catalog)
        let compiled = try mapper.context("$Order")
        let schema = try #require(ValueSchema(spark: catalog.sparkSchema(of: compiled)))
        return (RecordMapper(mapper: mapper, context: compiled), schema)
    }

    static let record = #"""
        {"id": 7, "placed_at": "2024-02-29T23:59:59.123456Z", "total": {"amount": 12345678901234567890.125, "currency": "EUR"},
         "lines": [{"amount": 1.10, "currency": "EUR"}], "tags": {"a": -0.0, "b": 1e300}, "extra": {"n": 123456789012345678901234567890, "f": 0.1, "g": 0.10000000000000000001, "s": "é\t"},
         "paid": true}
        """#

    /// The tags read back into a description a test can compare.
    static func describe(_ tags: [UInt8]) -> String {
        var reader = TagReader(
            bytes: UnsafeRawBufferPointer(start: tags.withUnsafeBytes { $0.baseAddress }, count: tags.count))
        return tags.withUnsafeBytes { bytes in
            reader = TagReader(bytes: bytes)
            return describe(&reader)
        }
    }

    static func describe(_ reader: inout TagReader) -> String {
        switch reader.tag() {
        case .null: return "null"
        case .yes: return "true"
        case .no: return "false"
        case .integer: return "int(\(Int64(bitPattern: reader.word())))"
        case .double: return "double(\(Double(bitPattern: reader.word())))"
        case .date: return "date(\(Int64(bitPattern: reader.word())))"
        case .bigInteger: return "big(\(String(decoding: reader.text(), as: UTF8.self)))"
        case .decimal: return "decimal(\(String(decoding: reader.text(), as: UTF8.self)))"
        case .string: return "\"\(String(decoding: reader.text(), as: UTF8.self))\""
        case .array: return "[" + (0..<reader.count()).map { _ in describe(&reader) }.joined(separator: ",") + "]"
        case .object:
            return "{"
                + (0..<reader.count()).map { _ in
                    String(decoding: reader.text(), as: UTF8.self) + ":" + describe(&reader)
                }.joined(separator: ",") + "}"
        case .decimal128:
            let low = reader.word()
            let high = reader.word()
            return "decimal128(\(Int128(bitPattern: UInt128(high) << 64 | UInt128(low))))"
        case .absent: return "absent"
        }
    }

    @Test func pythonValuesKeepEveryDigitAndDates() throws {
        let (records, schema) = try Self.context(forArrow: false)
        var output: [UInt8] = []
        let outcome = records.map(Array(Self.record.utf8), into: &output)
        #expect(outcome.kind == .clean)
        var tags: [UInt8] = []
        try output.withUnsafeBufferPointer { try ValueEncoder(schema: schema, forArrow: false).encode($0, into: &tags) }
        #expect(
            Self.describe(tags)
                == #"{id:int(7),placed:date(1709251199123456),total:{amount:decimal(12345678901234567890.125),currency:"EUR"},"#
                + #"lines:[{amount:decimal(1.10),currency:"EUR"}],tags:{a:double(-0.0),b:double(1e+300)},"#
                + #"extra:{n:big(123456789012345678901234567890),f:double(0.1),g:decimal(0.10000000000000000001),s:"é\#t"},paid:true}"#
        )
    }

    @Test(
        "a decimal reaches Python with the digits and scale it was written with, from the fast plan and the engine",
        arguments: ["1.10", "-0.0", "0.000", "-0.500", "100", "123456789012345678.90", #""1.10""#, "1.0E+2"])
    func pythonDecimalsAsWritten(amount: String) throws {
        let (records, schema) = try Self.context(forArrow: false)
        let record = Self.record.replacingOccurrences(of: "12345678901234567890.125", with: amount)
        var output: [UInt8] = []
        #expect(records.map(Array(record.utf8), into: &output).kind == .clean)
        var tags: [UInt8] = []
        try output.withUnsafeBufferPointer { try ValueEncoder(schema: schema, forArrow: false).encode($0, into: &tags) }
        let written = amount == "1.0E+2" ? "100" : amount.replacingOccurrences(of: "\"", with: "")
        #expect(
            Self.describe(tags).hasPrefix(
                #"{id:int(7),placed:date(1709251199123456),total:{amount:decimal(\#(written)),"#))
    }

    @Test(
        "an Arrow decimal is its value at scale 18, rescaled exactly; a digit it would lose or a negative zero is an issue",
        arguments: [
            ("1.10", "decimal128(1100000000000000000)"), ("0.000", "decimal128(0)"),
            ("-0.500", "decimal128(-500000000000000000)"), ("1.0E+2", "decimal128(100000000000000000000)"),
            ("0.123456789012345678000", "decimal128(123456789012345678)"),
            ("0.1234567890123456789", "0.1234567890123456789 does not fit decimal128(38, 18)"),
            ("-0.0", "-0.0 is a negative zero, which decimal128 does not keep"),
        ])
    func arrowDecimals(amount: String, expected: String) throws {
        let (records, schema) = try Self.context(forArrow: true)
        let record = Self.record.replacingOccurrences(of: "12345678901234567890.125", with: amount)
        var output: [UInt8] = []
        _ = records.map(Array(record.utf8), into: &output)
        var tags: [UInt8] = []
        let outcome = output.withUnsafeBufferPointer { json -> String in
            do throws(EncodingFailure) {
                try ValueEncoder(schema: schema, forArrow: true).encode(json, into: &tags)
            } catch {
                return error.message
            }
            let text = Self.describe(tags)
            guard let start = text.range(of: "total:{amount:")?.upperBound else { return text }
            return String(text[start...].prefix(while: { $0 != "," }))
        }
        if expected.hasPrefix("decimal128") {
            #expect(outcome == expected)
        } else {
            // The failure says where in the output, after the reason.
            #expect(outcome.hasPrefix("$.total.amount: \(expected) (byte "), "\(outcome)")
        }
    }

    @Test func arrowSchemaAsPyarrowPrintsIt() throws {
        let (_, schema) = try Self.context(forArrow: true)
        #expect(
            ArrowBuilder.schemaText(schema) == """
                id: int64 not null
                placed: timestamp[us, tz=UTC]
                total: struct<amount: decimal128(38, 18) not null, currency: string not null>
                lines: list<item: struct<amount: decimal128(38, 18) not null, currency: string not null> not null> not null
                tags: map<string, double> not null
                extra: string
                paid: bool not null
                """)
    }

    @Test func aDecimalBeyondTheColumnFailsTheRecordNotARoundedValue() throws {
        let (records, schema) = try Self.context(forArrow: true)
        let builder = ArrowBuilder(schema: schema)
        // 20 digits before the point and 18 after fit decimal128(38, 18); 21 before do not, nor 19 after.
        let cases = [
            (Self.record, true),
            (Self.record.replacingOccurrences(of: "12345678901234567890.125", with: "123456789012345678901.5"), false),
            (Self.record.replacingOccurrences(of: "12345678901234567890.125", with: "0.1234567890123456789"), false),
            (Self.record.replacingOccurrences(of: "12345678901234567890.125", with: "-1e-18"), true),
        ]
        for (record, fits) in cases {
            var output: [UInt8] = []
            _ = records.map(Array(record.utf8), into: &output)
            var tags: [UInt8] = []
            let failure = output.withUnsafeBufferPointer { json -> String? in
                do throws(EncodingFailure) {
                    try ValueEncoder(schema: schema, forArrow: true).encode(json, into: &tags)
                    return nil
                } catch {
                    return error.message
                }
            }
            #expect((failure == nil) == fits, "\(failure ?? "fits")")
            if let failure { #expect(failure.hasPrefix("$.total.amount: ") && failure.contains("decimal128(38, 18)")) }
            if fits { tags.withUnsafeBytes { builder.append($0) } }
        }
        #expect(builder.rows == 2)
    }

    @Test func nullAndMissingFieldsWhereTheSchemaSaysNotFailForArrow() throws {
        let (_, schema) = try Self.context(forArrow: true)
        let encoder = ValueEncoder(schema: schema, forArrow: true)
        func failure(_ output: String) -> String? {
            var tags: [UInt8] = []
            return Array(output.utf8).withUnsafeBufferPointer { json -> String? in
                do throws(EncodingFailure) {
                    try encoder.encode(json, into: &tags)
                    return nil
                } catch {
                    return error.message
                }
            }
        }
        let whole = #"{"id":1,"placed":null,"total":null,"lines":[],"tags":{},"extra":null,"paid":false}"#
        #expect(failure(whole) == nil)
        #expect(failure(whole.replacingOccurrences(of: #""id":1,"#, with: ""))?.hasPrefix("$.id: missing") == true)
        #expect(
            failure(whole.replacingOccurrences(of: #""paid":false"#, with: #""paid":null"#))?.hasPrefix("$.paid: null")
                == true)
        #expect(
            failure(whole.replacingOccurrences(of: #""id":1"#, with: #""id":"1""#))?.hasPrefix(
                "$.id: expected an integer") == true)
        #expect(
            failure(whole.replacingOccurrences(of: #""lines":[]"#, with: #""lines":[null]"#))?.hasPrefix(
                "$.lines[0]: null") == true)
    }
}
