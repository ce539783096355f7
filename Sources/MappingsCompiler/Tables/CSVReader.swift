/// Reads CSV text as RFC 4180 writes it: fields separated by commas, records by line feeds
/// (CR LF or LF), a field in double quotes may hold commas, line feeds and doubled quotes, and a
/// byte order mark before the header is skipped.
///
/// A blank line is no record (writers end files with one). What RFC 4180 does not allow — a
/// quote inside an unquoted field, a quoted field that never closes, text after a closing
/// quote — is a `Failure` with the line and column, never a guess.
struct CSVReader {
    /// One record: its fields, and the 1-based line it starts on.
    struct Record {
        var fields: [String]
        var line: Int
        /// The byte offset each field starts at (`place(ofField:in:)` turns one into a line and column).
        var starts: [Int]
    }

    /// Why the text is not CSV, and where.
    struct Failure: Error {
        var message: String
        var line: Int
        var column: Int
    }

    private let bytes: [UInt8]
    private var position = 0
    private var line = 1
    /// The byte offset of the current line's first byte, for columns.
    private var lineStart = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            position = 3
            lineStart = 3
        }
    }

    /// A reader of the record that starts at byte `offset`, on line `line` (to read one again).
    init(bytes: [UInt8], at offset: Int, line: Int) {
        self.bytes = bytes
        position = offset
        lineStart = offset
        self.line = line
    }

    /// The next record (the header first), or `nil` at the end of the text.
    mutating func next() throws(Failure) -> Record? {
        while position < bytes.count {
            if bytes[position] == UInt8(ascii: "\n") || isCRLF(at: position) {
                skipLineEnd()
                continue
            }
            return try record()
        }
        return nil
    }

    /// The 1-based line and column (in Unicode scalars) field `field` of `record` starts at.
    func place(ofField field: Int, in record: Record) -> (line: Int, column: Int) {
        let offset = record.starts[field]
        let line = record.line + bytes[record.starts[0]..<offset].lazy.filter { $0 == UInt8(ascii: "\n") }.count
        var start = offset
        while start > 0, bytes[start - 1] != UInt8(ascii: "\n") { start -= 1 }
        if start == 0, bytes.starts(with: [0xEF, 0xBB, 0xBF]) { start = 3 }
        return (line, bytes[start..<offset].reduce(1) { count, byte in byte & 0xC0 == 0x80 ? count : count + 1 })
    }

    private func isCRLF(at offset: Int) -> Bool {
        bytes[offset] == UInt8(ascii: "\r") && offset + 1 < bytes.count && bytes[offset + 1] == UInt8(ascii: "\n")
    }

    private mutating func skipLineEnd() {
        position += bytes[position] == UInt8(ascii: "\r") ? 2 : 1
        line += 1
        lineStart = position
    }

    /// The column of `offset` on the current line, in Unicode scalars.
    private func column(of offset: Int) -> Int {
        bytes[lineStart..<offset].reduce(1) { count, byte in byte & 0xC0 == 0x80 ? count : count + 1 }
    }

    private mutating func record() throws(Failure) -> Record {
        var record = Record(fields: [], line: line, starts: [])
        while true {
            record.starts.append(position)
            record.fields.append(try field())
            if position >= bytes.count { return record }
            if bytes[position] == UInt8(ascii: ",") {
                position += 1
                continue
            }
            skipLineEnd()
            return record
        }
    }

    /// One field, up to (not past) the comma or line end after it.
    private mutating func field() throws(Failure) -> String {
        guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
            let start = position
            while position < bytes.count, bytes[position] != UInt8(ascii: ","), bytes[position] != UInt8(ascii: "\n"),
                !isCRLF(at: position)
            {
                if bytes[position] == UInt8(ascii: "\"") {
                    throw Failure(
                        message:
                            "a quote inside an unquoted field (quote the whole field and double the quote: \"a \"\"b\"\"\")",
                        line: line, column: column(of: position))
                }
                position += 1
            }
            return try text(bytes[start..<position], line: line, column: column(of: start))
        }
        let (openLine, openColumn) = (line, column(of: position))
        position += 1
        var field: [UInt8] = []
        while true {
            guard position < bytes.count else {
                throw Failure(
                    message: "a quoted field that never closes (a quote is missing)", line: openLine,
                    column: openColumn)
            }
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                if position + 1 < bytes.count, bytes[position + 1] == UInt8(ascii: "\"") {
                    field.append(byte)
                    position += 2
                    continue
                }
                position += 1
                if position < bytes.count, bytes[position] != UInt8(ascii: ","), bytes[position] != UInt8(ascii: "\n"),
                    !isCRLF(at: position)
                {
                    throw Failure(
                        message: "text after a closing quote (a field is quoted whole)", line: line,
                        column: column(of: position))
                }
                return try text(field[...], line: openLine, column: openColumn)
            }
            field.append(byte)
            position += 1
            if byte == UInt8(ascii: "\n") {
                line += 1
                lineStart = position
            }
        }
    }

    /// The field's text; a field that is not UTF-8 fails at its start (`line`, `column`).
    private func text(_ slice: ArraySlice<UInt8>, line: Int, column: Int) throws(Failure) -> String {
        // ASCII, most fields, needs no validating (a generic call, ten times the cost).
        if slice.allSatisfy({ $0 < 0x80 }) { return String(decoding: slice, as: UTF8.self) }
        guard let text = String(validating: slice, as: UTF8.self) else {
            throw Failure(message: "a field that is not UTF-8", line: line, column: column)
        }
        return text
    }
}
