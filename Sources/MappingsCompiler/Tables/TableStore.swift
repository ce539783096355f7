import MappingsJSON

/// A lookup table's cells in one byte buffer, and the index from a row's key to the row.
///
/// Why not rows of `JSONValue`: a million rows of them take ~190 bytes a row (an array per row,
/// a dictionary of `String` keys), forty times a short CSV line; here a row takes its cells'
/// bytes, four bytes a cell (its kind and where its bytes start) and eight of index, so a
/// table stays within about twice its file. A cell's bytes are its text: a string's UTF-8, a
/// number's digits as written, a nested value's JSON; a cell ends where the next one starts.
/// The index is open addressing over row numbers, keyed by a hash of the key's text (a
/// composite key's parts apart by U+001F, as `LookupTable.compositeKey` joins them), so a
/// lookup hashes the key's bytes and compares them with the row's, allocating nothing.
struct TableStore: Sendable {
    /// What a cell holds; kept in a cell word's top bits.
    enum Kind: UInt32 {
        case empty = 0, string, number, yes, no, json
    }

    /// The bits of a cell word that say where its bytes start: a table's cells hold at most
    /// 512 MiB of bytes.
    static let offsetBits: UInt32 = 29
    static let maximumBytes = 1 << offsetBits
    private static let offsetMask: UInt32 = (1 << offsetBits) - 1
    private static let trueText = Array("true".utf8)
    private static let falseText = Array("false".utf8)

    let columnCount: Int
    /// Every cell's bytes, row after row.
    private var bytes: [UInt8] = []
    /// Each cell's kind and first byte, `(kind << offsetBits) | offset`, row after row.
    private var cells: [UInt32] = []
    /// The index: row number + 1 in each used slot, 0 in a free one; a power of two long
    /// (`TableStore+Index.swift`).
    var slots: [Int32] = []
    /// The line each row starts on, once one does not follow the row before it (a blank line,
    /// a field over several lines); empty while every row's line is `firstLine + row`.
    private var lines: [UInt32] = []
    private var firstLine = 1
    /// The key's columns, once indexed.
    var keyColumns: [Int] = []

    init(columnCount: Int, rows: Int = 0, bytes: Int = 0) {
        self.columnCount = columnCount
        cells.reserveCapacity(rows * columnCount)
        self.bytes.reserveCapacity(bytes)
    }

    var rowCount: Int { columnCount == 0 ? 0 : cells.count / columnCount }

    /// The bytes the table takes in memory (its buffers' capacities).
    var memory: Int {
        bytes.capacity + 4 * (cells.capacity + slots.capacity + lines.capacity) + 8 * keyColumns.capacity
    }

    /// Appends a row that starts on `line`; `false` when the table's cells would pass `maximumBytes`.
    mutating func append(_ row: [JSONValue], line: Int) -> Bool {
        for value in row {
            guard append(value) else { return false }
        }
        noteLine(line)
        return true
    }

    /// Appends a cell (the next of the row being appended); `false` past `maximumBytes`.
    mutating func append(_ value: JSONValue) -> Bool {
        let start = UInt32(truncatingIfNeeded: bytes.count)
        let kind: Kind
        switch value {
        case .null: kind = .empty
        case .string(let text):
            kind = .string
            bytes.append(contentsOf: text.utf8)
        case .bool(let flag): kind = flag ? .yes : .no
        case .integer, .double, .number:
            kind = .number
            JSONWriter.write(value, into: &bytes)
        case .array, .object:
            kind = .json
            JSONWriter.write(value, into: &bytes)
        }
        guard bytes.count < Self.maximumBytes else { return false }
        cells.append(kind.rawValue << Self.offsetBits | start)
        return true
    }

    /// Notes the line of the row whose cells were just appended.
    mutating func noteLine(_ line: Int) {
        let row = rowCount - 1
        if row == 0 { firstLine = line }
        if lines.isEmpty, line == firstLine + row { return }
        if lines.isEmpty { lines = (0..<row).map { UInt32(truncatingIfNeeded: firstLine + $0) } }
        lines.append(UInt32(truncatingIfNeeded: line))
    }

    /// The line row `row` starts on.
    func line(ofRow row: Int) -> Int { lines.isEmpty ? firstLine + row : Int(lines[row]) }

    func kind(row: Int, column: Int) -> Kind {
        Kind(rawValue: cells[row * columnCount + column] >> Self.offsetBits) ?? .empty
    }

    /// The byte range of a cell.
    private func range(_ cell: Int) -> Range<Int> {
        let start = Int(cells[cell] & Self.offsetMask)
        return start..<(cell + 1 < cells.count ? Int(cells[cell + 1] & Self.offsetMask) : bytes.count)
    }

    /// Calls `body` with a cell's bytes.
    func withBytes<R>(row: Int, column: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        let range = range(row * columnCount + column)
        return bytes.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[range])) }
    }

    /// A cell as a JSON value (`null` when empty).
    func cell(row: Int, column: Int) -> JSONValue {
        switch kind(row: row, column: column) {
        case .empty: .null
        case .yes: .bool(true)
        case .no: .bool(false)
        case .string: .string(withBytes(row: row, column: column) { String(decoding: $0, as: UTF8.self) })
        case .number:
            JSONValue.number(literal: withBytes(row: row, column: column) { String(decoding: $0, as: UTF8.self) })
        case .json: withBytes(row: row, column: column) { (try? JSONParser.parse(Array($0))) ?? .null }
        }
    }

    /// Changes the kind of every cell of `column` that is not empty (a column of numbers or
    /// booleans read as text); a boolean's bytes are `true` or `false`, as its kind says.
    mutating func retag(column: Int, as kind: (UnsafeBufferPointer<UInt8>) -> Kind) {
        for row in 0..<rowCount where self.kind(row: row, column: column) != .empty {
            let new = withBytes(row: row, column: column, kind)
            let cell = row * columnCount + column
            cells[cell] = new.rawValue << Self.offsetBits | (cells[cell] & Self.offsetMask)
        }
    }

    /// Calls `body` with the text a cell is a key by: a string's or a number's bytes, `true` or
    /// `false`; `nil` for an empty cell or a nested value, which are no keys.
    func withKeyText<R>(row: Int, column: Int, _ body: (UnsafeBufferPointer<UInt8>?) -> R) -> R {
        switch kind(row: row, column: column) {
        case .empty, .json: body(nil)
        case .yes: Self.trueText.withUnsafeBufferPointer { body($0) }
        case .no: Self.falseText.withUnsafeBufferPointer { body($0) }
        case .string, .number: withBytes(row: row, column: column) { body($0) }
        }
    }

    /// Trims the buffers to what they hold, once every row is in.
    mutating func compact() {
        if bytes.capacity > bytes.count + bytes.count / 8 { bytes = Array(bytes[...]) }
        if cells.capacity > cells.count + cells.count / 8 { cells = Array(cells[...]) }
        if lines.capacity > lines.count + lines.count / 8 { lines = Array(lines[...]) }
    }
}
