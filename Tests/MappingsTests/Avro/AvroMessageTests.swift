import Mappings
import MappingsJSON
import Testing

/// Avro messages back to back: single-object encoding (`C3 01` and the fingerprint) and
/// Confluent's framing (`00` and a schema id), their datums read by the schemas given.
@Suite("Avro messages")
struct AvroMessageTests {
    static let user =
        #"{"type": "record", "name": "User", "fields": [{"name": "id", "type": "long"}, {"name": "name", "type": "string"}]}"#
    static let point = #"{"type": "record", "name": "Point", "fields": [{"name": "x", "type": "double"}]}"#

    static func datum(_ schema: String, _ json: String) throws -> [UInt8] {
        var output: [UInt8] = []
        try AvroDatumWriter(schema: try AvroSchema(parsing: schema)).write(try JSONParser.parse(json), into: &output)
        return output
    }

    static func singleObject(_ schema: String, _ json: String) throws -> [UInt8] {
        let fingerprint = try AvroSchema(parsing: schema).fingerprint
        return [0xC3, 0x01] + withUnsafeBytes(of: fingerprint.littleEndian) { Array($0) } + (try datum(schema, json))
    }

    static func confluent(_ id: UInt32, _ schema: String, _ json: String) throws -> [UInt8] {
        [0x00] + withUnsafeBytes(of: id.bigEndian) { Array($0) } + (try datum(schema, json))
    }

    static func decode(_ bytes: [UInt8], _ schemas: [(id: UInt32?, schema: String)]) throws -> DecodedRecords {
        var decoder = AvroDecoder(schemas: try schemas.map { ($0.id, try AvroSchema(parsing: $0.schema)) })
        var records = DecodedRecords()
        for byte in bytes {
            try [byte].withUnsafeBytes { raw in
                Result { () throws(FormatFailure) in try decoder.decode(raw, into: &records) }
            }.get()
        }
        try decoder.finish(into: &records)
        return records
    }

    @Test("single-object messages of two schemas read by their fingerprints, a byte at a time")
    func singleObjects() throws {
        let bytes =
            try Self.singleObject(Self.user, #"{"id": 1, "name": "Ada"}"#)
            + Self.singleObject(Self.point, #"{"x": 0.5}"#) + Self.singleObject(Self.user, #"{"id": -2, "name": ""}"#)
        let records = try Self.decode(bytes, [(nil, Self.user), (nil, Self.point)])
        #expect(
            String(decoding: records.text, as: UTF8.self)
                == "{\"id\":1,\"name\":\"Ada\"}\n{\"x\":0.5}\n{\"id\":-2,\"name\":\"\"}\n")
    }

    @Test("Confluent messages read by their schema ids; an id no schema is given for is a failure at its byte")
    func confluent() throws {
        let good =
            try Self.confluent(7, Self.user, #"{"id": 3, "name": "x"}"#) + Self.confluent(9, Self.point, #"{"x": 2.0}"#)
        let records = try Self.decode(good, [(7, Self.user), (9, Self.point)])
        #expect(String(decoding: records.text, as: UTF8.self) == "{\"id\":3,\"name\":\"x\"}\n{\"x\":2.0}\n")
        let unknown = good + (try Self.confluent(8, Self.point, #"{"x": 1.0}"#))
        #expect(
            throws: FormatFailure(
                "the message names the schema id 8, which no --avro-schema gives", offset: good.count, record: 3)
        ) {
            try Self.decode(unknown, [(7, Self.user), (9, Self.point)])
        }
    }

    @Test("a message whose datum does not read is a reject; the next message reads")
    func corruptMessage() throws {
        var bad = try Self.singleObject(Self.user, #"{"id": 1, "name": "Ada"}"#)
        bad[bad.count - 4] = 0x7F  // the string's length, now past the message's end
        let next = try Self.singleObject(Self.user, #"{"id": 2, "name": "Bob"}"#)
        let records = try Self.decode(bad + next, [(nil, Self.user)])
        #expect(String(decoding: records.text, as: UTF8.self) == "{\"id\":2,\"name\":\"Bob\"}\n")
        #expect(records.rejects.count == 1)
        #expect(records.rejects.first?.reject.position == FormatPosition(offset: 0, record: 1))
    }

    @Test("messages without a schema are a failure that asks for one")
    func noSchema() throws {
        let bytes = try Self.singleObject(Self.user, #"{"id": 1, "name": "Ada"}"#)
        #expect(
            throws: FormatFailure(
                "the input is Avro messages (single-object, C3 01): their writer schema is needed, with --avro-schema",
                offset: 0)
        ) {
            try Self.decode(bytes, [])
        }
    }
}
