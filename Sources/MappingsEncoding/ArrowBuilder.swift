package import CArrowData
import Foundation
package import MappingsEngine
import MappingsJSON

/// Builds Arrow columns of a context's `ValueSchema` from records' tagged values
/// (`ValueEncoder` with `forArrow`), and hands them over through the Arrow C Data Interface
/// as one struct array whose children are the columns: what `to_arrow` imports as a record
/// batch, without a copy.
///
/// Types: `Int` int64, `Double` float64, `Bool` bool, `Date` timestamp[us, tz=UTC], `Decimal`
/// decimal128(38, 18) (a value that does not fit is the record's issue, never rounded),
/// strings, URLs, UUIDs and `JSON` (its JSON text) utf8, nested models structs, collections
/// lists, dictionaries maps of utf8 keys; a union one struct of its members' fields, a
/// recursive model its JSON text. `ArrowBuilder.schemaText` writes the schema as
/// pyarrow prints it (`mappings schema --format arrow`).
package final class ArrowBuilder {
    package let schema: ValueSchema
    private var root: Column
    package private(set) var rows = 0
    /// Bytes held in the columns, about.
    package var heldBytes: Int { root.heldBytes }

    package init(schema: ValueSchema) {
        self.schema = schema
        root = Column(node: 0, schema: schema)
    }

    /// Appends a record's tags, which `ValueEncoder` (`forArrow`) checked against the schema.
    package func append(_ tags: UnsafeRawBufferPointer) {
        var reader = TagReader(bytes: tags)
        root.append(&reader, schema: schema)
        rows += 1
    }

    /// Hands the rows appended so far over as a struct array (and its schema), and starts
    /// again empty.
    package func export(array: UnsafeMutablePointer<ArrowArray>, schema exported: UnsafeMutablePointer<ArrowSchema>) {
        mappings_arrow_array_move(root.exported(schema: schema), array)
        mappings_arrow_schema_move(Self.schemaNode(0, schema: schema, name: ""), exported)
        root = Column(node: 0, schema: schema)
        rows = 0
    }

    /// The schema alone, exported.
    package static func export(schema: ValueSchema, into exported: UnsafeMutablePointer<ArrowSchema>) {
        mappings_arrow_schema_move(schemaNode(0, schema: schema, name: ""), exported)
    }

    /// The format string of a node's type (the C Data Interface's).
    static func format(_ node: ValueSchema.Node) -> String {
        switch node.kind {
        case .integer: "l"
        case .double: "g"
        case .boolean: "b"
        case .date: "tsu:UTC"
        case .decimal: "d:\(Decimal128.precision),\(Decimal128.scale)"
        case .string, .json: "u"
        case .structure: "+s"
        case .list: "+l"
        case .map: "+m"
        }
    }

    private static func schemaNode(_ index: Int, schema: ValueSchema, name: String) -> UnsafeMutablePointer<ArrowSchema>
    {
        let node = schema.nodes[index]
        let flags = node.nullable ? Int64(ARROW_FLAG_NULLABLE) : 0
        switch node.kind {
        case .structure:
            let exported = mappings_arrow_schema_new("+s", name, flags, Int64(node.count))!
            for offset in 0..<Int(node.count) {
                let field = Int(node.first) + offset
                let child = schemaNode(
                    field, schema: schema, name: String(decoding: schema.name(field), as: UTF8.self))
                mappings_arrow_schema_set_child(exported, Int64(offset), child)
            }
            return exported
        case .list:
            let exported = mappings_arrow_schema_new("+l", name, flags, 1)!
            mappings_arrow_schema_set_child(exported, 0, schemaNode(Int(node.first), schema: schema, name: "item"))
            return exported
        case .map:
            let exported = mappings_arrow_schema_new("+m", name, flags, 1)!
            let entries = mappings_arrow_schema_new("+s", "entries", 0, 2)!
            mappings_arrow_schema_set_child(entries, 0, mappings_arrow_schema_new("u", "key", 0, 0))
            mappings_arrow_schema_set_child(entries, 1, schemaNode(Int(node.first), schema: schema, name: "value"))
            mappings_arrow_schema_set_child(exported, 0, entries)
            return exported
        default:
            return mappings_arrow_schema_new(format(node), name, flags, 0)!
        }
    }

    /// The schema as pyarrow prints it (`str(table.schema)`): a field per line.
    package static func schemaText(_ schema: ValueSchema) -> String {
        let root = schema.nodes[0]
        return (0..<Int(root.count)).map { offset in
            field(
                Int(root.first) + offset, schema: schema,
                name: String(decoding: schema.name(Int(root.first) + offset), as: UTF8.self))
        }.joined(separator: "\n")
    }

    private static func field(_ index: Int, schema: ValueSchema, name: String) -> String {
        let node = schema.nodes[index]
        return name + ": " + typeText(index, schema: schema) + (node.nullable ? "" : " not null")
    }

    private static func typeText(_ index: Int, schema: ValueSchema) -> String {
        let node = schema.nodes[index]
        switch node.kind {
        case .integer: return "int64"
        case .double: return "double"
        case .boolean: return "bool"
        case .date: return "timestamp[us, tz=UTC]"
        case .decimal: return "decimal128(\(Decimal128.precision), \(Decimal128.scale))"
        case .string, .json: return "string"
        case .structure:
            let fields = (0..<Int(node.count)).map { offset in
                let field = Int(node.first) + offset
                return Self.field(
                    field, schema: schema, name: String(decoding: schema.name(field), as: UTF8.self))
            }
            return "struct<" + fields.joined(separator: ", ") + ">"
        case .list: return "list<" + field(Int(node.first), schema: schema, name: "item") + ">"
        case .map: return "map<string, " + typeText(Int(node.first), schema: schema) + ">"
        }
    }
}

/// Reads tagged values (`ValueTag`).
struct TagReader {
    let bytes: UnsafeRawBufferPointer
    var position = 0

    mutating func tag() -> ValueTag {
        defer { position += 1 }
        return ValueTag(rawValue: bytes[position]) ?? .absent
    }

    mutating func word() -> UInt64 {
        defer { position += 8 }
        return bytes.loadUnaligned(fromByteOffset: position, as: UInt64.self).littleEndian
    }

    mutating func count() -> Int {
        defer { position += 4 }
        return Int(bytes.loadUnaligned(fromByteOffset: position, as: UInt32.self).littleEndian)
    }

    mutating func text() -> UnsafeRawBufferPointer {
        let length = count()
        defer { position += length }
        return UnsafeRawBufferPointer(rebasing: bytes[position..<(position + length)])
    }

    /// Passes over a value whose tag was read.
    mutating func skip(_ tag: ValueTag) {
        switch tag {
        case .null, .yes, .no, .absent: break
        case .integer, .double, .date: position += 8
        case .decimal128: position += 16
        case .bigInteger, .string, .decimal: _ = text()
        case .object:
            for _ in 0..<count() {
                _ = text()
                skip(self.tag())
            }
        case .array:
            for _ in 0..<count() { skip(self.tag()) }
        }
    }
}

/// One column (or a nested array) being built. Its storage is the builder's alone, touched by
/// one thread at a time (the one taking a session's results): without the run-time exclusivity
/// checks, which cost a fifth of a record's appending.
private final class Column {
    let node: Int
    let kind: ValueSchema.Kind
    @exclusivity(unchecked) var length = 0
    @exclusivity(unchecked) var nulls = 0
    @exclusivity(unchecked) var validity: [UInt8] = []
    /// Fixed-width values (8 bytes; 16 for decimals; bits for booleans).
    @exclusivity(unchecked) var values: [UInt8] = []
    /// Offsets of strings, lists and maps (`length + 1` of them).
    @exclusivity(unchecked) var offsets: [Int32] = [0]
    @exclusivity(unchecked) var data: [UInt8] = []
    /// A struct's fields; a list's element; a map's keys and values.
    var children: [Column] = []
    /// Field names, for finding a member.
    var names: [[UInt8]] = []

    init(node: Int, schema: ValueSchema) {
        self.node = node
        let described = schema.nodes[node]
        kind = described.kind
        switch kind {
        case .structure:
            for offset in 0..<Int(described.count) {
                let field = Int(described.first) + offset
                children.append(Column(node: field, schema: schema))
                names.append(Array(schema.name(field)))
            }
        case .list:
            children = [Column(node: Int(described.first), schema: schema)]
        case .map:
            children = [Column(keysOf: node), Column(node: Int(described.first), schema: schema)]
        default: break
        }
    }

    /// A map's keys: strings, never null.
    init(keysOf node: Int) {
        self.node = -1
        kind = .string
    }

    var heldBytes: Int {
        validity.count + values.count + offsets.count * 4 + data.count + children.reduce(0) { $0 + $1.heldBytes }
    }

    /// The field whose name is `key`, looked for from `from` (members come in schema order).
    func field(named key: UnsafeRawBufferPointer, from: Int) -> Int? {
        func matches(_ index: Int) -> Bool {
            names[index].withUnsafeBytes { name in
                name.count == key.count && (key.isEmpty || memcmp(name.baseAddress!, key.baseAddress!, key.count) == 0)
            }
        }
        if from < names.count, matches(from) { return from }
        return names.indices.first(where: matches)
    }

    func setValid(_ valid: Bool) {
        if length % 8 == 0 { validity.append(0) }
        if valid {
            validity[length / 8] |= 1 << UInt8(length % 8)
        } else {
            nulls += 1
        }
        length += 1
    }

    func append(_ reader: inout TagReader, schema: ValueSchema) {
        let tag = reader.tag()
        if tag == .null { return appendNull() }
        switch kind {
        case .integer, .double, .date:
            withUnsafeBytes(of: reader.word().littleEndian) { values.append(contentsOf: $0) }
        case .boolean:
            if length % 8 == 0 { values.append(0) }
            if tag == .yes { values[length / 8] |= 1 << UInt8(length % 8) }
        case .decimal:
            values.append(
                contentsOf: UnsafeRawBufferPointer(rebasing: reader.bytes[reader.position..<(reader.position + 16)]))
            reader.position += 16
        case .string, .json:
            data.append(contentsOf: reader.text())
            offsets.append(Int32(data.count))
        case .structure:
            var next = 0
            var seen = [Bool](repeating: false, count: children.count)
            for _ in 0..<reader.count() {
                let key = reader.text()
                guard let index = field(named: key, from: next) else {
                    reader.skip(reader.tag())
                    continue
                }
                next = index + 1
                seen[index] = true
                children[index].append(&reader, schema: schema)
            }
            for (index, present) in seen.enumerated() where !present { children[index].appendNull() }
        case .list:
            for _ in 0..<reader.count() { children[0].append(&reader, schema: schema) }
            offsets.append(Int32(children[0].length))
        case .map:
            for _ in 0..<reader.count() {
                let key = reader.text()
                children[0].data.append(contentsOf: key)
                children[0].offsets.append(Int32(children[0].data.count))
                children[0].setValid(true)
                children[1].append(&reader, schema: schema)
            }
            offsets.append(Int32(children[1].length))
        }
        setValid(true)
    }

    func appendNull() {
        switch kind {
        case .integer, .double, .date: values.append(contentsOf: repeatElement(0, count: 8))
        case .decimal: values.append(contentsOf: repeatElement(0, count: 16))
        case .boolean: if length % 8 == 0 { values.append(0) }
        case .string, .json: offsets.append(Int32(data.count))
        case .structure: for child in children { child.appendNull() }
        case .list: offsets.append(Int32(children[0].length))
        case .map: offsets.append(Int32(children[1].length))
        }
        setValid(false)
    }

    /// The column as a C Data Interface array; the Swift storage is copied into malloc'd
    /// buffers the array owns.
    func exported(schema: ValueSchema) -> UnsafeMutablePointer<ArrowArray> {
        func buffer<T>(_ array: [T]) -> UnsafeMutableRawPointer {
            let bytes = max(1, array.count * MemoryLayout<T>.stride)
            // 64-byte aligned, as Arrow recommends.
            var pointer: UnsafeMutableRawPointer?
            posix_memalign(&pointer, 64, bytes)
            array.withUnsafeBytes { source in
                if let base = source.baseAddress { pointer!.copyMemory(from: base, byteCount: source.count) }
            }
            return pointer!
        }
        let validityBuffer = nulls > 0 ? buffer(validity) : nil
        switch kind {
        case .integer, .double, .date, .decimal, .boolean:
            let array = mappings_arrow_array_new(Int64(length), Int64(nulls), 2, 0)!
            mappings_arrow_array_set_buffer(array, 0, validityBuffer)
            mappings_arrow_array_set_buffer(array, 1, buffer(values))
            return array
        case .string, .json:
            let array = mappings_arrow_array_new(Int64(length), Int64(nulls), 3, 0)!
            mappings_arrow_array_set_buffer(array, 0, validityBuffer)
            mappings_arrow_array_set_buffer(array, 1, buffer(offsets))
            mappings_arrow_array_set_buffer(array, 2, buffer(data))
            return array
        case .structure:
            let array = mappings_arrow_array_new(Int64(length), Int64(nulls), 1, Int64(children.count))!
            mappings_arrow_array_set_buffer(array, 0, validityBuffer)
            for (index, child) in children.enumerated() {
                mappings_arrow_array_set_child(array, Int64(index), child.exported(schema: schema))
            }
            return array
        case .list:
            let array = mappings_arrow_array_new(Int64(length), Int64(nulls), 2, 1)!
            mappings_arrow_array_set_buffer(array, 0, validityBuffer)
            mappings_arrow_array_set_buffer(array, 1, buffer(offsets))
            mappings_arrow_array_set_child(array, 0, children[0].exported(schema: schema))
            return array
        case .map:
            let array = mappings_arrow_array_new(Int64(length), Int64(nulls), 2, 1)!
            mappings_arrow_array_set_buffer(array, 0, validityBuffer)
            mappings_arrow_array_set_buffer(array, 1, buffer(offsets))
            let entries = mappings_arrow_array_new(Int64(children[1].length), 0, 1, 2)!
            mappings_arrow_array_set_buffer(entries, 0, nil)
            mappings_arrow_array_set_child(entries, 0, children[0].exported(schema: schema))
            mappings_arrow_array_set_child(entries, 1, children[1].exported(schema: schema))
            mappings_arrow_array_set_child(array, 0, entries)
            return array
        }
    }
}
