import Foundation

/// What a record scan keeps of each object a mapping reads into: the keys it wants, and for
/// each, what it wants of the value there (`nil`: the value whole, kept as a span of bytes).
///
/// The reading side of a compiled fast plan, made from a context's `JSONDemand` once per
/// context: a scan compares each payload key with these bytes, never with strings.
package final class TapeShape: Sendable {
    /// The wanted keys' UTF-8 bytes, in the demand's order.
    package let keys: [[UInt8]]
    /// What is wanted of each key's value, by the same index: a nested shape, or `nil` for the value whole.
    package let children: [TapeShape?]

    package init(keys: [[UInt8]], children: [TapeShape?]) {
        self.keys = keys
        self.children = children
    }

    /// The shape of a demand that names keys; `nil` for `everything` and for a demand that
    /// keeps the keys it does not read (the scan keeps no such keys).
    package convenience init?(_ demand: JSONDemand) {
        guard case .members(let members, let keepsOtherKeys) = demand, !keepsOtherKeys else { return nil }
        var children: [TapeShape?] = []
        for member in members {
            if case .everything = member.demand {
                children.append(nil)
            } else {
                guard let child = TapeShape(member.demand) else { return nil }
                children.append(child)
            }
        }
        self.init(keys: members.map(\.bytes), children: children)
    }
}

/// One record scanned by a `TapeShape`: a flat list of nodes that say where each wanted value
/// is in the record's bytes, built without a string, an object or an array per value.
///
/// Wanted objects become frames (one slot per wanted key, the node of the key's last value or
/// -1), wanted arrays lists of their elements' nodes, every other value a span of bytes. The
/// scan checks the whole record as `JSONParser` does (the same reader); it gives up (`nil`) on
/// anything the parser would refuse, and on keys written with escapes, which the general
/// parser compares by code points: the caller then maps the record the general way, which
/// reports exactly what is wrong. One tape is reused record after record.
package struct JSONTape {
    package enum Kind: UInt8 {
        case null, `false`, `true`, number, string
        /// An object or array kept whole: `start..<end` is its text.
        case objectSpan, arraySpan
        /// A wanted object: `first` is where its slots start in `slots`, `count` how many.
        case frame
        /// A wanted array: its elements' nodes are `slots[first..<first + count]`.
        case list
    }

    package struct Node {
        package var kind: Kind
        /// For a string: whether it holds escapes (`start..<end` is then its escaped text).
        package var escaped: Bool
        /// For a value kept as bytes, where they are (a string's without its quotes).
        package var start: Int32
        package var end: Int32
        package var first: Int32
        package var count: Int32
    }

    package private(set) var nodes: [Node] = []
    package private(set) var slots: [Int32] = []
    private var stack: [Int32] = []

    package init() {
        nodes.reserveCapacity(64)
        slots.reserveCapacity(64)
    }

    /// Scans `bytes` (one JSON text) by `shape`; the root node's index, or `nil` when the text
    /// is not valid JSON or holds what the tape does not represent (see the type's comment).
    package mutating func scan(_ bytes: UnsafeBufferPointer<UInt8>, shape: TapeShape) -> Int32? {
        nodes.removeAll(keepingCapacity: true)
        slots.removeAll(keepingCapacity: true)
        stack.removeAll(keepingCapacity: true)
        var reader = JSONParser.Reader(bytes: bytes)
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { reader.index = 3 }
        do throws(JSONParser.Failure) {
            reader.skipWhitespace()
            let root = try value(&reader, depth: 0, shape: shape)
            reader.skipWhitespace()
            guard reader.index == bytes.count else { return nil }
            return root
        } catch {
            return nil
        }
    }

    /// What the scan throws for a key it leaves to the general parser (no position is worked out).
    private static var unsupported: JSONParser.Failure { JSONParser.Failure(message: "", line: 0, column: 0) }

    private mutating func add(_ kind: Kind, _ start: Int, _ end: Int, escaped: Bool = false) -> Int32 {
        nodes.append(
            Node(kind: kind, escaped: escaped, start: Int32(start), end: Int32(end), first: 0, count: 0))
        return Int32(nodes.count - 1)
    }

    /// The value at the reader's index, as `JSONParser`'s `value(depth:demand:)` reads it.
    private mutating func value(_ reader: inout JSONParser.Reader, depth: Int, shape: TapeShape?) throws(JSONParser
        .Failure) -> Int32
    {
        let bytes = reader.bytes
        guard reader.index < bytes.count else { throw reader.failure("unexpected end of input") }
        let start = reader.index
        switch bytes[start] {
        case UInt8(ascii: "{"):
            guard let shape else {
                try reader.skipValue(depth: depth)
                return add(.objectSpan, start, reader.index)
            }
            return try object(&reader, depth: depth + 1, shape: shape)
        case UInt8(ascii: "["):
            guard let shape else {
                try reader.skipValue(depth: depth)
                return add(.arraySpan, start, reader.index)
            }
            return try array(&reader, depth: depth + 1, shape: shape)
        case UInt8(ascii: "\""):
            let scanned = try reader.scanString()
            return add(.string, scanned.start, scanned.end, escaped: scanned.hasEscapes)
        case UInt8(ascii: "t"):
            _ = try reader.literal("true", .null)
            return add(.true, start, reader.index)
        case UInt8(ascii: "f"):
            _ = try reader.literal("false", .null)
            return add(.false, start, reader.index)
        case UInt8(ascii: "n"):
            _ = try reader.literal("null", .null)
            return add(.null, start, reader.index)
        default:
            _ = try reader.scanNumber()
            return add(.number, start, reader.index)
        }
    }

    private mutating func object(_ reader: inout JSONParser.Reader, depth: Int, shape: TapeShape) throws(JSONParser
        .Failure) -> Int32
    {
        let node = add(.frame, reader.index, reader.index)
        let base = slots.count
        nodes[Int(node)].first = Int32(base)
        nodes[Int(node)].count = Int32(shape.keys.count)
        slots.append(contentsOf: repeatElement(-1, count: shape.keys.count))
        var hint = 0
        try reader.container(depth: depth, close: UInt8(ascii: "}"), what: "an object") {
            reader throws(JSONParser.Failure) in
            guard reader.index < reader.bytes.count, reader.bytes[reader.index] == UInt8(ascii: "\"") else {
                throw Self.unsupported
            }
            let key = try reader.scanString()
            if key.hasEscapes { throw Self.unsupported }
            let found = Self.match(key, in: shape.keys, bytes: reader.bytes, from: hint)
            try reader.colon()
            guard let found else {
                try reader.skipValue(depth: depth)
                return
            }
            hint = found + 1
            // A repeated key keeps its last value, as the parser does.
            slots[base + found] = try value(&reader, depth: depth, shape: shape.children[found])
        }
        nodes[Int(node)].end = Int32(reader.index)
        return node
    }

    private mutating func array(_ reader: inout JSONParser.Reader, depth: Int, shape: TapeShape) throws(JSONParser
        .Failure) -> Int32
    {
        let node = add(.list, reader.index, reader.index)
        let mark = stack.count
        try reader.container(depth: depth, close: UInt8(ascii: "]"), what: "an array") {
            reader throws(JSONParser.Failure) in
            let element = try value(&reader, depth: depth, shape: shape)
            stack.append(element)
        }
        nodes[Int(node)].first = Int32(slots.count)
        nodes[Int(node)].count = Int32(stack.count - mark)
        nodes[Int(node)].end = Int32(reader.index)
        slots.append(contentsOf: stack[mark...])
        stack.removeSubrange(mark...)
        return node
    }

    /// Which of `keys` the key just scanned is; the one at `hint` is tried first (payloads
    /// write their keys in about the order contexts read them).
    @inline(__always)
    private static func match(
        _ key: JSONParser.Reader.ScannedString, in keys: [[UInt8]], bytes: UnsafeBufferPointer<UInt8>, from hint: Int
    ) -> Int? {
        if hint < keys.count, holds(key, keys[hint], bytes) { return hint }
        for position in keys.indices where position != hint && holds(key, keys[position], bytes) {
            return position
        }
        return nil
    }

    @inline(__always)
    private static func holds(
        _ key: JSONParser.Reader.ScannedString, _ wanted: [UInt8], _ bytes: UnsafeBufferPointer<UInt8>
    ) -> Bool {
        let count = key.end - key.start
        guard wanted.count == count else { return false }
        if count == 0 { return true }
        return wanted.withUnsafeBufferPointer { wanted in
            memcmp(wanted.baseAddress!, bytes.baseAddress! + key.start, count) == 0
        }
    }

    /// The value of a node kept as bytes, built as `JSONParser` builds it; `nil` for a frame or
    /// a list (the tape holds only the wanted parts of those).
    package static func value(of node: Node, in bytes: UnsafeBufferPointer<UInt8>) -> JSONValue? {
        var reader = JSONParser.Reader(bytes: bytes)
        switch node.kind {
        case .frame, .list: return nil
        case .null: return .null
        case .true: return .bool(true)
        case .false: return .bool(false)
        case .string:
            reader.index = Int(node.start) - 1
            return (try? reader.string()).map(JSONValue.string)
        case .number, .objectSpan, .arraySpan:
            reader.index = Int(node.start)
            return try? reader.value(depth: 0, demand: .everything)
        }
    }
}
