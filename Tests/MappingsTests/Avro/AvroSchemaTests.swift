import Mappings
import Testing

/// Avro schemas as the format reads them: named types and namespaces, recursion, logical types
/// (kept when valid, ignored when not, as the specification says), the canonical form and its
/// fingerprint (the values fastavro computes for the same schemas).
@Suite("Avro schemas")
struct AvroSchemaTests {
    static let event = """
        {"type": "record", "name": "A", "namespace": "n", "fields": [
          {"name": "a", "type": {"type": "long", "logicalType": "timestamp-millis"}, "doc": "when"},
          {"name": "e", "type": {"type": "enum", "name": "E", "symbols": ["X", "Y"]}},
          {"name": "f", "type": ["null", "E"], "default": null}]}
        """

    @Test("the canonical form drops logical types and names each type once, with its full name")
    func canonicalForm() throws {
        let schema = try AvroSchema(parsing: Self.event)
        #expect(
            schema.canonicalForm
                == #"{"name":"n.A","type":"record","fields":[{"name":"a","type":"long"},{"name":"e","type":{"name":"n.E","type":"enum","symbols":["X","Y"]}},{"name":"f","type":["null","n.E"]}]}"#
        )
    }

    @Test(
        "fingerprints are CRC-64-AVRO of the canonical form, as fastavro computes them",
        // fastavro prints them as their 8 bytes little-endian: 8f5c393f1ad57572 and d4e86126d3cf799f.
        arguments: [(#""int""#, 0x7275_D51A_3F39_5C8F), (event, 0x9F79_CFD3_2661_E8D4)] as [(String, UInt64)])
    func fingerprint(text: String, expected: UInt64) throws {
        #expect(try AvroSchema(parsing: text).fingerprint == expected)
    }

    @Test("a record may contain itself through a union or an array")
    func recursion() throws {
        let schema = try AvroSchema(
            parsing: """
                {"type": "record", "name": "Node", "fields": [
                  {"name": "next", "type": ["null", "Node"]}, {"name": "children", "type": {"type": "array", "items": "Node"}}]}
                """)
        guard case .record(let name, let fields) = schema[schema.root].kind else {
            Issue.record("not a record")
            return
        }
        #expect(name == "Node")
        guard case .union(let branches) = schema[fields[0].type].kind else {
            Issue.record("not a union")
            return
        }
        #expect(branches[1] == schema.root)
        #expect(schema.minimumSize(of: schema.root) == 2)
    }

    @Test(
        "logical types are kept only where the specification allows them",
        arguments: [
            (#"{"type": "bytes", "logicalType": "decimal", "precision": 9, "scale": 2}"#, "decimal"),
            (#"{"type": "bytes", "logicalType": "decimal", "precision": 2, "scale": 3}"#, nil),
            (#"{"type": "fixed", "name": "F", "size": 2, "logicalType": "decimal", "precision": 5}"#, nil),
            (#"{"type": "fixed", "name": "F", "size": 3, "logicalType": "decimal", "precision": 6}"#, "decimal"),
            (#"{"type": "int", "logicalType": "date"}"#, "date"),
            (#"{"type": "long", "logicalType": "date"}"#, nil),
            (#"{"type": "long", "logicalType": "timestamp-micros"}"#, "timestamp-micros"),
            (#"{"type": "string", "logicalType": "uuid"}"#, "uuid"),
            (#"{"type": "fixed", "name": "D", "size": 12, "logicalType": "duration"}"#, "duration"),
            (#"{"type": "long", "logicalType": "unknown-thing"}"#, nil),
        ] as [(String, String?)])
    func logicalTypes(text: String, expected: String?) throws {
        let schema = try AvroSchema(parsing: text)
        #expect(schema[schema.root].logical?.name == expected)
    }

    @Test(
        "an invalid schema says what is wrong",
        arguments: [
            (
                #"{"type": "record", "name": "R", "fields": [{"name": "a", "type": "Missing"}]}"#,
                #"the schema uses the type "Missing", which it does not declare (before that use)"#
            ),
            (
                #"{"type": "record", "name": "R", "fields": [{"name": "a"}]}"#,
                #"the field "a" of the record "R" has no type"#
            ),
            (#"["int", ["long"]]"#, "a union cannot hold a union directly"),
            (
                #"{"type": "enum", "name": "E", "symbols": ["A", "A"]}"#,
                #"the symbols of the enum "E" are strings, each once"#
            ),
            ("{", "the schema is not JSON: 1:2: unexpected end of input in an object"),
        ])
    func invalid(text: String, message: String) {
        #expect(throws: AvroSchema.Invalid(message)) { try AvroSchema(parsing: text) }
    }
}
