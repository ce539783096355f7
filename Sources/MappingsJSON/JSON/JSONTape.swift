import CJSONIndex

/// What a record scan keeps of each object a mapping reads into: the keys it wants, and for
/// each, what it wants of the value there (another shape, or the value whole, kept as a span
/// of bytes).
///
/// The reading side of a compiled fast plan, made once per context from its `JSONDemand`:
/// flat tables of plain integers and bytes, so that a scan compares payload keys with bytes
/// and follows indexes, never a string or a reference count.
package struct TapeShape: Sendable {
    /// One wanted key: its bytes in `keyBytes`, and the shape of its value (-1: the value whole).
    struct Key {
        var start: Int32
        var count: Int32
        var child: Int32
    }

    /// One shape: its keys are `keys[first..<first + count]`; bit `n % 64` of `lengths` is
    /// set when a key is `n` bytes long (a key of another length is skipped at once).
    struct Shape {
        var first: Int32
        var count: Int32
        var lengths: UInt64
    }

    var keyBytes: [UInt8] = []
    var keys: [Key] = []
    var shapes: [Shape] = []

    /// The shape of a demand that names keys (shape 0 is its root); `nil` for `everything`
    /// and for a demand that keeps the keys it does not read (the scan keeps no such keys).
    package init?(_ demand: JSONDemand) {
        guard add(demand) == 0 else { return nil }
    }

    /// Adds the shape of `demand` and returns its index; -1 when it has none.
    private mutating func add(_ demand: JSONDemand) -> Int32 {
        guard case .members(let members, let keepsOtherKeys) = demand, !keepsOtherKeys else { return -1 }
        let index = Int32(shapes.count)
        let lengths = members.reduce(UInt64(0)) { $0 | 1 << UInt64($1.bytes.count % 64) }
        shapes.append(Shape(first: Int32(keys.count), count: Int32(members.count), lengths: lengths))
        let first = keys.count
        for member in members {
            keys.append(Key(start: Int32(keyBytes.count), count: Int32(member.bytes.count), child: -1))
            keyBytes += member.bytes
        }
        for (offset, member) in members.enumerated() {
            guard case .members(_, let keeps) = member.demand else { continue }
            // A nested demand that keeps every key has no shape: the tape cannot hold it.
            if keeps { return -2 }
            let child = add(member.demand)
            if child < 0 { return -2 }
            keys[first + offset].child = child
        }
        return index
    }
}

/// One record scanned by a `TapeShape`: a flat list of nodes that say where each wanted value
/// is in the record's bytes, built without a string, an object or an array per value.
///
/// Wanted objects become frames (one slot per wanted key, the node of the key's value or -1),
/// wanted arrays lists of their elements' nodes, every other value a span of bytes. The scan
/// checks the whole record as `JSONParser` does (the same reader); it gives up (`nil`) on
/// anything the parser would refuse, on a wanted key written twice (a `duplicate key` issue),
/// and on keys written with escapes, which the general parser compares by code points: the caller then maps the record the general way, which
/// reports exactly what is wrong. One tape is reused record after record (its owner frees it).
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

        package init(kind: Kind, escaped: Bool, start: Int32, end: Int32, first: Int32, count: Int32) {
            self.kind = kind
            self.escaped = escaped
            self.start = start
            self.end = end
            self.first = first
            self.count = count
        }
    }

    /// Storage that grows and is reused, without an array's checks on each append.
    struct Storage<Element> {
        var base: UnsafeMutablePointer<Element>
        var count = 0
        var capacity: Int

        init(capacity: Int) {
            base = .allocate(capacity: capacity)
            self.capacity = capacity
        }

        @inline(__always)
        mutating func append(_ element: Element) {
            if count == capacity { grow(count + 1) }
            (base + count).initialize(to: element)
            count += 1
        }

        mutating func grow(_ needed: Int) {
            var newCapacity = capacity * 2
            while newCapacity < needed { newCapacity *= 2 }
            let newBase = UnsafeMutablePointer<Element>.allocate(capacity: newCapacity)
            newBase.moveInitialize(from: base, count: count)
            base.deallocate()
            base = newBase
            capacity = newCapacity
        }

        var buffer: UnsafeBufferPointer<Element> { UnsafeBufferPointer(start: base, count: count) }
    }

    var nodeStorage = Storage<Node>(capacity: 128)
    var slotStorage = Storage<Int32>(capacity: 128)
    var stack = Storage<Int32>(capacity: 32)
    /// For the last scan's index: at each entry that opens a container the walk read or passed
    /// over whole, the entry that closes it, the scan's generation in the high 32 bits (an entry
    /// of another generation records nothing: no clearing per scan). What views read through.
    var matchStorage = Storage<UInt64>(capacity: 0)
    /// The generation of the last scan's matches (never 0: cleared memory is generation 0).
    var matchGeneration: UInt32 = 0
    /// Whether the last scan recorded its matches (`scan`'s `recordingMatches`).
    var matchesRecorded = false
    /// The structural index of the record being scanned (`scan`), its memory kept record to record.
    var index = cjson_index(positions: nil, count: 0, capacity: 0)

    /// The nodes of the last scan; valid until the next.
    package var nodes: UnsafeBufferPointer<Node> { nodeStorage.buffer }
    /// The slots of the last scan's frames and lists; valid until the next.
    package var slots: UnsafeBufferPointer<Int32> { slotStorage.buffer }

    package init() {}

    /// Gives the storage back; the tape is not used again (its owner calls this once, when it goes).
    package mutating func free() {
        nodeStorage.base.deallocate()
        slotStorage.base.deallocate()
        stack.base.deallocate()
        matchStorage.base.deallocate()
        cjson_index_free(&index)
    }

    /// Scans `bytes` (one JSON text) by `shape`; the root node's index, or `nil` when the text
    /// is not valid JSON or holds what the tape does not represent (see the type's comment).
    ///
    /// The text's structural index is built first (CJSONIndex: 64 bytes a step, UTF-8 and the
    /// strings' escapes checked there), then walked: a value the shape does not want is checked
    /// and passed by its index entries, never byte by byte. It accepts exactly the texts
    /// `JSONParser` accepts (`scanByBytes` is the reference the tests hold it to).
    ///
    /// With `recordingMatches`, the scan also records where each container it reads or passes
    /// over closes, for the views of Lua calls (`publishIndex(of:)`); a plan whose calls take no
    /// text leaves it off (about 3% of a plain scan's instructions).
    package mutating func scan(
        _ bytes: UnsafeBufferPointer<UInt8>, shape: TapeShape, recordingMatches: Bool = false
    ) -> Int32? {
        nodeStorage.count = 0
        slotStorage.count = 0
        stack.count = 0
        matchesRecorded = false
        guard let base = bytes.baseAddress,
            cjson_index_build(base, JSONEscape.textStart(of: bytes), bytes.count, &index) == Int32(CJSON_INDEX_OK)
        else { return nil }
        let positions = UnsafeBufferPointer(start: index.positions, count: index.count + 1)
        var matches: UnsafeMutablePointer<UInt64>?
        if recordingMatches {
            if matchStorage.capacity < index.count {
                matchStorage.base.deallocate()
                matchStorage = Storage(capacity: max(256, index.count + index.count / 2))
                matchStorage.base.initialize(repeating: 0, count: matchStorage.capacity)
            }
            matchGeneration &+= 1
            if matchGeneration == 0 {
                matchStorage.base.update(repeating: 0, count: matchStorage.capacity)
                matchGeneration = 1
            }
            matches = matchStorage.base
            matchesRecorded = true
        }
        let generation = UInt64(matchGeneration) << 32
        return shape.keys.withUnsafeBufferPointer { keys in
            shape.shapes.withUnsafeBufferPointer { shapes in
                shape.keyBytes.withUnsafeBufferPointer { keyBytes in
                    let tables = Tables(keys: keys, shapes: shapes, keyBytes: keyBytes)
                    var walker = IndexWalker(
                        bytes: bytes, positions: positions, entries: index.count, matches: matches,
                        generation: generation)
                    guard let root = indexed(&walker, depth: 0, shape: 0, tables), walker.entry == walker.entries
                    else { return nil }
                    return root
                }
            }
        }
    }

    /// Makes the index the last `scan` built of `bytes` the one this thread's Lua calls read
    /// their views through (a member found by walking index entries, the object two
    /// transformers read indexed once), until `withdrawIndex()`. `bytes` must be what that scan
    /// read, alive and unchanged until then, and no other scan may run on this tape meanwhile.
    package func publishIndex(of bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress else { return }
        let matches = matchesRecorded ? UnsafePointer(matchStorage.base) : nil
        withUnsafePointer(to: index) { cjson_index_publish(base, bytes.count, $0, matches, matchGeneration) }
    }

    /// Ends what `publishIndex(of:)` made visible.
    package static func withdrawIndex() {
        cjson_index_withdraw()
    }

    /// `scan` as it was before the structural index: the record read byte by byte with
    /// `JSONParser`'s reader. The reference the indexed scan is tested against.
    package mutating func scanByBytes(_ bytes: UnsafeBufferPointer<UInt8>, shape: TapeShape) -> Int32? {
        nodeStorage.count = 0
        slotStorage.count = 0
        stack.count = 0
        return shape.keys.withUnsafeBufferPointer { keys in
            shape.shapes.withUnsafeBufferPointer { shapes in
                shape.keyBytes.withUnsafeBufferPointer { keyBytes in
                    let tables = Tables(keys: keys, shapes: shapes, keyBytes: keyBytes)
                    var reader = JSONParser.Reader(bytes: bytes)
                    reader.index = JSONEscape.textStart(of: bytes)
                    do throws(JSONParser.Failure) {
                        reader.skipWhitespace()
                        let root = try value(&reader, depth: 0, shape: 0, tables)
                        reader.skipWhitespace()
                        guard reader.index == bytes.count else { return nil }
                        return root
                    } catch {
                        return nil
                    }
                }
            }
        }
    }

    /// The shape's tables, for the length of one scan.
    struct Tables {
        let keys: UnsafeBufferPointer<TapeShape.Key>
        let shapes: UnsafeBufferPointer<TapeShape.Shape>
        let keyBytes: UnsafeBufferPointer<UInt8>
    }

    /// What the scan throws for a key it leaves to the general parser (no position is worked out).
    private static var unsupported: JSONParser.Failure { JSONParser.Failure(message: "", line: 0, column: 0) }

    @inline(__always)
    mutating func add(_ kind: Kind, _ start: Int, _ end: Int, escaped: Bool = false) -> Int32 {
        nodeStorage.append(
            Node(kind: kind, escaped: escaped, start: Int32(start), end: Int32(end), first: 0, count: 0))
        return Int32(nodeStorage.count - 1)
    }

    /// The value at the reader's index, as `JSONParser`'s `value(depth:demand:)` reads it;
    /// `shape` -1 keeps it whole.
    private mutating func value(_ reader: inout JSONParser.Reader, depth: Int, shape: Int32, _ tables: Tables)
        throws(JSONParser.Failure) -> Int32
    {
        let bytes = reader.bytes
        guard reader.index < bytes.count else { throw Self.unsupported }
        let start = reader.index
        switch bytes[start] {
        case UInt8(ascii: "\""):
            let scanned = try reader.scanString()
            return add(.string, scanned.start, scanned.end, escaped: scanned.hasEscapes)
        case UInt8(ascii: "{"):
            guard shape >= 0 else {
                try reader.skipValue(depth: depth)
                return add(.objectSpan, start, reader.index)
            }
            return try object(&reader, depth: depth + 1, shape: shape, tables)
        case UInt8(ascii: "["):
            guard shape >= 0 else {
                try reader.skipValue(depth: depth)
                return add(.arraySpan, start, reader.index)
            }
            return try array(&reader, depth: depth + 1, shape: shape, tables)
        case UInt8(ascii: "t"):
            try reader.skipLiteral()
            return add(.true, start, reader.index)
        case UInt8(ascii: "f"):
            try reader.skipLiteral()
            return add(.false, start, reader.index)
        case UInt8(ascii: "n"):
            try reader.skipLiteral()
            return add(.null, start, reader.index)
        default:
            try reader.skipNumber()
            return add(.number, start, reader.index)
        }
    }

    private mutating func object(_ reader: inout JSONParser.Reader, depth: Int, shape: Int32, _ tables: Tables)
        throws(JSONParser.Failure) -> Int32
    {
        let node = add(.frame, reader.index, reader.index)
        let wanted = tables.shapes[Int(shape)]
        let base = slotStorage.count
        nodeStorage.base[Int(node)].first = Int32(base)
        nodeStorage.base[Int(node)].count = wanted.count
        for _ in 0..<Int(wanted.count) { slotStorage.append(-1) }
        var hint = 0
        try reader.members(depth: depth) { reader, key throws(JSONParser.Failure) in
            if key.hasEscapes { throw Self.unsupported }
            let found = Self.match(key, among: wanted, tables, bytes: reader.bytes, from: hint)
            guard found >= 0 else { return try reader.skipValue(depth: depth) }
            hint = found + 1
            // A repeated key is an issue the general engine reports (`duplicate key`).
            if slotStorage.base[base + found] >= 0 { throw Self.unsupported }
            let child = tables.keys[Int(wanted.first) + found].child
            slotStorage.base[base + found] = try value(&reader, depth: depth, shape: child, tables)
        }
        nodeStorage.base[Int(node)].end = Int32(reader.index)
        return node
    }

    private mutating func array(_ reader: inout JSONParser.Reader, depth: Int, shape: Int32, _ tables: Tables)
        throws(JSONParser.Failure) -> Int32
    {
        let node = add(.list, reader.index, reader.index)
        let mark = stack.count
        try reader.elements(depth: depth) { reader throws(JSONParser.Failure) in
            let element = try value(&reader, depth: depth, shape: shape, tables)
            stack.append(element)
        }
        nodeStorage.base[Int(node)].first = Int32(slotStorage.count)
        nodeStorage.base[Int(node)].count = Int32(stack.count - mark)
        nodeStorage.base[Int(node)].end = Int32(reader.index)
        for position in mark..<stack.count { slotStorage.append(stack.base[position]) }
        stack.count = mark
        return node
    }

    /// Which of the shape's keys the key just scanned is (-1: none); the one at `hint` is tried
    /// first (payloads write their keys in about the order contexts read them).
    @inline(__always)
    private static func match(
        _ key: JSONParser.Reader.ScannedString, among wanted: TapeShape.Shape, _ tables: Tables,
        bytes: UnsafeBufferPointer<UInt8>, from hint: Int
    ) -> Int {
        guard wanted.lengths & 1 << UInt64((key.end - key.start) % 64) != 0 else { return -1 }
        let count = Int(wanted.count)
        if hint < count, holds(key, tables.keys[Int(wanted.first) + hint], tables, bytes) { return hint }
        for position in 0..<count where position != hint {
            if holds(key, tables.keys[Int(wanted.first) + position], tables, bytes) { return position }
        }
        return -1
    }

    @inline(__always)
    private static func holds(
        _ key: JSONParser.Reader.ScannedString, _ wanted: TapeShape.Key, _ tables: Tables,
        _ bytes: UnsafeBufferPointer<UInt8>
    ) -> Bool {
        let count = key.end - key.start
        guard Int(wanted.count) == count else { return false }
        return JSONParser.Reader.sameBytes(
            UnsafeRawPointer(tables.keyBytes.baseAddress.map { $0 + Int(wanted.start) }),
            UnsafeRawPointer(bytes.baseAddress! + key.start), count: count)
    }

    /// Hands each string of an array kept whole (`arraySpan`) to `body`, as a string node, in
    /// order; `false` as soon as an element is anything but a string or `body` says `false`
    /// (and for a node that is no array span).
    package static func forEachString(
        in node: Node, _ bytes: UnsafeBufferPointer<UInt8>, _ body: (Node) -> Bool
    ) -> Bool {
        guard node.kind == .arraySpan else { return false }
        var reader = JSONParser.Reader(bytes: bytes)
        reader.index = Int(node.start) + 1
        reader.skipWhitespace()
        if bytes[reader.index] == UInt8(ascii: "]") { return true }
        while true {
            reader.skipWhitespace()
            guard bytes[reader.index] == UInt8(ascii: "\""), let scanned = try? reader.scanString() else {
                return false
            }
            let string = Node(
                kind: .string, escaped: scanned.hasEscapes, start: Int32(scanned.start), end: Int32(scanned.end),
                first: 0, count: 0)
            guard body(string) else { return false }
            reader.skipWhitespace()
            switch bytes[reader.index] {
            case UInt8(ascii: ","): reader.index += 1
            case UInt8(ascii: "]"): return true
            default: return false
            }
        }
    }

    /// The value of a node kept as bytes, built as `JSONParser` builds it; `nil` for a frame or
    /// a list (the tape holds only the wanted parts of those), and for a value that repeats a
    /// key (an issue the general engine reports).
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
        case .number:
            reader.index = Int(node.start)
            return try? reader.value(depth: 0, demand: .everything)
        case .objectSpan, .arraySpan:
            reader.index = Int(node.start)
            guard let value = try? reader.value(depth: 0, demand: .everything), !value.hasDuplicateKeys else {
                return nil
            }
            return value
        }
    }
}
