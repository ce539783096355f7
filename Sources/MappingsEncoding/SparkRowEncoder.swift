import Foundation
package import MappingsJSON

/// Turns a record's output JSON into a Spark `UnsafeRow` of its context's Spark schema (what
/// `mappings schema --format spark` writes), so that Spark takes the row as it is instead of
/// parsing JSON again: what `mappings stream --spark-frames` writes for `mappings_spark`.
///
/// The layout is Spark's own (`org.apache.spark.sql.catalyst.expressions.UnsafeRow`,
/// `UnsafeArrayData`, `UnsafeMapData`), little-endian:
/// - a row: a null bit per field (in 8-byte words), an 8-byte slot per field, then the
///   variable-length values, each padded to 8 bytes. A long, double or timestamp (microseconds
///   since 1970, UTC) is its slot; a boolean the slot's first byte; a string, struct, array or
///   map is `offset << 32 | size`, the offset from the row's start.
/// - an array: the element count (8 bytes), a null bit per element (in 8-byte words), the
///   elements (8 bytes each, 1 for booleans; the region padded to 8), then the variable-length
///   values, offsets from the array's start.
/// - a map: the key array's size (8 bytes), the key array, the value array.
///
/// Strings hold what Spark's JSON reader would have made of the value, with every digit kept:
/// a JSON string's text; a number's digits as written (decimals); any other value's JSON text;
/// and, under a field marked `{"mappings.type": "JSON"}`, the JSON text of every value.
package struct SparkRowEncoder: Sendable {
    package indirect enum Kind: Sendable {
        case long, double, boolean, timestamp
        /// `text`: the value's JSON text, even for a string.
        case string(text: Bool)
        case structure([Field])
        case array(Kind)
        case map(key: Kind, value: Kind)

        /// Bytes of an array element: booleans take one, every other kind a word.
        var elementSize: Int {
            if case .boolean = self { return 1 }
            return 8
        }
    }

    package struct Field: Sendable {
        package let name: [UInt8]
        package let kind: Kind
    }

    /// The schema as a flat table (no reference counted per value written): node 0 is the
    /// record's struct.
    private let nodes: [Node]
    /// The fields' names, one after the other (`Node.name` ranges).
    private let names: [UInt8]

    /// One type of the schema, or one field (a type with a name).
    struct Node {
        enum Tag: UInt8 { case long, double, boolean, timestamp, string, text, structure, array, map }
        var tag: Tag
        /// A struct's first field (its fields are the `count` nodes from there); an array's
        /// element; a map's key (its value is the node after).
        var first: Int32 = 0
        var count: Int32 = 0
        var nameStart: Int32 = 0
        var nameCount: Int32 = 0

        /// Bytes of an array element: booleans take one, every other kind a word.
        var elementSize: Int { tag == .boolean ? 1 : 8 }
    }

    /// The encoder of a Spark struct type in its JSON form; `nil` for a type it does not know.
    package init?(schema: JSONValue) {
        guard case .structure(let fields)? = Self.kind(of: schema, text: false) else { return nil }
        var nodes = [Node(tag: .structure)]
        var names: [UInt8] = []
        Self.flatten(.structure(fields), at: 0, into: &nodes, names: &names)
        self.nodes = nodes
        self.names = names
    }

    /// Writes `kind` into `nodes[index]`, its fields and elements after what `nodes` holds.
    private static func flatten(_ kind: Kind, at index: Int, into nodes: inout [Node], names: inout [UInt8]) {
        switch kind {
        case .long: nodes[index].tag = .long
        case .double: nodes[index].tag = .double
        case .boolean: nodes[index].tag = .boolean
        case .timestamp: nodes[index].tag = .timestamp
        case .string(let text): nodes[index].tag = text ? .text : .string
        case .structure(let fields):
            nodes[index].tag = .structure
            let first = nodes.count
            nodes[index].first = Int32(first)
            nodes[index].count = Int32(fields.count)
            for field in fields {
                nodes.append(
                    Node(tag: .long, nameStart: Int32(names.count), nameCount: Int32(field.name.count)))
                names += field.name
            }
            for (offset, field) in fields.enumerated() {
                flatten(field.kind, at: first + offset, into: &nodes, names: &names)
            }
        case .array(let element):
            nodes[index].tag = .array
            nodes[index].first = Int32(nodes.count)
            nodes.append(Node(tag: .long))
            flatten(element, at: nodes.count - 1, into: &nodes, names: &names)
        case .map(let key, let value):
            nodes[index].tag = .map
            let first = nodes.count
            nodes[index].first = Int32(first)
            nodes.append(Node(tag: .long))
            nodes.append(Node(tag: .long))
            flatten(key, at: first, into: &nodes, names: &names)
            flatten(value, at: first + 1, into: &nodes, names: &names)
        }
    }

    private static func kind(of type: JSONValue, text: Bool) -> Kind? {
        switch type {
        case .string("long"): return .long
        case .string("double"): return .double
        case .string("boolean"): return .boolean
        case .string("timestamp"): return .timestamp
        case .string("string"): return .string(text: text)
        case .object(let object):
            switch object["type"] {
            case .string("struct")?:
                guard case .array(let written)? = object["fields"] else { return nil }
                var fields: [Field] = []
                for field in written {
                    guard case .object(let member) = field, case .string(let name)? = member["name"],
                        let type = member["type"]
                    else { return nil }
                    var marked = false
                    if case .object(let metadata)? = member["metadata"],
                        case .string("JSON")? = metadata["mappings.type"]
                    {
                        marked = true
                    }
                    guard let kind = kind(of: type, text: marked) else { return nil }
                    fields.append(Field(name: Array(name.utf8), kind: kind))
                }
                return .structure(fields)
            case .string("array")?:
                return object["elementType"].flatMap { kind(of: $0, text: text) }.map { .array($0) }
            case .string("map")?:
                guard let key = object["keyType"].flatMap({ kind(of: $0, text: false) }),
                    let value = object["valueType"].flatMap({ kind(of: $0, text: text) })
                else { return nil }
                return .map(key: key, value: value)
            default: return nil
            }
        default: return nil
        }
    }

    /// Appends the row of the JSON object `json` (a record's output) to `out`.
    package func encode(_ json: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) throws(EncodingFailure) {
        // Rows take about as much as their JSON: one growth at most.
        out.reserveCapacity(out.count + json.count + json.count / 2 + 64)
        let done: Result<Void, EncodingFailure> = nodes.withUnsafeBufferPointer { nodes in
            names.withUnsafeBufferPointer { names in
                var writer = Writer(nodes: nodes, names: names, reader: OutputReader(bytes: json))
                return Result { () throws(EncodingFailure) in
                    writer.reader.skipSpace()
                    try writer.writeStruct(nodes[0], into: &out)
                    writer.reader.skipSpace()
                    guard writer.reader.atEnd else { throw writer.reader.failure("text after the record") }
                }
            }
        }
        try done.get()
    }

    /// Writes values by the node table, reading the JSON text.
    private struct Writer {
        let nodes: UnsafeBufferPointer<Node>
        let names: UnsafeBufferPointer<UInt8>
        var reader: OutputReader

        func name(_ node: Node) -> UnsafeBufferPointer<UInt8> {
            UnsafeBufferPointer(rebasing: names[Int(node.nameStart)..<Int(node.nameStart + node.nameCount)])
        }

        mutating func writeStruct(_ node: Node, into out: inout [UInt8]) throws(EncodingFailure) {
            let fields = Int(node.count)
            let first = Int(node.first)
            let base = out.count
            let bitset = (fields + 63) / 64 * 8
            SparkRowEncoder.appendZeros(bitset + 8 * fields, to: &out)
            // Every field null until its value comes.
            for index in 0..<fields { SparkRowEncoder.setBit(index, at: base, in: &out) }
            try reader.expect(UInt8(ascii: "{"))
            reader.skipSpace()
            if reader.peek == UInt8(ascii: "}") {
                reader.advance()
                return
            }
            var expected = 0
            while true {
                reader.skipSpace()
                // Members come in the schema's order: the next field is nearly always the one.
                var index: Int?
                if expected < fields, try reader.takeKey(name(nodes[first + expected])) {
                    index = expected
                } else {
                    var key: [UInt8] = []
                    try reader.appendString(into: &key)
                    index = (0..<fields).first { name(nodes[first + $0]).elementsEqual(key) }
                }
                reader.skipSpace()
                try reader.expect(UInt8(ascii: ":"))
                reader.skipSpace()
                if let index {
                    expected = index + 1
                    if !reader.takeNull() {
                        SparkRowEncoder.clearBit(index, at: base, in: &out)
                        let field = nodes[first + index]
                        do {
                            try writeValue(field, into: &out, slot: base + bitset + 8 * index, base: base)
                        } catch {
                            throw error.within("." + String(decoding: name(field), as: UTF8.self))
                        }
                    }
                } else {
                    try reader.skipValue()
                }
                reader.skipSpace()
                if reader.peek == UInt8(ascii: ",") {
                    reader.advance()
                    continue
                }
                try reader.expect(UInt8(ascii: "}"))
                return
            }
        }

        /// Writes a value that is not null: in its slot, or after what `out` holds with its
        /// offset (from `base`) and size in the slot.
        mutating func writeValue(_ node: Node, into out: inout [UInt8], slot: Int, base: Int) throws(EncodingFailure) {
            switch node.tag {
            case .long:
                SparkRowEncoder.put(UInt64(bitPattern: try reader.integer()), at: slot, in: &out)
            case .double:
                SparkRowEncoder.put(try reader.double().bitPattern, at: slot, in: &out)
            case .boolean:
                out[slot] = try reader.boolean() ? 1 : 0
            case .timestamp:
                let start = reader.position
                guard let micros = try reader.withString({ SparkRowEncoder.microseconds(iso8601: $0) }) else {
                    reader.position = start
                    let text = try reader.withString { String(decoding: $0, as: UTF8.self) }
                    reader.position = start
                    throw reader.failure("\"\(text)\" is not an ISO 8601 instant")
                }
                SparkRowEncoder.put(UInt64(bitPattern: micros), at: slot, in: &out)
            case .string, .text:
                let start = out.count
                if node.tag == .string, reader.peek == UInt8(ascii: "\"") {
                    try reader.appendString(into: &out)
                } else {
                    let from = reader.position
                    try reader.skipValue()
                    out.append(contentsOf: UnsafeBufferPointer(rebasing: reader.bytes[from..<reader.position]))
                }
                SparkRowEncoder.pointer(from: start, base: base, slot: slot, in: &out)
            case .structure:
                let start = out.count
                try writeStruct(node, into: &out)
                SparkRowEncoder.pointer(from: start, base: base, slot: slot, in: &out)
            case .array:
                let start = out.count
                try writeArray(nodes[Int(node.first)], into: &out)
                SparkRowEncoder.pointer(from: start, base: base, slot: slot, in: &out)
            case .map:
                let start = out.count
                try writeMap(key: nodes[Int(node.first)], value: nodes[Int(node.first) + 1], into: &out)
                SparkRowEncoder.pointer(from: start, base: base, slot: slot, in: &out)
            }
        }

        /// An array's elements, counted first (the layout needs the count before the elements).
        mutating func writeArray(_ element: Node, into out: inout [UInt8]) throws(EncodingFailure) {
            var counter = reader
            let count = try counter.countElements(closing: UInt8(ascii: "]"))
            try reader.expect(UInt8(ascii: "["))
            let base = out.count
            let header = SparkRowEncoder.arrayHeader(count)
            SparkRowEncoder.appendZeros(header + (count * element.elementSize + 7) / 8 * 8, to: &out)
            SparkRowEncoder.put(UInt64(count), at: base, in: &out)
            for index in 0..<count {
                reader.skipSpace()
                if index > 0 {
                    try reader.expect(UInt8(ascii: ","))
                    reader.skipSpace()
                }
                if reader.takeNull() {
                    SparkRowEncoder.setBit(index, at: base + 8, in: &out)
                    continue
                }
                do {
                    try writeValue(element, into: &out, slot: base + header + index * element.elementSize, base: base)
                } catch {
                    throw error.within("[\(index)]")
                }
            }
            reader.skipSpace()
            try reader.expect(UInt8(ascii: "]"))
        }

        /// A map: its keys' array, then its values' array, each in one pass over the object.
        mutating func writeMap(key: Node, value: Node, into out: inout [UInt8]) throws(EncodingFailure) {
            var counter = reader
            let count = try counter.countElements(closing: UInt8(ascii: "}"))
            let base = out.count
            SparkRowEncoder.appendZeros(8, to: &out)
            let start = reader
            for pass in 0..<2 {
                reader = start
                try reader.expect(UInt8(ascii: "{"))
                let node = pass == 0 ? key : value
                let arrayBase = out.count
                let header = SparkRowEncoder.arrayHeader(count)
                SparkRowEncoder.appendZeros(header + (count * node.elementSize + 7) / 8 * 8, to: &out)
                SparkRowEncoder.put(UInt64(count), at: arrayBase, in: &out)
                for index in 0..<count {
                    reader.skipSpace()
                    if index > 0 {
                        try reader.expect(UInt8(ascii: ","))
                        reader.skipSpace()
                    }
                    let slot = arrayBase + header + index * node.elementSize
                    if pass == 0 {
                        // Keys are strings (a dictionary's), written as the key kind says.
                        try writeValue(key, into: &out, slot: slot, base: arrayBase)
                        reader.skipSpace()
                        try reader.expect(UInt8(ascii: ":"))
                        reader.skipSpace()
                        try reader.skipValue()
                    } else {
                        let keyStart = reader.position
                        try reader.skipValue()
                        reader.skipSpace()
                        try reader.expect(UInt8(ascii: ":"))
                        reader.skipSpace()
                        if reader.takeNull() {
                            SparkRowEncoder.setBit(index, at: arrayBase + 8, in: &out)
                            continue
                        }
                        do {
                            try writeValue(value, into: &out, slot: slot, base: arrayBase)
                        } catch {
                            reader.position = keyStart
                            let name = (try? reader.withString { String(decoding: $0, as: UTF8.self) }) ?? "?"
                            throw error.within("." + name)
                        }
                    }
                }
                if pass == 0 { SparkRowEncoder.put(UInt64(out.count - arrayBase), at: base, in: &out) }
            }
            reader.skipSpace()
            try reader.expect(UInt8(ascii: "}"))
        }
    }

    fileprivate static func arrayHeader(_ count: Int) -> Int { 8 + (count + 63) / 64 * 8 }

    /// A block of zeros, never freed.
    nonisolated(unsafe) private static let zeros: UnsafeMutableBufferPointer<UInt8> = {
        let block = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 4096)
        block.initialize(repeating: 0)
        return block
    }()

    /// Appends `count` zero bytes (a copy of a block of zeros, not a byte at a time).
    fileprivate static func appendZeros(_ count: Int, to out: inout [UInt8]) {
        var left = count
        while left > 0 {
            let piece = min(left, zeros.count)
            out.append(contentsOf: UnsafeBufferPointer(rebasing: zeros[..<piece]))
            left -= piece
        }
    }

    /// Pads the value written from `start` to a word, and puts its offset and size in `slot`.
    fileprivate static func pointer(from start: Int, base: Int, slot: Int, in out: inout [UInt8]) {
        let size = out.count - start
        appendZeros((8 - size % 8) % 8, to: &out)
        put(UInt64(start - base) << 32 | UInt64(size), at: slot, in: &out)
    }

    fileprivate static func put(_ value: UInt64, at offset: Int, in out: inout [UInt8]) {
        out.withUnsafeMutableBytes { raw in
            raw.storeBytes(of: value.littleEndian, toByteOffset: offset, as: UInt64.self)
        }
    }

    fileprivate static func setBit(_ index: Int, at base: Int, in out: inout [UInt8]) {
        out[base + index / 8] |= UInt8(1) << UInt8(index % 8)
    }

    fileprivate static func clearBit(_ index: Int, at base: Int, in out: inout [UInt8]) {
        out[base + index / 8] &= ~(UInt8(1) << UInt8(index % 8))
    }

    /// Microseconds since 1970 of `2012-08-29T14:40:05Z` (`InstantText.microseconds(iso8601:)`).
    package static func microseconds(iso8601 text: UnsafeBufferPointer<UInt8>) -> Int64? {
        InstantText.microseconds(iso8601: text)
    }
}
