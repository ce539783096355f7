import CJSONIndex

/// The record tape read from the structural index: JSON's grammar checked entry by entry (the
/// bytes between entries are whitespace, or a string's or a scalar's), scalars checked where
/// they are, and what the shape does not want passed over by its entries.
extension JSONTape {
    /// A walk over a text's index entries.
    struct IndexWalker {
        let bytes: UnsafeBufferPointer<UInt8>
        /// The entries' offsets; `positions[entries]` is the text's length.
        let positions: UnsafeBufferPointer<UInt32>
        let entries: Int
        /// The entry the walk is at.
        var entry = 0

        init(bytes: UnsafeBufferPointer<UInt8>, positions: UnsafeBufferPointer<UInt32>, entries: Int) {
            self.bytes = bytes
            self.positions = positions
            self.entries = entries
        }

        /// The offset of the entry the walk is at (the text's length past the last).
        @inline(__always)
        var offset: Int { offset(of: entry) }

        /// The offset of entry `entry` (its high bit marks a string's closing quote that holds escapes).
        @inline(__always)
        func offset(of entry: Int) -> Int { Int(positions[entry] & CJSON_INDEX_OFFSET) }

        /// The byte at the entry the walk is at (a space past the last, which no rule takes).
        @inline(__always)
        var byte: UInt8 { entry < entries ? bytes[offset] : 0x20 }

        /// Whether the byte at `offset` ends a scalar: whitespace, punctuation, a quote, or the end.
        @inline(__always)
        func endsScalar(_ offset: Int) -> Bool {
            guard offset < bytes.count else { return true }
            switch bytes[offset] {
            case 0x20, 0x0A, 0x0D, 0x09, UInt8(ascii: ","), UInt8(ascii: ":"), UInt8(ascii: "]"), UInt8(ascii: "}"),
                UInt8(ascii: "["), UInt8(ascii: "{"), UInt8(ascii: "\""):
                return true
            default:
                return false
            }
        }
    }

    /// The value at the walk's entry, as `value(_:depth:shape:_:)` reads it from bytes; `nil`
    /// when the text breaks JSON there or holds what the tape leaves to the general parser.
    mutating func indexed(_ walker: inout IndexWalker, depth: Int, shape: Int32, _ tables: Tables) -> Int32? {
        guard walker.entry < walker.entries else { return nil }
        let start = walker.offset
        switch walker.bytes[start] {
        case UInt8(ascii: "\""):
            guard let (end, escaped) = Self.stringEnd(&walker) else { return nil }
            return add(.string, start + 1, end, escaped: escaped)
        case UInt8(ascii: "{"):
            guard shape >= 0 else {
                guard Self.skipContainer(&walker, depth: depth + 1) else { return nil }
                return add(.objectSpan, start, walker.offset(of: walker.entry - 1) + 1)
            }
            return indexedObject(&walker, depth: depth + 1, shape: shape, tables)
        case UInt8(ascii: "["):
            guard shape >= 0 else {
                guard Self.skipContainer(&walker, depth: depth + 1) else { return nil }
                return add(.arraySpan, start, walker.offset(of: walker.entry - 1) + 1)
            }
            return indexedArray(&walker, depth: depth + 1, shape: shape, tables)
        default:
            guard let (kind, end) = Self.scalar(&walker) else { return nil }
            return add(kind, start, end)
        }
    }

    private mutating func indexedObject(_ walker: inout IndexWalker, depth: Int, shape: Int32, _ tables: Tables)
        -> Int32?
    {
        guard depth <= JSONParser.maximumDepth else { return nil }
        let node = add(.frame, walker.offset, walker.offset)
        let wanted = tables.shapes[Int(shape)]
        let base = slotStorage.count
        nodeStorage.base[Int(node)].first = Int32(base)
        nodeStorage.base[Int(node)].count = wanted.count
        for _ in 0..<Int(wanted.count) { slotStorage.append(-1) }
        walker.entry += 1
        var hint = 0
        if walker.byte == UInt8(ascii: "}") {
            walker.entry += 1
        } else {
            while true {
                guard walker.byte == UInt8(ascii: "\"") else { return nil }
                let keyStart = walker.offset + 1
                guard let (keyEnd, escaped) = Self.stringEnd(&walker), walker.byte == UInt8(ascii: ":") else {
                    return nil
                }
                walker.entry += 1
                // A key written with escapes is compared by code points: the general parser's.
                if escaped { return nil }
                let found = Self.match(keyStart, keyEnd, among: wanted, tables, walker.bytes, from: hint)
                if found >= 0 {
                    hint = found + 1
                    // A repeated key is an issue the general engine reports (`duplicate key`).
                    if slotStorage.base[base + found] >= 0 { return nil }
                    let child = tables.keys[Int(wanted.first) + found].child
                    guard let value = indexed(&walker, depth: depth, shape: child, tables) else { return nil }
                    slotStorage.base[base + found] = value
                } else {
                    guard Self.skipValue(&walker, depth: depth) else { return nil }
                }
                let separator = walker.byte
                walker.entry += 1
                if separator == UInt8(ascii: "}") { break }
                guard separator == UInt8(ascii: ",") else { return nil }
            }
        }
        nodeStorage.base[Int(node)].end = Int32(walker.offset(of: walker.entry - 1) + 1)
        return node
    }

    private mutating func indexedArray(_ walker: inout IndexWalker, depth: Int, shape: Int32, _ tables: Tables)
        -> Int32?
    {
        guard depth <= JSONParser.maximumDepth else { return nil }
        let node = add(.list, walker.offset, walker.offset)
        let mark = stack.count
        walker.entry += 1
        if walker.byte == UInt8(ascii: "]") {
            walker.entry += 1
        } else {
            while true {
                guard let element = indexed(&walker, depth: depth, shape: shape, tables) else { return nil }
                stack.append(element)
                let separator = walker.byte
                walker.entry += 1
                if separator == UInt8(ascii: "]") { break }
                guard separator == UInt8(ascii: ",") else { return nil }
            }
        }
        nodeStorage.base[Int(node)].first = Int32(slotStorage.count)
        nodeStorage.base[Int(node)].count = Int32(stack.count - mark)
        nodeStorage.base[Int(node)].end = Int32(walker.offset(of: walker.entry - 1) + 1)
        for position in mark..<stack.count { slotStorage.append(stack.base[position]) }
        stack.count = mark
        return node
    }

    /// At a string's opening quote: moves past its closing quote and returns where that is, and
    /// whether the string holds escapes.
    @inline(__always)
    static func stringEnd(_ walker: inout IndexWalker) -> (end: Int, escaped: Bool)? {
        // The entry after an opening quote is its closing quote: nothing in a string is an entry.
        guard walker.entry + 1 < walker.entries else { return nil }
        let entry = walker.positions[walker.entry + 1]
        let end = Int(entry & CJSON_INDEX_OFFSET)
        guard walker.bytes[end] == UInt8(ascii: "\"") else { return nil }
        walker.entry += 2
        return (end, entry & CJSON_INDEX_ESCAPES != 0)
    }

    /// Checks the value at the walk's entry and moves past it, building nothing.
    static func skipValue(_ walker: inout IndexWalker, depth: Int) -> Bool {
        guard walker.entry < walker.entries else { return false }
        switch walker.byte {
        case UInt8(ascii: "\""): return stringEnd(&walker) != nil
        case UInt8(ascii: "{"), UInt8(ascii: "["): return skipContainer(&walker, depth: depth + 1)
        default: return scalar(&walker) != nil
        }
    }

    /// Checks the object or array at the walk's entry, its members and elements, and moves past
    /// its closing bracket: the grammar over entries, with a stack of the containers open.
    static func skipContainer(_ walker: inout IndexWalker, depth: Int) -> Bool {
        guard depth <= JSONParser.maximumDepth else { return false }
        let isObject = walker.byte == UInt8(ascii: "{")
        walker.entry += 1
        let close = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
        if walker.byte == close {
            walker.entry += 1
            return true
        }
        while true {
            if isObject {
                guard walker.byte == UInt8(ascii: "\""), stringEnd(&walker) != nil,
                    walker.byte == UInt8(ascii: ":")
                else { return false }
                walker.entry += 1
            }
            guard skipValue(&walker, depth: depth) else { return false }
            let separator = walker.byte
            walker.entry += 1
            if separator == close { return true }
            guard separator == UInt8(ascii: ",") else { return false }
        }
    }

    /// Checks the number or literal at the walk's entry as the parser does (a literal exactly,
    /// a number's digits, sign, fraction and exponent), that nothing but whitespace or
    /// punctuation follows it, and moves past it: its kind and where it ends.
    static func scalar(_ walker: inout IndexWalker) -> (Kind, Int)? {
        let start = walker.offset
        let bytes = walker.bytes
        let kind: Kind
        let end: Int
        switch bytes[start] {
        case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
            var reader = JSONParser.Reader(bytes: bytes)
            reader.index = start
            guard (try? reader.skipLiteral()) != nil else { return nil }
            kind = bytes[start] == UInt8(ascii: "t") ? .true : bytes[start] == UInt8(ascii: "f") ? .false : .null
            end = reader.index
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            var reader = JSONParser.Reader(bytes: bytes)
            reader.index = start
            guard (try? reader.skipNumber()) != nil else { return nil }
            kind = .number
            end = reader.index
        default:
            return nil
        }
        guard walker.endsScalar(end) else { return nil }
        walker.entry += 1
        return (kind, end)
    }

    /// Which of the shape's keys `bytes[start..<end]` is (-1: none); the one at `hint` is tried first.
    @inline(__always)
    static func match(
        _ start: Int, _ end: Int, among wanted: TapeShape.Shape, _ tables: Tables, _ bytes: UnsafeBufferPointer<UInt8>,
        from hint: Int
    ) -> Int {
        let count = end - start
        guard wanted.lengths & 1 << UInt64(count % 64) != 0 else { return -1 }
        let keys = Int(wanted.count)
        func holds(_ position: Int) -> Bool {
            let key = tables.keys[Int(wanted.first) + position]
            guard Int(key.count) == count else { return false }
            return JSONParser.Reader.sameBytes(
                UnsafeRawPointer(tables.keyBytes.baseAddress.map { $0 + Int(key.start) }),
                UnsafeRawPointer(bytes.baseAddress! + start), count: count)
        }
        if hint < keys, holds(hint) { return hint }
        for position in 0..<keys where position != hint && holds(position) { return position }
        return -1
    }
}
