package import MappingsJSON

/// Writes a JSON value — a mapped record — as Avro's binary encoding of a datum of a schema, the
/// inverse of `AvroDatumReader`: what the reader writes for a type is what the writer takes for
/// it (docs/formats.md, "Avro"). A value the schema cannot hold (a missing field without a
/// default, a string where a long goes, a decimal with more places than its scale) is an error
/// naming its path; nothing is rounded, cut or defaulted in silence.
package struct AvroDatumWriter: Sendable {
    package let schema: AvroSchema

    package init(schema: AvroSchema) {
        self.schema = schema
    }

    /// Appends the encoding of `value` to `output`; on an error, `output` is as it was.
    package func write(_ value: JSONValue, into output: inout [UInt8]) throws(AvroDatumError) {
        let count = output.count
        var path: [String] = []
        do throws(AvroDatumError) {
            try write(value, schema.root, &path, &output)
        } catch {
            output.removeSubrange(count...)
            throw error
        }
    }

    func failure(_ message: String, _ path: [String]) -> AvroDatumError {
        AvroDatumError(message: message, offset: 0, path: "$" + path.joined())
    }

    func write(_ value: JSONValue, _ index: Int, _ path: inout [String], _ output: inout [UInt8]) throws(AvroDatumError)
    {
        let node = schema[index]
        if let logical = node.logical { return try writeLogical(value, logical, node.kind, path, &output) }
        switch (node.kind, value) {
        case (.null, .null): return
        case (.boolean, .bool(let flag)): output.append(flag ? 1 : 0)
        case (.int, _), (.long, _):
            let bits = node.kind == .int ? 32 : 64
            guard let integer = Self.integer(value), bits == 64 || Int32(exactly: integer) != nil else {
                throw failure(
                    "expected \(bits == 32 ? "an int" : "a long"), found \(JSONWriter.messageText(value))", path)
            }
            Self.appendVarint(integer, to: &output)
        case (.float, _), (.double, _): try writeFloat(value, single: node.kind == .float, path, &output)
        case (.string, _): try writeString(value, path, &output)
        case (.bytes, .string(let text)):
            let bytes = try decodeBase64(text, path)
            Self.appendVarint(Int64(bytes.count), to: &output)
            output.append(contentsOf: bytes)
        case (.fixed(let name, let size), .string(let text)):
            let bytes = try decodeBase64(text, path)
            guard bytes.count == size else {
                throw failure("the fixed \"\(name)\" holds \(size) bytes, the value \(bytes.count)", path)
            }
            output.append(contentsOf: bytes)
        case (.enumeration(let name, let symbols), .string(let symbol)):
            guard let position = symbols.firstIndex(of: symbol) else {
                throw failure("the enum \"\(name)\" has no symbol \(JSONWriter.quotedForMessage(symbol))", path)
            }
            Self.appendVarint(Int64(position), to: &output)
        case (.record(let name, let fields), .object(let object)): try writeRecord(name, fields, object, &path, &output)
        case (.array(let items), .array(let elements)):
            if !elements.isEmpty { Self.appendVarint(Int64(elements.count), to: &output) }
            for (position, element) in elements.enumerated() {
                path.append("[\(position)]")
                try write(element, items, &path, &output)
                path.removeLast()
            }
            output.append(0)
        case (.map(let values), .object(let object)):
            if object.count > 0 { Self.appendVarint(Int64(object.count), to: &output) }
            for (key, member) in object.members {
                Self.appendString(key, to: &output)
                path.append(PathText.member(key))
                try write(member, values, &path, &output)
                path.removeLast()
            }
            output.append(0)
        case (.union(let branches), _): try writeUnion(value, branches, &path, &output)
        default: throw failure("expected \(schema.typeName(index)), found \(JSONWriter.messageText(value))", path)
        }
    }

    private func writeRecord(
        _ name: String, _ fields: [AvroSchema.Field], _ object: JSONObject, _ path: inout [String],
        _ output: inout [UInt8]
    ) throws(AvroDatumError) {
        for key in object.keys where !fields.contains(where: { $0.name == key }) {
            throw failure("the record \"\(name)\" has no field \(JSONWriter.quotedForMessage(key))", path)
        }
        for field in fields {
            path.append(PathText.member(field.name))
            // A key the output does not write is null, else the field's default.
            let value = object[field.name] ?? field.defaultValue ?? .null
            try write(value, field.type, &path, &output)
            path.removeLast()
        }
    }

    /// The first branch that takes the value (`null` the null branch's).
    private func writeUnion(_ value: JSONValue, _ branches: [Int], _ path: inout [String], _ output: inout [UInt8])
        throws(AvroDatumError)
    {
        for (position, branch) in branches.enumerated() {
            var encoded: [UInt8] = []
            Self.appendVarint(Int64(position), to: &encoded)
            do throws(AvroDatumError) {
                try write(value, branch, &path, &encoded)
            } catch {
                continue
            }
            output.append(contentsOf: encoded)
            return
        }
        let names = branches.map { schema.typeName($0) }.joined(separator: ", ")
        throw failure("no branch of the union (\(names)) takes \(JSONWriter.messageText(value))", path)
    }

    /// A varint of a zig-zag encoded integer, as Avro writes ints, longs, lengths and counts.
    package static func appendVarint(_ value: Int64, to output: inout [UInt8]) {
        var raw = UInt64(bitPattern: (value << 1) ^ (value >> 63))
        while raw >= 0x80 {
            output.append(UInt8(raw & 0x7F) | 0x80)
            raw >>= 7
        }
        output.append(UInt8(raw))
    }

    /// A string's length, then its UTF-8.
    package static func appendString(_ text: String, to output: inout [UInt8]) {
        appendVarint(Int64(text.utf8.count), to: &output)
        output.append(contentsOf: text.utf8)
    }

    /// The whole number a JSON number is (`3`, `3.0`, `3e2`), exactly; `nil` for any other value.
    static func integer(_ value: JSONValue) -> Int64? {
        switch value {
        case .integer(let integer): integer
        case .double(let double): Int64(exactly: double)
        case .number(let number): number.int64
        default: nil
        }
    }
}
