import Foundation
package import MappingsEngine
import MappingsJSON
package import MappingsSpark

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
    /// A 4-byte member count, then each member: a 4-byte key length, the key, its value.
    case object = 9
    /// A 4-byte element count, then the elements.
    case array = 10
    /// No value (a result without output).
    case absent = 0xFF
}

/// Turns a record's output JSON into tagged values by the context's `ValueSchema`, so that the
/// Python module builds objects without reading JSON, and the Arrow builder fills columns:
/// dates become microseconds (a date whose text is no ISO 8601 instant stays a string),
/// decimals keep their digits, whole numbers beyond 64 bits their digits.
///
/// `forArrow`: a `JSON` value (and a value of another kind where a string is expected) is
/// its JSON text, as the Arrow column (a string) holds it; otherwise it is the value.
package struct ValueEncoder: Sendable {
    package let schema: ValueSchema
    package let forArrow: Bool

    package init(schema: ValueSchema, forArrow: Bool) {
        self.schema = schema
        self.forArrow = forArrow
    }

    /// Appends the tags of `json` read as node `node` (0: the record's struct).
    package func encode(_ json: UnsafeBufferPointer<UInt8>, node: Int = 0, into out: inout [UInt8])
        throws(SparkRowEncoder.Failure)
    {
        out.reserveCapacity(out.count + json.count + 64)
        var writer = Writer(nodes: schema.nodes, forArrow: forArrow, reader: OutputReader(bytes: json))
        writer.reader.skipSpace()
        try writer.value(node, into: &out)
        writer.reader.skipSpace()
        guard writer.reader.atEnd else { throw writer.reader.failure("text after the value") }
    }

    /// Appends the tags of the JSON array `json` whose elements are read as node 0 (what
    /// mapping an array of payloads gives).
    package func encodeArray(_ json: UnsafeBufferPointer<UInt8>, into out: inout [UInt8])
        throws(SparkRowEncoder.Failure)
    {
        var writer = Writer(nodes: schema.nodes, forArrow: forArrow, reader: OutputReader(bytes: json))
        writer.reader.skipSpace()
        try writer.array(element: 0, into: &out)
    }

    private struct Writer {
        let nodes: [ValueSchema.Node]
        let forArrow: Bool
        var reader: OutputReader

        mutating func value(_ index: Int, into out: inout [UInt8]) throws(SparkRowEncoder.Failure) {
            if reader.takeNull() {
                out.append(ValueTag.null.rawValue)
                return
            }
            let node = nodes[index]
            switch node.kind {
            case .integer:
                let start = reader.position
                if let integer = try? reader.integer() {
                    out.append(ValueTag.integer.rawValue)
                    Self.put(UInt64(bitPattern: integer), into: &out)
                } else {
                    reader.position = start
                    try any(into: &out)
                }
            case .double:
                guard reader.peek != UInt8(ascii: "\"") else { return try any(into: &out) }
                out.append(ValueTag.double.rawValue)
                Self.put(try reader.double().bitPattern, into: &out)
            case .boolean:
                try any(into: &out)
            case .date:
                guard reader.peek == UInt8(ascii: "\"") else { return try any(into: &out) }
                let start = reader.position
                if let micros = try reader.withString({ SparkRowEncoder.microseconds(iso8601: $0) }),
                    Self.isPythonDate(micros) || forArrow
                {
                    out.append(ValueTag.date.rawValue)
                    Self.put(UInt64(bitPattern: micros), into: &out)
                } else {
                    reader.position = start
                    try any(into: &out)
                }
            case .decimal:
                guard reader.peek != UInt8(ascii: "\""), reader.peek != UInt8(ascii: "{"),
                    reader.peek != UInt8(ascii: "[")
                else { return try any(into: &out) }
                let range = try reader.numberText()
                Self.text(.decimal, UnsafeBufferPointer(rebasing: reader.bytes[range]), into: &out)
            case .string:
                if reader.peek == UInt8(ascii: "\"") {
                    try string(into: &out)
                } else if forArrow {
                    try rawText(into: &out)
                } else {
                    try any(into: &out)
                }
            case .json:
                if forArrow { try rawText(into: &out) } else { try any(into: &out) }
            case .structure:
                guard reader.peek == UInt8(ascii: "{") else { return try mismatch(into: &out) }
                try object(fields: Int(node.first)..<Int(node.first + node.count), value: nil, into: &out)
            case .list:
                guard reader.peek == UInt8(ascii: "[") else { return try mismatch(into: &out) }
                try array(element: Int(node.first), into: &out)
            case .map:
                guard reader.peek == UInt8(ascii: "{") else { return try mismatch(into: &out) }
                try object(fields: 0..<0, value: Int(node.first), into: &out)
            }
        }

        /// A value whose JSON kind is not the schema's: as it is for Python; an error for Arrow.
        mutating func mismatch(into out: inout [UInt8]) throws(SparkRowEncoder.Failure) {
            if forArrow { throw reader.failure("a value of another kind than the schema's") }
            try any(into: &out)
        }

        /// An object: members named in `fields` by their node, the others (or every one, with
        /// `value`: a map's values) by `value`'s node, or as they are.
        mutating func object(fields: Range<Int>, value: Int?, into out: inout [UInt8]) throws(SparkRowEncoder.Failure) {
            try reader.expect(UInt8(ascii: "{"))
            out.append(ValueTag.object.rawValue)
            let countAt = out.count
            Self.put32(0, into: &out)
            var count: UInt32 = 0
            var expected = fields.lowerBound
            reader.skipSpace()
            if reader.peek == UInt8(ascii: "}") {
                reader.advance()
                return
            }
            while true {
                reader.skipSpace()
                var node = value
                if expected < fields.upperBound,
                    try nodes[expected].name.withUnsafeBufferPointer({ name throws(SparkRowEncoder.Failure) in
                        try reader.takeKey(name)
                    })
                {
                    node = expected
                    Self.text(nil, nodes[expected].name, into: &out)
                    expected += 1
                } else {
                    let keyAt = out.count
                    Self.put32(0, into: &out)
                    try reader.appendString(into: &out)
                    Self.patch32(UInt32(out.count - keyAt - 4), at: keyAt, in: &out)
                    if value == nil,
                        let found = fields.first(where: { nodes[$0].name.elementsEqual(out[(keyAt + 4)...]) })
                    {
                        node = found
                        expected = found + 1
                    }
                }
                reader.skipSpace()
                try reader.expect(UInt8(ascii: ":"))
                reader.skipSpace()
                if let node { try self.value(node, into: &out) } else { try any(into: &out) }
                count += 1
                reader.skipSpace()
                if reader.peek == UInt8(ascii: ",") {
                    reader.advance()
                    continue
                }
                try reader.expect(UInt8(ascii: "}"))
                Self.patch32(count, at: countAt, in: &out)
                return
            }
        }

        mutating func array(element: Int?, into out: inout [UInt8]) throws(SparkRowEncoder.Failure) {
            try reader.expect(UInt8(ascii: "["))
            out.append(ValueTag.array.rawValue)
            let countAt = out.count
            Self.put32(0, into: &out)
            var count: UInt32 = 0
            reader.skipSpace()
            if reader.peek == UInt8(ascii: "]") {
                reader.advance()
                return
            }
            while true {
                reader.skipSpace()
                if let element { try value(element, into: &out) } else { try any(into: &out) }
                count += 1
                reader.skipSpace()
                if reader.peek == UInt8(ascii: ",") {
                    reader.advance()
                    continue
                }
                try reader.expect(UInt8(ascii: "]"))
                Self.patch32(count, at: countAt, in: &out)
                return
            }
        }

        /// Any JSON value, as it is: numbers by `number`, objects and arrays member by member.
        mutating func any(into out: inout [UInt8]) throws(SparkRowEncoder.Failure) {
            switch reader.peek {
            case UInt8(ascii: "\""): try string(into: &out)
            case UInt8(ascii: "{"): try object(fields: 0..<0, value: nil, into: &out)
            case UInt8(ascii: "["): try array(element: nil, into: &out)
            case UInt8(ascii: "t"), UInt8(ascii: "f"):
                out.append(try reader.boolean() ? ValueTag.yes.rawValue : ValueTag.no.rawValue)
            case UInt8(ascii: "n"):
                guard reader.takeNull() else { throw reader.failure("expected a value") }
                out.append(ValueTag.null.rawValue)
            default:
                if forArrow { return try rawText(into: &out) }
                let range = try reader.numberText()
                Self.number(UnsafeBufferPointer(rebasing: reader.bytes[range]), into: &out)
            }
        }

        mutating func string(into out: inout [UInt8]) throws(SparkRowEncoder.Failure) {
            out.append(ValueTag.string.rawValue)
            let at = out.count
            Self.put32(0, into: &out)
            try reader.appendString(into: &out)
            Self.patch32(UInt32(out.count - at - 4), at: at, in: &out)
        }

        /// The value's JSON text, as a string.
        mutating func rawText(into out: inout [UInt8]) throws(SparkRowEncoder.Failure) {
            let from = reader.position
            try reader.skipValue()
            Self.text(.string, UnsafeBufferPointer(rebasing: reader.bytes[from..<reader.position]), into: &out)
        }

        /// A number of a JSON value: an integer (any size), a double when the double reads
        /// back as the same number, else a decimal with every digit.
        static func number(_ text: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
            let whole = !text.contains { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }
            if whole {
                var reader = OutputReader(bytes: text)
                if let integer = try? reader.integer() {
                    out.append(ValueTag.integer.rawValue)
                    put(UInt64(bitPattern: integer), into: &out)
                } else {
                    Self.text(.bigInteger, text, into: &out)
                }
                return
            }
            let written = String(decoding: text, as: UTF8.self)
            if let number = JSONNumber(written), number.isExactDouble {
                out.append(ValueTag.double.rawValue)
                put(number.double.bitPattern, into: &out)
            } else {
                Self.text(.decimal, text, into: &out)
            }
        }

        /// Whether Python's `datetime` holds the instant (years 1 to 9999).
        static func isPythonDate(_ micros: Int64) -> Bool {
            micros >= -62_135_596_800_000_000 && micros <= 253_402_300_799_999_999
        }

        static func text(_ tag: ValueTag?, _ bytes: some Collection<UInt8>, into out: inout [UInt8]) {
            if let tag { out.append(tag.rawValue) }
            put32(UInt32(bytes.count), into: &out)
            out.append(contentsOf: bytes)
        }

        static func put(_ value: UInt64, into out: inout [UInt8]) {
            withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) }
        }

        static func put32(_ value: UInt32, into out: inout [UInt8]) {
            withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) }
        }

        static func patch32(_ value: UInt32, at offset: Int, in out: inout [UInt8]) {
            out[offset] = UInt8(truncatingIfNeeded: value)
            out[offset + 1] = UInt8(truncatingIfNeeded: value >> 8)
            out[offset + 2] = UInt8(truncatingIfNeeded: value >> 16)
            out[offset + 3] = UInt8(truncatingIfNeeded: value >> 24)
        }
    }
}

extension ValueEncoder: RecordEncoding {
    package var target: String { forArrow ? "the context's Arrow schema" : "the context's types" }

    /// A frame: the tags' length (4 bytes), then the tags.
    package func encodeRecord(_ json: UnsafeBufferPointer<UInt8>, into out: inout [UInt8])
        throws(RecordEncodingFailure)
    {
        let start = out.count
        out.append(contentsOf: [0, 0, 0, 0])
        do throws(SparkRowEncoder.Failure) {
            try encode(json, into: &out)
        } catch {
            out.removeSubrange(start...)
            throw RecordEncodingFailure(message: error.message)
        }
        let length = UInt32(out.count - start - 4)
        out[start] = UInt8(truncatingIfNeeded: length)
        out[start + 1] = UInt8(truncatingIfNeeded: length >> 8)
        out[start + 2] = UInt8(truncatingIfNeeded: length >> 16)
        out[start + 3] = UInt8(truncatingIfNeeded: length >> 24)
    }
}
