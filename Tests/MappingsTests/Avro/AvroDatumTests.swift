import Mappings
import MappingsJSON
import MappingsTestSupport
import Testing

/// Avro datums to JSON text and back: every type exactly (longs to their last digit, decimals with
/// their scale, timestamps with every digit of their unit), and bytes that do not read as an
/// error naming the value and the offset.
@Suite("Avro datums")
struct AvroDatumTests {
    static func read(_ schema: String, _ bytes: [UInt8]) throws -> String {
        let reader = AvroDatumReader(schema: try AvroSchema(parsing: schema))
        var output: [UInt8] = []
        var offset = 0
        try bytes.withUnsafeBytes { try reader.read($0, at: &offset, into: &output) }
        #expect(offset == bytes.count)
        return String(decoding: output, as: UTF8.self)
    }

    static func write(_ schema: String, _ json: String) throws -> [UInt8] {
        let writer = AvroDatumWriter(schema: try AvroSchema(parsing: schema))
        var output: [UInt8] = []
        try writer.write(try JSONParser.parse(json), into: &output)
        return output
    }

    @Test(
        "hand-encoded datums read as the documented JSON",
        arguments: [
            (#""long""#, [0x01], "-1"),
            (#""long""#, [0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01], "9223372036854775807"),
            (#""long""#, [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01], "-9223372036854775808"),
            (#"{"type": "bytes", "logicalType": "decimal", "precision": 5, "scale": 2}"#, [0x02, 0xFF], "-0.01"),
            (#"{"type": "bytes", "logicalType": "decimal", "precision": 5, "scale": 0}"#, [0x04, 0x00, 0x80], "128"),
            (#"{"type": "bytes", "logicalType": "decimal", "precision": 5, "scale": 3}"#, [0x00], "0.000"),
            (#"{"type": "long", "logicalType": "timestamp-millis"}"#, [0x01], #""1969-12-31T23:59:59.999Z""#),
            (#"{"type": "long", "logicalType": "timestamp-micros"}"#, [0x02], #""1970-01-01T00:00:00.000001Z""#),
            (#"{"type": "long", "logicalType": "local-timestamp-millis"}"#, [0x00], #""1970-01-01T00:00:00.000""#),
            (#"{"type": "int", "logicalType": "date"}"#, [0xF3, 0xE4, 0x57], #""0001-01-01""#),
            (#"{"type": "int", "logicalType": "time-millis"}"#, [0xFE, 0xEF, 0xB2, 0x52], #""23:59:59.999""#),
            (#""bytes""#, [0x06, 0x00, 0xFF, 0x41], #""AP9B""#),
            (#"{"type": "fixed", "name": "F", "size": 2}"#, [0x61, 0x62], #""YWI=""#),
            (#"{"type": "enum", "name": "E", "symbols": ["A", "B"]}"#, [0x02], #""B""#),
            (#"["null", "string"]"#, [0x00], "null"),
            (#"["null", "string"]"#, [0x02, 0x02, 0x22], #""\"""#),
            (#"{"type": "map", "values": "int"}"#, [0x02, 0x02, 0x6B, 0x54, 0x00], #"{"k":42}"#),
            (#"{"type": "array", "items": "boolean"}"#, [0x03, 0x04, 0x01, 0x00, 0x00], "[true,false]"),
            (#""float""#, [0xCD, 0xCC, 0xCC, 0x3D], "0.1"),
            (#""double""#, [0, 0, 0, 0, 0, 0, 0, 0x40], "2.0"),
        ] as [(String, [UInt8], String)])
    func reads(schema: String, bytes: [UInt8], json: String) throws {
        #expect(try Self.read(schema, bytes) == json)
    }

    @Test(
        "what the reader writes, the writer reads back to the same bytes",
        arguments: [
            #"{"type": "bytes", "logicalType": "decimal", "precision": 38, "scale": 4}"#,
            #"{"type": "fixed", "name": "M", "size": 8, "logicalType": "decimal", "precision": 18, "scale": 2}"#,
            #"{"type": "long", "logicalType": "timestamp-micros"}"#, #"{"type": "int", "logicalType": "date"}"#,
            #"{"type": "long", "logicalType": "local-timestamp-millis"}"#, #""double""#, #""float""#, #""long""#,
            #"{"type": "fixed", "name": "D", "size": 12, "logicalType": "duration"}"#,
        ])
    func roundTrips(schema: String) throws {
        var random = SeededGenerator(seed: UInt64(schema.utf8.count))
        for _ in 0..<300 {
            let bytes = Self.randomDatum(schema, using: &random)
            let json = try Self.read(schema, bytes)
            #expect(try Self.write(schema, json) == bytes, "\(json)")
        }
    }

    /// A datum of `schema` of random bits (a decimal of random digits within its precision).
    static func randomDatum(_ schema: String, using random: inout SeededGenerator) -> [UInt8] {
        let value = Int64.random(in: -(1 << 55)...(1 << 55), using: &random) >> Int.random(in: 0...54, using: &random)
        var bytes: [UInt8] = []
        switch schema {
        case _ where schema.contains("\"bytes\""):
            let digits = Array(String(value.magnitude).utf8)
            let encoded = AvroDecimal.twosComplement(digits: digits == [48] ? [] : digits, negative: value < 0)
            AvroDatumWriter.appendVarint(Int64(encoded.count), to: &bytes)
            bytes += encoded
        case _ where schema.contains("\"M\""):
            bytes = withUnsafeBytes(of: (value >> 5).bigEndian) { Array($0) }
        case _ where schema.contains("duration"):
            bytes = (0..<12).map { _ in UInt8.random(in: 0...255, using: &random) }
        case _ where schema.contains("date"):
            AvroDatumWriter.appendVarint(value % 2_932_896, to: &bytes)
        case #""double""#:
            let double = Double(value) / Double(1 << Int.random(in: 0...60, using: &random))
            bytes = withUnsafeBytes(of: double.bitPattern.littleEndian) { Array($0) }
        case #""float""#:
            bytes = withUnsafeBytes(of: Float(Double(value) / 1024).bitPattern.littleEndian) { Array($0) }
        default:
            AvroDatumWriter.appendVarint(value, to: &bytes)
        }
        return bytes
    }

    @Test(
        "bytes that do not read are an error naming the value and the offset",
        arguments: [
            (
                #"{"type": "record", "name": "R", "fields": [{"name": "a", "type": "int"}, {"name": "b", "type": "string"}]}"#,
                [0x02, 0x20, 0x61], "$.b: the string of 16 bytes runs past the end of the datum (1 left)", 1
            ),
            (#""boolean""#, [0x02], "$: the boolean is the byte 2, neither 0 nor 1", 0),
            (#""int""#, [0xFF, 0xFF, 0xFF, 0xFF, 0x7F], "$: the int is beyond an int's 32 bits", 0),
            (#"["null", "int"]"#, [0x04], "$: the union's branch 2 is not one of its 2", 0),
            (
                #"{"type": "array", "items": "long"}"#, [0x80, 0x80, 0x04],
                "$: the array's count 32768 is more than its bytes can hold", 0
            ),
            (
                #"{"type": "array", "items": "null"}"#, [0xFE, 0xFF, 0xFF, 0xFF, 0x0F],
                "$: the array's count 2147483647 is more than its bytes can hold", 0
            ),
            (#""double""#, [0, 0, 0, 0, 0, 0, 0xF8, 0x7F], "$: the double is nan, which JSON cannot write", 0),
            (#""string""#, [0x02, 0xFF], "$: the string is not UTF-8", 0),
        ] as [(String, [UInt8], String, Int)])
    func errors(schema: String, bytes: [UInt8], message: String, offset: Int) throws {
        do {
            _ = try Self.read(schema, bytes)
            Issue.record("read")
        } catch let error as AvroDatumError {
            #expect(error.description == message)
            #expect(error.offset == offset)
        }
    }

    @Test(
        "values the schema cannot hold are an error naming the field",
        arguments: [
            (
                #"{"type": "record", "name": "R", "fields": [{"name": "a", "type": "int"}]}"#, #"{"a": 3000000000}"#,
                "$.a: expected an int, found 3000000000"
            ),
            (
                #"{"type": "record", "name": "R", "fields": [{"name": "a", "type": "int"}]}"#, #"{"a": 1, "b": 2}"#,
                #"$: the record "R" has no field "b""#
            ),
            (
                #"{"type": "bytes", "logicalType": "decimal", "precision": 5, "scale": 2}"#, "1.005",
                "$: 1.005 has more decimal places than the scale 2"
            ),
            (
                #"{"type": "bytes", "logicalType": "decimal", "precision": 3, "scale": 2}"#, "10.5",
                "$: 10.5 has more digits than the precision 3"
            ),
            (
                #"{"type": "long", "logicalType": "timestamp-millis"}"#, #""2024-01-01T00:00:00.0001Z""#,
                #"$: expected an ISO 8601 date and time with at most 3 fractional digits, found "2024-01-01T00:00:00.0001Z""#
            ),
            (#"["null", "long"]"#, #""x""#, #"$: no branch of the union (null, long) takes "x""#),
        ])
    func writeErrors(schema: String, json: String, message: String) throws {
        do {
            _ = try Self.write(schema, json)
            Issue.record("written")
        } catch let error as AvroDatumError {
            #expect(error.description == message)
        }
    }
}
