import Foundation
package import MappingsEngine
import MappingsJSON
import MappingsModel

/// Turns a record's output JSON into tagged values by the context's `ValueSchema`, so that the
/// Python module builds objects without reading JSON, and the Arrow builder fills columns:
/// dates become microseconds (a date whose text is no ISO 8601 instant stays a string),
/// decimals keep their digits, whole numbers beyond 64 bits their digits.
///
/// `forArrow`: the tags are what the Arrow columns take, checked here (on the lanes) so that
/// the builder only copies: a `JSON` value (and a value of another kind where a string is
/// expected) is its JSON text, a decimal its decimal128 at the builder's scale, and a value the
/// schema cannot hold — null where it is not nullable, a field missing, a decimal beyond
/// decimal128(38, 18) or a negative zero, a date that is no instant — fails the record, never
/// rounded or dropped. A decimal with fewer digits after the point than 18 is rescaled
/// exactly (`1.10` is 1.100000000000000000); one with more is kept when they are zeros.
package struct ValueEncoder: Sendable {
    package let schema: ValueSchema
    package let forArrow: Bool

    package init(schema: ValueSchema, forArrow: Bool) {
        self.schema = schema
        self.forArrow = forArrow
    }

    /// Appends the tags of `json` read as node `node` (0: the record's struct).
    package func encode(_ json: UnsafeBufferPointer<UInt8>, node: Int = 0, into out: inout [UInt8])
        throws(EncodingFailure)
    {
        out.reserveCapacity(out.count + json.count + 64)
        let done: Result<Void, EncodingFailure> = schema.nodes.withUnsafeBufferPointer { nodes in
            schema.names.withUnsafeBufferPointer { names in
                var writer = Writer(nodes: nodes, names: names, forArrow: forArrow, reader: OutputReader(bytes: json))
                return Result { () throws(EncodingFailure) in
                    writer.reader.skipSpace()
                    try writer.value(node, into: &out)
                    writer.reader.skipSpace()
                    guard writer.reader.atEnd else { throw writer.reader.failure("text after the value") }
                }
            }
        }
        try done.get()
    }

    /// Appends the tags of the JSON array `json` whose elements are read as node 0 (what
    /// mapping an array of payloads gives).
    package func encodeArray(_ json: UnsafeBufferPointer<UInt8>, into out: inout [UInt8])
        throws(EncodingFailure)
    {
        let done: Result<Void, EncodingFailure> = schema.nodes.withUnsafeBufferPointer { nodes in
            schema.names.withUnsafeBufferPointer { names in
                var writer = Writer(nodes: nodes, names: names, forArrow: forArrow, reader: OutputReader(bytes: json))
                return Result { () throws(EncodingFailure) in
                    writer.reader.skipSpace()
                    try writer.array(element: 0, into: &out)
                }
            }
        }
        try done.get()
    }

    private struct Writer {
        let nodes: UnsafeBufferPointer<ValueSchema.Node>
        let names: UnsafeBufferPointer<UInt8>
        let forArrow: Bool
        var reader: OutputReader

        func name(_ node: ValueSchema.Node) -> UnsafeBufferPointer<UInt8> {
            UnsafeBufferPointer(rebasing: names[Int(node.nameStart)..<Int(node.nameStart + node.nameCount)])
        }

        mutating func value(_ index: Int, into out: inout [UInt8]) throws(EncodingFailure) {
            let node = nodes[index]
            if reader.takeNull() {
                if forArrow, !node.nullable { throw reader.failure("null in a column that is not nullable") }
                out.append(ValueTag.null.rawValue)
                return
            }
            switch node.kind {
            case .integer:
                let start = reader.position
                if reader.peek != UInt8(ascii: "\""), let integer = try? reader.integer() {
                    out.append(ValueTag.integer.rawValue)
                    Self.put(UInt64(bitPattern: integer), into: &out)
                } else {
                    reader.position = start
                    try other("an integer of 64 bits", into: &out)
                }
            case .double:
                guard reader.peek != UInt8(ascii: "\""), reader.peek != UInt8(ascii: "{"),
                    reader.peek != UInt8(ascii: "["), reader.peek != UInt8(ascii: "t"), reader.peek != UInt8(ascii: "f")
                else { return try other("a number", into: &out) }
                out.append(ValueTag.double.rawValue)
                Self.put(try reader.double().bitPattern, into: &out)
            case .boolean:
                guard reader.peek == UInt8(ascii: "t") || reader.peek == UInt8(ascii: "f") else {
                    return try other("a boolean", into: &out)
                }
                out.append(try reader.boolean() ? ValueTag.yes.rawValue : ValueTag.no.rawValue)
            case .date:
                guard reader.peek == UInt8(ascii: "\"") else { return try other("an ISO 8601 instant", into: &out) }
                let start = reader.position
                if let micros = try reader.withString({ SparkRowEncoder.microseconds(iso8601: $0) }),
                    forArrow || ValueSchema.isPythonDate(micros)
                {
                    out.append(ValueTag.date.rawValue)
                    Self.put(UInt64(bitPattern: micros), into: &out)
                } else {
                    reader.position = start
                    try other("an ISO 8601 instant", into: &out)
                }
            case .decimal:
                guard reader.peek != UInt8(ascii: "\""), reader.peek != UInt8(ascii: "{"),
                    reader.peek != UInt8(ascii: "["), reader.peek != UInt8(ascii: "t"), reader.peek != UInt8(ascii: "f")
                else { return try other("a decimal", into: &out) }
                let range = try reader.numberText()
                let text = UnsafeBufferPointer(rebasing: reader.bytes[range])
                guard forArrow else { return Self.text(.decimal, text, into: &out) }
                guard let scaled = Decimal128.scaled(text) else {
                    throw reader.failure(
                        "\(String(decoding: text, as: UTF8.self)) does not fit decimal128(\(Decimal128.precision), \(Decimal128.scale))"
                    )
                }
                // decimal128 has no negative zero: -0.0 would read back as 0E-18.
                if scaled == 0, text.first == UInt8(ascii: "-") {
                    throw reader.failure(
                        "\(String(decoding: text, as: UTF8.self)) is a negative zero, which decimal128 does not keep")
                }
                out.append(ValueTag.decimal128.rawValue)
                withUnsafeBytes(of: scaled.littleEndian) { out.append(contentsOf: $0) }
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
                guard reader.peek == UInt8(ascii: "{") else { return try other("an object", into: &out) }
                try structure(node, into: &out)
            case .list:
                guard reader.peek == UInt8(ascii: "[") else { return try other("an array", into: &out) }
                try array(element: Int(node.first), into: &out)
            case .map:
                guard reader.peek == UInt8(ascii: "{") else { return try other("an object", into: &out) }
                try map(value: Int(node.first), into: &out)
            }
        }

        /// A value whose JSON kind is not the schema's: as it is for Python; for Arrow, no
        /// column takes it.
        mutating func other(_ expected: String, into out: inout [UInt8]) throws(EncodingFailure) {
            if forArrow {
                let from = reader.position
                try reader.skipValue()
                let text = String(
                    decoding: UnsafeBufferPointer(rebasing: reader.bytes[from..<min(reader.position, from + 60)]),
                    as: UTF8.self)
                reader.position = from
                throw reader.failure("expected \(expected), found \(text)")
            }
            try any(into: &out)
        }

        /// A struct: its fields by their nodes (for Python, the other members as they are);
        /// for Arrow, a field that is not nullable must be there.
        mutating func structure(_ node: ValueSchema.Node, into out: inout [UInt8]) throws(EncodingFailure) {
            let first = Int(node.first)
            let fields = first..<(first + Int(node.count))
            var seen: [Bool] = forArrow && fields.count > 64 ? Array(repeating: false, count: fields.count) : []
            var seenBits: UInt64 = 0
            try reader.expect(UInt8(ascii: "{"))
            out.append(ValueTag.object.rawValue)
            let countAt = out.count
            Self.put32(0, into: &out)
            var count: UInt32 = 0
            var expected = first
            reader.skipSpace()
            if reader.peek != UInt8(ascii: "}") {
                while true {
                    reader.skipSpace()
                    var field: Int?
                    let keyStart = reader.position
                    if expected < fields.upperBound, try reader.takeKey(name(nodes[expected])) {
                        field = expected
                    } else {
                        var key: [UInt8] = []
                        try reader.appendString(into: &key)
                        field = key.withUnsafeBufferPointer { key in
                            fields.first { name(nodes[$0]).elementsEqual(key) }
                        }
                        if field == nil, !forArrow {
                            reader.position = keyStart
                        }
                    }
                    reader.skipSpace()
                    if let field {
                        expected = field + 1
                        Self.text(nil, name(nodes[field]), into: &out)
                        try reader.expect(UInt8(ascii: ":"))
                        reader.skipSpace()
                        do throws(EncodingFailure) {
                            try value(field, into: &out)
                        } catch {
                            throw error.within("." + String(decoding: name(nodes[field]), as: UTF8.self))
                        }
                        count += 1
                        if forArrow {
                            let offset = field - first
                            if offset < 64 { seenBits |= 1 << UInt64(offset) } else { seen[offset] = true }
                        }
                    } else if forArrow {
                        // No column takes a member the schema does not name.
                        try reader.expect(UInt8(ascii: ":"))
                        reader.skipSpace()
                        try reader.skipValue()
                    } else {
                        try member(value: nil, into: &out)
                        count += 1
                    }
                    reader.skipSpace()
                    if reader.peek == UInt8(ascii: ",") {
                        reader.advance()
                        continue
                    }
                    try reader.expect(UInt8(ascii: "}"))
                    break
                }
            } else {
                reader.advance()
            }
            Self.patch32(count, at: countAt, in: &out)
            guard forArrow else { return }
            for offset in 0..<fields.count where !nodes[first + offset].nullable {
                let present = offset < 64 ? seenBits & (1 << UInt64(offset)) != 0 : seen[offset]
                guard present else {
                    throw reader.failure("missing in a column that is not nullable").within(
                        "." + String(decoding: name(nodes[first + offset]), as: UTF8.self))
                }
            }
        }

        /// A member's key and value, the value by `value`'s node or as it is.
        mutating func member(value: Int?, into out: inout [UInt8]) throws(EncodingFailure) {
            let keyAt = out.count
            Self.put32(0, into: &out)
            try reader.appendString(into: &out)
            Self.patch32(UInt32(out.count - keyAt - 4), at: keyAt, in: &out)
            reader.skipSpace()
            try reader.expect(UInt8(ascii: ":"))
            reader.skipSpace()
            if let value { try self.value(value, into: &out) } else { try any(into: &out) }
        }

        /// An object whose values are all of node `value` (a map), or as they are (`nil`).
        mutating func map(value: Int?, into out: inout [UInt8]) throws(EncodingFailure) {
            try container(.object, opening: UInt8(ascii: "{"), closing: UInt8(ascii: "}"), into: &out) {
                writer, _, out throws(EncodingFailure) in
                try writer.member(value: value, into: &out)
            }
        }

        mutating func array(element: Int?, into out: inout [UInt8]) throws(EncodingFailure) {
            try container(.array, opening: UInt8(ascii: "["), closing: UInt8(ascii: "]"), into: &out) {
                writer, index, out throws(EncodingFailure) in
                guard let element else { return try writer.any(into: &out) }
                do throws(EncodingFailure) {
                    try writer.value(element, into: &out)
                } catch {
                    throw error.within("[\(index)]")
                }
            }
        }

        /// An array or object: its tag, its count, and each element or member as `item`
        /// writes it (given its index), up to `closing`.
        mutating func container(
            _ tag: ValueTag, opening: UInt8, closing: UInt8, into out: inout [UInt8],
            _ item: (inout Writer, UInt32, inout [UInt8]) throws(EncodingFailure) -> Void
        ) throws(EncodingFailure) {
            try reader.expect(opening)
            out.append(tag.rawValue)
            let countAt = out.count
            Self.put32(0, into: &out)
            reader.skipSpace()
            if reader.peek == closing {
                reader.advance()
                return
            }
            var count: UInt32 = 0
            while true {
                reader.skipSpace()
                try item(&self, count, &out)
                count += 1
                reader.skipSpace()
                if reader.peek == UInt8(ascii: ",") {
                    reader.advance()
                    continue
                }
                try reader.expect(closing)
                Self.patch32(count, at: countAt, in: &out)
                return
            }
        }

        /// Any JSON value, as it is: numbers by `number`, objects and arrays member by member.
        mutating func any(into out: inout [UInt8]) throws(EncodingFailure) {
            switch reader.peek {
            case UInt8(ascii: "\""): try string(into: &out)
            case UInt8(ascii: "{"): try map(value: nil, into: &out)
            case UInt8(ascii: "["): try array(element: nil, into: &out)
            case UInt8(ascii: "t"), UInt8(ascii: "f"):
                out.append(try reader.boolean() ? ValueTag.yes.rawValue : ValueTag.no.rawValue)
            case UInt8(ascii: "n"):
                guard reader.takeNull() else { throw reader.failure("expected a value") }
                out.append(ValueTag.null.rawValue)
            default:
                let range = try reader.numberText()
                Self.number(UnsafeBufferPointer(rebasing: reader.bytes[range]), into: &out)
            }
        }

        mutating func string(into out: inout [UInt8]) throws(EncodingFailure) {
            out.append(ValueTag.string.rawValue)
            let at = out.count
            Self.put32(0, into: &out)
            try reader.appendString(into: &out)
            Self.patch32(UInt32(out.count - at - 4), at: at, in: &out)
        }

        /// The value's JSON text, as a string.
        mutating func rawText(into out: inout [UInt8]) throws(EncodingFailure) {
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

        static func text(_ tag: ValueTag?, _ bytes: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
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

/// Arrow's decimal128 at the scale the builder gives every decimal column.
package enum Decimal128 {
    package static let precision = 38
    package static let scale = 18

    /// The number `text` times 10^scale, when that is a whole number of at most `precision`
    /// digits; `nil` otherwise (the value does not fit: never rounded).
    package static func scaled(_ text: UnsafeBufferPointer<UInt8>) -> Int128? {
        guard let digits = DecimalDigits(literal: String(decoding: text, as: UTF8.self)) else { return nil }
        guard !digits.digits.isEmpty else { return 0 }
        let shift = digits.exponent + scale
        guard shift >= 0, digits.digits.count + shift <= precision else { return nil }
        var value: Int128 = 0
        for digit in digits.digits { value = value * 10 + Int128(digit - 48) }
        for _ in 0..<shift { value *= 10 }
        return digits.negative ? -value : value
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
        do throws(EncodingFailure) {
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

extension ValueEncoder: DirectTagEncoding {
    /// For Python values, the schema: a fast plan whose objects follow it writes the tags
    /// itself (`FastPlan.directTags`), with no JSON between. Arrow's tags are checked against
    /// the columns here, and keep that path.
    package var directSchema: ValueSchema? { forArrow ? nil : schema }

    package func encodeValue(_ json: UnsafeBufferPointer<UInt8>, node: Int, into out: inout [UInt8]) -> Bool {
        do throws(EncodingFailure) {
            try encode(json, node: node, into: &out)
            return true
        } catch {
            return false
        }
    }
}
