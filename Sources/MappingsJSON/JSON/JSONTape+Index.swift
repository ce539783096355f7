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
        /// Where each container the walk reads or passes over closes, by the entry that opens it,
        /// with `generation` (the scan's, in the high 32 bits) beside it; `nil` when no view will
        /// read them (the scan records nothing).
        let matches: UnsafeMutablePointer<UInt64>?
        let generation: UInt64
        /// The entry the walk is at.
        var entry = 0

        init(
            bytes: UnsafeBufferPointer<UInt8>, positions: UnsafeBufferPointer<UInt32>, entries: Int,
            matches: UnsafeMutablePointer<UInt64>?, generation: UInt64
        ) {
            self.bytes = bytes
            self.positions = positions
            self.entries = entries
            self.matches = matches
            self.generation = generation
        }

        /// Records that the container opened at entry `opening` closes at entry `closing`.
        @inline(__always)
        func match(_ opening: Int, _ closing: Int) {
            matches?[opening] = generation | UInt64(UInt32(truncatingIfNeeded: closing))
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
        let opening = walker.entry
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
        walker.match(opening, walker.entry - 1)
        return node
    }

    private mutating func indexedArray(_ walker: inout IndexWalker, depth: Int, shape: Int32, _ tables: Tables)
        -> Int32?
    {
        guard depth <= JSONParser.maximumDepth else { return nil }
        let node = add(.list, walker.offset, walker.offset)
        let mark = stack.count
        let opening = walker.entry
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
        walker.match(opening, walker.entry - 1)
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
    @inline(__always)
    static func skipValue(_ walker: inout IndexWalker, depth: Int) -> Bool {
        guard walker.entry < walker.entries else { return false }
        switch walker.byte {
        case UInt8(ascii: "\""): return stringEnd(&walker) != nil
        case UInt8(ascii: "{"), UInt8(ascii: "["): return skipContainer(&walker, depth: depth + 1)
        default: return scalar(&walker) != nil
        }
    }

    /// Checks the object or array at the walk's entry, its members and elements, and moves past
    /// its closing bracket: JSON's grammar over the entries, as a loop with the containers open
    /// kept as bits (1: an object), 64 levels in a word (deeper ones go on in a nested walk).
    static func skipContainer(_ walker: inout IndexWalker, depth: Int) -> Bool {
        let bytes = walker.bytes.baseAddress!
        let positions = walker.positions.baseAddress!
        let entries = walker.entries
        var entry = walker.entry
        let opening = entry
        @inline(__always) func byte(_ entry: Int) -> UInt8 {
            entry < entries ? bytes[Int(positions[entry] & CJSON_INDEX_OFFSET)] : 0x20
        }
        // The containers open (`levels` of them), innermost at bit `levels - 1`.
        var objects: UInt64 = 0
        var levels = 0
        var state = State.opening
        while true {
            switch state {
            case .opening:
                guard depth + levels <= JSONParser.maximumDepth else { return false }
                let isObject = byte(entry) == UInt8(ascii: "{")
                if levels == 64 {
                    // Deeper than a word holds: the rest of this container in a walk of its own.
                    walker.entry = entry
                    guard skipContainer(&walker, depth: depth + levels) else { return false }
                    entry = walker.entry
                    state = .afterValue
                    continue
                }
                objects = objects & ~(1 << UInt64(levels)) | (isObject ? 1 << UInt64(levels) : 0)
                levels += 1
                entry += 1
                let next = byte(entry)
                if next == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    entry += 1
                    levels -= 1
                    state = .afterValue
                } else {
                    state = isObject ? .key : .value
                }
            case .key:
                // A key, its closing quote next, then a colon.
                guard byte(entry) == UInt8(ascii: "\""), entry + 2 < entries,
                    bytes[Int(positions[entry + 1] & CJSON_INDEX_OFFSET)] == UInt8(ascii: "\""),
                    bytes[Int(positions[entry + 2] & CJSON_INDEX_OFFSET)] == UInt8(ascii: ":")
                else { return false }
                entry += 3
                state = .value
            case .value:
                switch byte(entry) {
                case UInt8(ascii: "\""):
                    guard entry + 1 < entries,
                        bytes[Int(positions[entry + 1] & CJSON_INDEX_OFFSET)] == UInt8(ascii: "\"")
                    else { return false }
                    entry += 2
                    state = .afterValue
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    state = .opening
                default:
                    guard entry < entries,
                        scalarEnd(walker.bytes, Int(positions[entry] & CJSON_INDEX_OFFSET)) != nil
                    else { return false }
                    entry += 1
                    state = .afterValue
                }
            case .afterValue:
                guard levels > 0 else {
                    walker.entry = entry
                    walker.match(opening, entry - 1)
                    return true
                }
                let isObject = objects & (1 << UInt64(levels - 1)) != 0
                let separator = byte(entry)
                entry += 1
                if separator == UInt8(ascii: ",") {
                    state = isObject ? .key : .value
                } else if separator == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    levels -= 1
                } else {
                    return false
                }
            }
        }
    }

    /// Where a walk over a skipped container stands.
    private enum State {
        case opening, key, value, afterValue
    }

    /// Checks the number or literal at the walk's entry as the parser does (a literal exactly,
    /// a number's digits, sign, fraction and exponent), that nothing but whitespace or
    /// punctuation follows it, and moves past it: its kind and where it ends.
    @inline(__always)
    static func scalar(_ walker: inout IndexWalker) -> (Kind, Int)? {
        let start = walker.offset
        guard let (kind, end) = scalarEnd(walker.bytes, start) else { return nil }
        walker.entry += 1
        return (kind, end)
    }

    /// The kind and end of the number or literal at `start`, checked as the parser checks them,
    /// and followed by whitespace, punctuation, a quote or the end; `nil` otherwise. Inlined:
    /// a skipped container checks each of its scalars with it.
    @inline(__always)
    static func scalarEnd(_ buffer: UnsafeBufferPointer<UInt8>, _ start: Int) -> (Kind, Int)? {
        let bytes = buffer.baseAddress!
        let count = buffer.count
        let kind: Kind
        var index = start
        @inline(__always) func isDigit(_ at: Int) -> Bool { at < count && bytes[at] &- 48 < 10 }
        switch bytes[start] {
        case UInt8(ascii: "t"), UInt8(ascii: "n"):
            guard start + 4 <= count else { return nil }
            let word = UInt32(littleEndian: UnsafeRawPointer(bytes + start).loadUnaligned(as: UInt32.self))
            // "true" and "null" as little-endian words.
            guard word == 0x6575_7274 || word == 0x6C6C_756E else { return nil }
            kind = word == 0x6575_7274 ? .true : .null
            index = start + 4
        case UInt8(ascii: "f"):
            guard start + 5 <= count,
                UInt32(littleEndian: UnsafeRawPointer(bytes + start + 1).loadUnaligned(as: UInt32.self))
                    == 0x6573_6C61  // "alse"
            else { return nil }
            kind = .false
            index = start + 5
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            kind = .number
            if bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard isDigit(index) else { return nil }
            if bytes[index] == UInt8(ascii: "0") {
                index += 1
                // No leading zero: a digit after a 0 is no number the parser reads.
                if isDigit(index) { return nil }
            } else {
                repeat { index += 1 } while isDigit(index)
            }
            if index < count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                guard isDigit(index) else { return nil }
                repeat { index += 1 } while isDigit(index)
            }
            if index < count, bytes[index] | 0x20 == UInt8(ascii: "e") {
                index += 1
                if index < count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                    index += 1
                }
                guard isDigit(index) else { return nil }
                repeat { index += 1 } while isDigit(index)
            }
        default:
            return nil
        }
        guard index >= count || endsScalarByte(bytes[index]) else { return nil }
        return (kind, index)
    }

    /// Whether a byte ends a scalar: whitespace, punctuation or a quote.
    @inline(__always)
    static func endsScalarByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x20, 0x0A, 0x0D, 0x09, UInt8(ascii: ","), UInt8(ascii: ":"), UInt8(ascii: "]"), UInt8(ascii: "}"),
            UInt8(ascii: "["), UInt8(ascii: "{"), UInt8(ascii: "\""):
            return true
        default:
            return false
        }
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
