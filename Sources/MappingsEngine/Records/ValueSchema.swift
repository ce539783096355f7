/// The tags of the value encoding `ValueEncoder` writes and the Python module and the Arrow
/// builder read: each value is a tag byte, then (little-endian) what the tag says.
package enum ValueTag: UInt8 {
    case null = 0, yes = 1, no = 2
    /// Eight bytes.
    case integer = 3
    /// A whole number beyond 64 bits: a 4-byte length, its digits.
    case bigInteger = 4
    /// Eight bytes, the IEEE 754 bits.
    case double = 5
    /// A 4-byte length, UTF-8.
    case string = 6
    /// A 4-byte length, the number as written (every digit).
    case decimal = 7
    /// Microseconds since 1970, UTC (eight bytes).
    case date = 8
    /// A decimal at `Decimal128.scale` (16 bytes): for Arrow only.
    case decimal128 = 11
    /// A 4-byte member count, then each member: a 4-byte key length, the key, its value.
    case object = 9
    /// A 4-byte element count, then the elements.
    case array = 10
    /// No value (a result without output).
    case absent = 0xFF
}

/// The types a context's output takes, as Python values and Arrow columns read it: a flat
/// node table (MappingsSpark reads it from the context's Spark schema, `ValueSchema(spark:)`).
/// A fast plan writes a record's tags by it (`DirectTagEncoding.directSchema`).
package struct ValueSchema: Sendable {
    package enum Kind: UInt8, Sendable {
        case integer, double, boolean, date, string, decimal, json, structure, list, map
    }

    /// One type, or one field of a struct (a type with a name). Plain data: the encoders walk
    /// the table without counting references.
    package struct Node: Sendable {
        package var kind: Kind
        /// A struct's first field (its fields are the `count` nodes from there); a list's
        /// element; a map's value.
        package var first: Int32 = 0
        package var count: Int32 = 0
        /// A field's name: where it is in `names`.
        package var nameStart: Int32 = 0
        package var nameCount: Int32 = 0
        /// Whether the value may be null (a field's, a list element's, a map value's).
        package var nullable = true

        package init(
            kind: Kind, first: Int32 = 0, count: Int32 = 0, nameStart: Int32 = 0, nameCount: Int32 = 0,
            nullable: Bool = true
        ) {
            self.kind = kind
            self.first = first
            self.count = count
            self.nameStart = nameStart
            self.nameCount = nameCount
            self.nullable = nullable
        }
    }

    /// Node 0 is the record's struct.
    package let nodes: [Node]
    /// The fields' names, one after the other.
    package let names: [UInt8]

    /// A field's name.
    package func name(_ index: Int) -> ArraySlice<UInt8> {
        let node = nodes[index]
        return names[Int(node.nameStart)..<Int(node.nameStart + node.nameCount)]
    }

    /// Whether Python's `datetime` holds the instant (years 1 to 9999): a date's value is one,
    /// else its text.
    package static func isPythonDate(_ micros: Int64) -> Bool {
        micros >= -62_135_596_800_000_000 && micros <= 253_402_300_799_999_999
    }

    package init(nodes: [Node], names: [UInt8]) {
        self.nodes = nodes
        self.names = names
    }
}
