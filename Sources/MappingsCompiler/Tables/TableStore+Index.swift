#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The index of a `TableStore`: open addressing over row numbers, by a hash of a row's key text
/// (read a word at a time), which a lookup compares with its key's bytes in place.
extension TableStore {
    private static let separator: UInt8 = 0x1F

    /// Indexes the rows by the cells of `keyColumns` (every row has a key: the reader checked);
    /// returns the rows whose key an earlier row has, each with that earlier row.
    mutating func index(keyColumns: [Int]) -> [(row: Int, first: Int)] {
        self.keyColumns = keyColumns
        var capacity = 8
        while capacity < 2 * rowCount { capacity *= 2 }
        var slots = [Int32](repeating: 0, count: capacity)
        var repeated: [(row: Int, first: Int)] = []
        for row in 0..<rowCount {
            var slot = Int(truncatingIfNeeded: hash(ofRow: row)) & (capacity - 1)
            var first: Int?
            while slots[slot] != 0 {
                let other = Int(slots[slot]) - 1
                if withKeyText(ofRow: row, { sameKey(row: other, $0) }) {
                    first = other
                    break
                }
                slot = (slot + 1) & (capacity - 1)
            }
            if let first {
                repeated.append((row, first))
            } else {
                slots[slot] = Int32(truncatingIfNeeded: row + 1)
            }
        }
        self.slots = slots
        return repeated
    }

    /// The row whose key text is `key`, or `nil`.
    func row(forKeyText key: String) -> Int? {
        var key = key
        return key.withUTF8 { row(forKeyText: $0) }
    }

    func row(forKeyText key: UnsafeBufferPointer<UInt8>) -> Int? {
        slots.withUnsafeBufferPointer { slots in
            guard !slots.isEmpty else { return nil }
            var slot = Int(truncatingIfNeeded: Self.hash(key)) & (slots.count - 1)
            while slots[slot] != 0 {
                let row = Int(slots[slot]) - 1
                if sameKey(row: row, key) { return row }
                slot = (slot + 1) & (slots.count - 1)
            }
            return nil
        }
    }

    /// Whether row `row`'s key text is `key`, compared part by part.
    private func sameKey(row: Int, _ key: UnsafeBufferPointer<UInt8>) -> Bool {
        if keyColumns.count == 1, kind(row: row, column: keyColumns[0]) == .string {
            return withBytes(row: row, column: keyColumns[0]) { text in
                text.count == key.count && (key.isEmpty || memcmp(text.baseAddress!, key.baseAddress!, key.count) == 0)
            }
        }
        var at = 0
        for (part, column) in keyColumns.enumerated() {
            if part > 0 {
                guard at < key.count, key[at] == Self.separator else { return false }
                at += 1
            }
            let matched: Bool = withKeyText(row: row, column: column) { text in
                guard let text, key.count - at >= text.count else { return false }
                for offset in 0..<text.count where key[at + offset] != text[offset] { return false }
                at += text.count
                return true
            }
            guard matched else { return false }
        }
        return at == key.count
    }

    /// The hash of row `row`'s key text, as `row(forKeyText:)` hashes a key.
    private func hash(ofRow row: Int) -> UInt64 {
        withKeyText(ofRow: row) { Self.hash($0) }
    }

    /// Calls `body` with row `row`'s whole key text (its parts joined), for the build's comparisons.
    private func withKeyText<R>(ofRow row: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if keyColumns.count == 1 {
            return withKeyText(row: row, column: keyColumns[0]) {
                body($0 ?? UnsafeBufferPointer(start: nil, count: 0))
            }
        }
        var joined: [UInt8] = []
        for (part, column) in keyColumns.enumerated() {
            if part > 0 { joined.append(Self.separator) }
            withKeyText(row: row, column: column) { if let text = $0 { joined.append(contentsOf: text) } }
        }
        return joined.withUnsafeBufferPointer(body)
    }

    /// The hash of a key text: its bytes eight at a time (the last word padded with zeros), each
    /// word mixed in by a multiply and a shift, the length in the seed; the high bits mixed into
    /// the low ones, which pick the slot. A long key (an HTML link) costs a multiply a word, not a
    /// byte.
    static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var value: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(bytes.count)
        guard let base = bytes.baseAddress.map(UnsafeRawPointer.init) else { return value }
        var offset = 0
        while offset + 8 <= bytes.count {
            value = (value ^ base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* 0xbf58_476d_1ce4_e5b9
            value ^= value >> 31
            offset += 8
        }
        if offset < bytes.count {
            var last: UInt64 = 0
            for index in offset..<bytes.count { last |= UInt64(bytes[index]) << (8 * UInt64(index - offset)) }
            value = (value ^ last) &* 0xbf58_476d_1ce4_e5b9
        }
        let mixed = (value ^ (value >> 31)) &* 0x94d0_49bb_1331_11eb
        return mixed ^ (mixed >> 29)
    }
}
