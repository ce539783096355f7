import MappingsJSON

/// Why a datum does not read: what is wrong, where in the datum's bytes, and at which value
/// (`$.user.tags[3]`).
package struct AvroDatumError: Error, Sendable, Equatable {
    package var message: String
    /// The offset in the bytes being read where the fault is.
    package var offset: Int
    /// The payload path of the value being read.
    package var path: String
    /// Whether the datum's bytes end before it does (more bytes could complete it).
    package var truncated = false

    /// `$.user.age: the int runs past the end of the datum`.
    package var description: String { "\(path): \(message)" }
}

/// Reads Avro's binary encoding of one datum into the JSON text of the value, exactly: a long as
/// its integer, a decimal as its digits with its scale, timestamps as ISO 8601 text with every
/// digit, bytes and fixed as base64, an enum as its symbol, a union as its branch's value, a map
/// as an object (docs/formats.md, "Avro", has the table).
///
/// Every length and count is checked against the bytes left before anything is read or made,
/// and the JSON it writes against `JSONLines.maximumLine`, so that corrupt bytes are an error,
/// never a crash, a long allocation or a long loop.
package struct AvroDatumReader: Sendable {
    package let schema: AvroSchema
    /// Each node's `AvroSchema.minimumSize`, computed once.
    let minimumSizes: [Int]

    package init(schema: AvroSchema) {
        self.schema = schema
        minimumSizes = schema.nodes.indices.map { schema.minimumSize(of: $0) }
    }

    /// Reads the datum at `offset` in `bytes`, appending its JSON to `output`, and moves `offset`
    /// past it.
    package func read(
        _ bytes: UnsafeRawBufferPointer, at offset: inout Int, into output: inout [UInt8]
    ) throws(AvroDatumError) {
        var cursor = Cursor(bytes: bytes, position: offset, outputStart: output.count)
        try value(schema.root, &cursor, &output)
        offset = cursor.position
    }

    /// The bytes being read, where the reader is in them, and the path to the value it reads.
    struct Cursor {
        let bytes: UnsafeRawBufferPointer
        var position: Int
        let outputStart: Int
        /// The keys and indexes down to the value being read, made into text only for an error.
        var path: [PathStep] = []

        var remaining: Int { bytes.count - position }

        func failure(_ message: String, at offset: Int? = nil, truncated: Bool = false) -> AvroDatumError {
            AvroDatumError(
                message: message, offset: offset ?? position, path: "$" + path.map(\.text).joined(),
                truncated: truncated)
        }

        mutating func byte(_ what: String) throws(AvroDatumError) -> UInt8 {
            guard position < bytes.count else {
                throw failure("the \(what) runs past the end of the datum", truncated: true)
            }
            defer { position += 1 }
            return bytes[position]
        }

        /// A zig-zag varint of at most `bits` bits (32 for an int, 64 for a long).
        mutating func varint(_ what: String, bits: Int = 64) throws(AvroDatumError) -> Int64 {
            let start = position
            var raw: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                let byte = try self.byte(what)
                raw |= UInt64(byte & 0x7F) << shift
                if byte & 0x80 == 0 { break }
                shift += 7
                guard shift < UInt64(bits) else { throw failure("the \(what) is longer than \(bits) bits", at: start) }
            }
            let value = Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
            if bits == 32, value < Int64(Int32.min) || value > Int64(Int32.max) {
                throw failure("the \(what) is beyond an int's 32 bits", at: start)
            }
            return value
        }

        /// `count` bytes, checked to be there.
        mutating func take(_ count: Int, _ what: String) throws(AvroDatumError) -> UnsafeRawBufferPointer {
            guard count <= remaining else {
                throw failure(
                    "the \(what) of \(count) bytes runs past the end of the datum (\(remaining) left)", truncated: true)
            }
            defer { position += count }
            return UnsafeRawBufferPointer(rebasing: bytes[position..<position + count])
        }

        /// A length (of bytes, a string), checked to be there.
        mutating func length(_ what: String) throws(AvroDatumError) -> Int {
            let start = position
            let length = try varint("length of the \(what)")
            guard length >= 0 else { throw failure("the \(what) has a negative length (\(length))", at: start) }
            guard length <= remaining else {
                throw failure(
                    "the \(what) of \(length) bytes runs past the end of the datum (\(remaining) left)", at: start,
                    truncated: true)
            }
            return Int(length)
        }
    }

    /// A step of a path: a record's field or a map's key, or an array's index.
    enum PathStep {
        case key(String)
        case index(Int)

        var text: String {
            switch self {
            case .key(let key): PathText.member(key)
            case .index(let index): "[\(index)]"
            }
        }
    }

    /// Appends the value of the node at `index`.
    func value(_ index: Int, _ cursor: inout Cursor, _ output: inout [UInt8]) throws(AvroDatumError) {
        guard cursor.path.count < JSONParser.maximumDepth else {
            throw cursor.failure("the datum nests deeper than \(JSONParser.maximumDepth)")
        }
        let node = schema[index]
        if let logical = node.logical { return try self.logical(logical, node.kind, &cursor, &output) }
        switch node.kind {
        case .null: JSONWriter.append("null", to: &output)
        case .boolean:
            switch try cursor.byte("boolean") {
            case 0: JSONWriter.append("false", to: &output)
            case 1: JSONWriter.append("true", to: &output)
            case let other:
                throw cursor.failure("the boolean is the byte \(other), neither 0 nor 1", at: cursor.position - 1)
            }
        case .int: JSONWriter.writeInteger(try cursor.varint("int", bits: 32), into: &output)
        case .long: JSONWriter.writeInteger(try cursor.varint("long"), into: &output)
        case .float: try floatingPoint(single: true, &cursor, &output)
        case .double: try floatingPoint(single: false, &cursor, &output)
        case .bytes: AvroBase64.append(try cursor.take(try cursor.length("bytes"), "bytes"), to: &output)
        case .fixed(_, let size): AvroBase64.append(try cursor.take(size, "fixed"), to: &output)
        case .string: try string(&cursor, &output)
        case .enumeration(let name, let symbols): try symbol(name, symbols, &cursor, &output)
        case .record(_, let fields): try record(fields, &cursor, &output)
        case .array(let items): try collection(items, map: false, &cursor, &output)
        case .map(let values): try collection(values, map: true, &cursor, &output)
        case .union(let branches):
            let start = cursor.position
            let branch = try cursor.varint("union's branch")
            guard branch >= 0, branch < Int64(branches.count) else {
                throw cursor.failure("the union's branch \(branch) is not one of its \(branches.count)", at: start)
            }
            try value(branches[Int(branch)], &cursor, &output)
        }
        guard output.count - cursor.outputStart <= JSONLines.maximumLine else {
            throw cursor.failure("the datum's JSON is longer than \(JSONLines.maximumLine >> 20) MiB")
        }
    }
}
