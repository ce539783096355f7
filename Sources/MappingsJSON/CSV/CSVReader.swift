/// Reads CSV text as RFC 4180 writes it: fields separated by commas, records by line feeds
/// (CR LF or LF), a field in double quotes may hold commas, line feeds and doubled quotes, and a
/// byte order mark before the header is skipped.
///
/// The one CSV reader: lookup tables read their files with it (`MappingsCompiler/Tables/`), and
/// the CSV format of records reads a stream with it (`Mappings/RecordPath/Format/CSV/`), a part
/// at a time: with `inputEnds` false, a record that reaches the end of the bytes is not read
/// (`next()` gives `nil` and `position` stays at its start) until more bytes come.
///
/// A blank line is no record (writers end files with one). What RFC 4180 does not allow — a
/// quote inside an unquoted field, a quoted field that never closes, text after a closing
/// quote — is a `Failure` with the line and column, never a guess.
package struct CSVReader {
    /// One record: its fields, and the 1-based line it starts on.
    package struct Record {
        package var fields: [String]
        package var line: Int
        /// The byte offset each field starts at (`place(ofField:in:)` turns one into a line and column).
        package var starts: [Int]
        /// Whether each field was quoted (`""` is an empty text, an empty unquoted field nothing).
        package var quoted: [Bool]
    }

    /// Where one field's text is in the bytes: inside its quotes when it is quoted, where a
    /// doubled quote (`""`) stands for one when `doubledQuotes`.
    package struct Field {
        package var range: Range<Int>
        package var quoted: Bool
        package var doubledQuotes: Bool
    }

    /// Why the text is not CSV, and where: the line and column of the fault, and the record's start.
    package struct Failure: Error {
        package var message: String
        package var line: Int
        package var column: Int
        /// Where the record that holds the fault starts, in bytes, and its line.
        package var recordOffset = 0
        package var recordLine = 1
    }

    /// How reading a record stopped short of its end.
    private enum Stop: Error {
        case failure(Failure)
        /// The bytes ended inside the record and more may come.
        case needsMore
    }

    private let bytes: [UInt8]
    /// Where the next record (or blank line) starts.
    package private(set) var position = 0
    /// The 1-based line `position` is on.
    package private(set) var line = 1
    /// The byte offset of the current line's first byte, for columns.
    private var lineStart = 0
    /// Whether the bytes are the whole rest of the input: else a record that reaches their end
    /// waits for more.
    private let inputEnds: Bool

    package init(bytes: [UInt8]) {
        self.bytes = bytes
        inputEnds = true
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            position = 3
            lineStart = 3
        }
    }

    /// A reader of the record that starts at byte `offset`, on line `line` (to read one again,
    /// or the next part of a stream: `inputEnds` false when more bytes may follow `bytes`).
    package init(bytes: [UInt8], at offset: Int, line: Int, inputEnds: Bool = true) {
        self.bytes = bytes
        position = offset
        lineStart = offset
        self.line = line
        self.inputEnds = inputEnds
    }

    /// The next record (the header first), or `nil` at the end of the text (or, when the input
    /// does not end there, before a record whose end has not come).
    package mutating func next() throws(Failure) -> Record? {
        var fields: [Field] = []
        guard let line = try nextFields(&fields) else { return nil }
        return Record(
            fields: fields.map(text(of:)), line: line,
            starts: fields.map { $0.quoted ? $0.range.lowerBound - 1 : $0.range.lowerBound },
            quoted: fields.map(\.quoted))
    }

    /// The next record's fields as places in the bytes (their UTF-8 checked), without making
    /// their texts: what a reader that copies them elsewhere (the CSV format's JSON) takes.
    /// Returns the line the record starts on; `nil` as `next()` does.
    package mutating func nextFields(_ fields: inout [Field]) throws(Failure) -> Int? {
        fields.removeAll(keepingCapacity: true)
        while position < bytes.count {
            if bytes[position] == UInt8(ascii: "\n") || isCRLF(at: position) {
                skipLineEnd()
                continue
            }
            if !inputEnds, bytes[position] == UInt8(ascii: "\r"), position + 1 == bytes.count { return nil }
            let saved = (position, line, lineStart)
            do throws(Stop) {
                try record(into: &fields)
                return saved.1
            } catch {
                guard case .failure(var failure) = error else {
                    (position, line, lineStart) = saved
                    fields.removeAll(keepingCapacity: true)
                    return nil
                }
                failure.recordOffset = saved.0
                failure.recordLine = saved.1
                throw failure
            }
        }
        return nil
    }

    /// A field's text: its bytes, a doubled quote read as one.
    package func text(of field: Field) -> String {
        guard field.doubledQuotes else { return String(decoding: bytes[field.range], as: UTF8.self) }
        var text: [UInt8] = []
        text.reserveCapacity(field.range.count)
        var skip = false
        for byte in bytes[field.range] {
            if skip {
                skip = false
                continue
            }
            text.append(byte)
            skip = byte == UInt8(ascii: "\"")
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// After a `Failure`: moves past the end of the line the fault is on (the record's rest is
    /// not read); false when that end has not come yet.
    package mutating func skipLine() -> Bool {
        guard let end = bytes[position...].firstIndex(of: UInt8(ascii: "\n")) else {
            guard inputEnds else { return false }
            position = bytes.count
            return true
        }
        position = end + 1
        line += 1
        lineStart = position
        return true
    }

    /// The 1-based line and column (in Unicode scalars) field `field` of `record` starts at.
    package func place(ofField field: Int, in record: Record) -> (line: Int, column: Int) {
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

    /// Whether the field that ends at `position` ends its record there: a line end, or the end
    /// of the input (throws `needsMore` at the end of bytes that are not the input's end, and
    /// at a carriage return whose line feed may be next).
    private func endsRecord() throws(Stop) -> Bool {
        guard position < bytes.count else {
            if inputEnds { return true }
            throw .needsMore
        }
        if bytes[position] == UInt8(ascii: "\n") || isCRLF(at: position) { return true }
        if !inputEnds, bytes[position] == UInt8(ascii: "\r"), position + 1 == bytes.count { throw .needsMore }
        return false
    }

    private mutating func skipLineEnd() {
        position += bytes[position] == UInt8(ascii: "\r") ? 2 : 1
        line += 1
        lineStart = position
    }

    /// The column of `offset` on the current line, in Unicode scalars.
    private func column(of offset: Int) -> Int {
        Self.column(of: offset, from: lineStart, in: bytes)
    }

    /// The column of `offset` on the line that starts at `lineStart`, in Unicode scalars.
    private static func column(of offset: Int, from lineStart: Int, in bytes: [UInt8]) -> Int {
        bytes[lineStart..<offset].reduce(1) { count, byte in byte & 0xC0 == 0x80 ? count : count + 1 }
    }

    private mutating func record(into fields: inout [Field]) throws(Stop) {
        while true {
            fields.append(try field())
            if try endsRecord() {
                if position < bytes.count { skipLineEnd() }
                return
            }
            // Not a line end: the comma `field()` stopped at.
            position += 1
        }
    }

    /// One field, up to (not past) the comma or line end after it.
    private mutating func field() throws(Stop) -> Field {
        guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
            let start = position
            var high = false
            let count = bytes.count
            // The bytes in place (no bounds check a byte): the loop every unquoted cell runs.
            let stop = bytes.withUnsafeBufferPointer { buffer -> (end: Int, quote: Bool) in
                var at = start
                while at < count {
                    let byte = buffer[at]
                    if byte == UInt8(ascii: ",") || byte == 0x0A { break }
                    if byte == 0x0D, at + 1 < count, buffer[at + 1] == 0x0A { break }
                    if byte == UInt8(ascii: "\"") { return (at, true) }
                    high = high || byte >= 0x80
                    at += 1
                }
                return (at, false)
            }
            position = stop.end
            if stop.quote {
                throw .failure(
                    Failure(
                        message:
                            "a quote inside an unquoted field (quote the whole field and double the quote: \"a \"\"b\"\"\")",
                        line: line, column: column(of: position)))
            }
            // A field cut by the end of the bytes is read whole once the rest comes (a character
            // may be cut in two).
            if position == bytes.count, !inputEnds { throw .needsMore }
            if high { try checkUTF8(start..<position, line: line, column: column(of: start)) }
            return Field(range: start..<position, quoted: false, doubledQuotes: false)
        }
        return try quotedField()
    }

    /// A field in quotes, from its opening quote to past its closing one.
    private mutating func quotedField() throws(Stop) -> Field {
        // Where it opens, for a failure's message (its column counted only then).
        let (openLine, openLineStart, open) = (line, lineStart, position)
        position += 1
        let start = position
        var doubled = false
        var high = false
        while true {
            guard position < bytes.count else {
                guard inputEnds else { throw .needsMore }
                throw .failure(
                    Failure(
                        message: "a quoted field that never closes (a quote is missing)", line: openLine,
                        column: Self.column(of: open, from: openLineStart, in: bytes)))
            }
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                if position + 1 == bytes.count, !inputEnds { throw .needsMore }
                if position + 1 < bytes.count, bytes[position + 1] == UInt8(ascii: "\"") {
                    doubled = true
                    position += 2
                    continue
                }
                let end = position
                position += 1
                if position < bytes.count, bytes[position] != UInt8(ascii: ","), try !endsRecord() {
                    throw .failure(
                        Failure(
                            message: "text after a closing quote (a field is quoted whole)", line: line,
                            column: column(of: position)))
                }
                if high {
                    try checkUTF8(
                        start..<end, line: openLine, column: Self.column(of: open, from: openLineStart, in: bytes))
                }
                return Field(range: start..<end, quoted: true, doubledQuotes: doubled)
            }
            high = high || byte >= 0x80
            position += 1
            if byte == UInt8(ascii: "\n") {
                line += 1
                lineStart = position
            }
        }
    }

    /// A field that is not UTF-8 fails at its start (`line`, `column`).
    private func checkUTF8(_ range: Range<Int>, line: Int, column: @autoclosure () -> Int) throws(Stop) {
        let invalid = bytes.withUnsafeBufferPointer {
            UTF8Check.firstInvalid($0, from: range.lowerBound, to: range.upperBound) != nil
        }
        if invalid { throw .failure(Failure(message: "a field that is not UTF-8", line: line, column: column())) }
    }
}
