import MappingsJSON

/// CSV records (RFC 4180, a header first) as JSON objects keyed by the header's names, read a
/// part at a time with the one `CSVReader`.
///
/// Each row becomes `{"name":"value",…}` in the header's order: every value a string, which the
/// model's conversions read as the property's type (`"42"` into an `Int`); an empty field
/// without quotes is `null` (nothing: a default applies, an optional stays unset), a quoted empty
/// one (`""`) the empty string. A header name is a key as it is: `user.name` is one key, not a
/// nested object. A row whose field count is not the header's, or that breaks RFC 4180 (a quote
/// inside an unquoted field, text after a closing quote, bytes that are not UTF-8), is rejected,
/// naming its line; reading goes on at the next line. A header that cannot be read, or that
/// names a column twice or leaves one unnamed, ends the input (`FormatFailure`).
package struct CSVDecoder: RecordDecoder {
    /// The bytes not read yet: a record whose end has not come.
    private var buffer: [UInt8] = []
    /// Where `buffer[0]` is in the input, and the line it is on.
    private var bufferOffset = 0
    private var bufferLine = 1
    /// The header's names, each as a JSON key with its quotes and colon (`"id":`).
    private var keys: [[UInt8]]?
    /// Records found so far (rejected ones too).
    private var recordCount = 0
    /// Whether the start of the input was looked at for a byte order mark.
    private var checkedMark = false

    package init() {}

    package mutating func decode(
        _ bytes: UnsafeRawBufferPointer, into records: inout DecodedRecords
    ) throws(FormatFailure) {
        buffer.append(contentsOf: bytes)
        try read(into: &records, inputEnds: false)
    }

    package mutating func finish(into records: inout DecodedRecords) throws(FormatFailure) {
        try read(into: &records, inputEnds: true)
    }

    /// Reads the whole records of `buffer` (every one when the input ends), keeping the rest.
    private mutating func read(into records: inout DecodedRecords, inputEnds: Bool) throws(FormatFailure) {
        guard skipMark(inputEnds: inputEnds) else { return }
        var reader = CSVReader(bytes: buffer, at: 0, line: bufferLine, inputEnds: inputEnds)
        var consumed = (offset: 0, line: bufferLine)
        var fields: [CSVReader.Field] = []
        while true {
            let line: Int
            do throws(CSVReader.Failure) {
                guard let next = try reader.nextFields(&fields) else { break }
                line = next
            } catch {
                guard keys != nil else {
                    throw FormatFailure(
                        "the header is not CSV: \(error.message) (line \(error.line), column \(error.column))",
                        offset: bufferOffset + error.recordOffset)
                }
                guard reader.skipLine() else { break }
                records.skip(lines: error.recordLine - consumed.line)
                recordCount += 1
                let position = FormatPosition(
                    offset: bufferOffset + error.recordOffset, record: recordCount, line: error.recordLine)
                records.reject(
                    FormatReject(
                        "the row is not CSV: \(error.message) (column \(error.column) of line \(error.line))",
                        at: position, input: trimmed(buffer[error.recordOffset..<reader.position]),
                        lines: reader.line - error.recordLine))
                consumed = (reader.position, reader.line)
                continue
            }
            records.skip(lines: line - consumed.line)
            let start = fields[0].range.lowerBound - (fields[0].quoted ? 1 : 0)
            let row = Row(fields: fields, line: line, start: start, end: reader.position)
            try take(row, lines: max(1, reader.line - line), into: &records, reader: reader)
            consumed = (reader.position, reader.line)
        }
        buffer.removeFirst(consumed.offset)
        bufferOffset += consumed.offset
        bufferLine = consumed.line
        if !inputEnds, buffer.count > JSONLines.maximumLine {
            throw FormatFailure(
                "a record longer than \(JSONLines.maximumLine) bytes (a quote that never closes?)",
                offset: bufferOffset, record: recordCount + 1)
        }
    }

    /// A record as the reader found it: its fields' places, its line, where it starts and ends.
    private struct Row {
        var fields: [CSVReader.Field]
        var line: Int
        var start: Int
        var end: Int
    }

    /// The header (the first record), or a row: its object, or its reject.
    private mutating func take(
        _ row: Row, lines: Int, into records: inout DecodedRecords, reader: CSVReader
    ) throws(FormatFailure) {
        guard let keys else {
            keys = try Self.keys(of: row.fields.map(reader.text(of:)), at: bufferOffset + row.start)
            records.skip(lines: lines)
            return
        }
        recordCount += 1
        guard row.fields.count == keys.count else {
            let position = FormatPosition(offset: bufferOffset + row.start, record: recordCount, line: row.line)
            let count = row.fields.count
            records.reject(
                FormatReject(
                    "the row has \(count) field\(count == 1 ? "" : "s"), the header \(keys.count)", at: position,
                    input: trimmed(buffer[row.start..<row.end]), lines: lines))
            return
        }
        let buffer = self.buffer
        records.record(lines: lines) { text in
            text.append(UInt8(ascii: "{"))
            for (index, field) in row.fields.enumerated() {
                if index > 0 { text.append(UInt8(ascii: ",")) }
                text.append(contentsOf: keys[index])
                if field.range.isEmpty, !field.quoted {
                    JSONWriter.append("null", to: &text)
                } else {
                    Self.appendString(buffer, field, to: &text)
                }
            }
            text.append(UInt8(ascii: "}"))
        }
    }

    /// A field's text as a JSON string: its bytes (UTF-8, checked by the reader), escaped where
    /// JSON needs it, a doubled quote as one; runs that need nothing are copied whole.
    private static func appendString(_ bytes: [UInt8], _ field: CSVReader.Field, to text: inout [UInt8]) {
        text.append(UInt8(ascii: "\""))
        bytes.withUnsafeBufferPointer { buffer in
            var run = field.range.lowerBound
            var at = run
            var escape: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0, 0, 0)
            while at < field.range.upperBound {
                let byte = buffer[at]
                guard JSONWriter.needsEscape(byte) else {
                    at += 1
                    continue
                }
                text.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[run..<at]))
                let count = withUnsafeMutableBytes(of: &escape) { raw in
                    JSONWriter.writeEscape(of: byte, to: raw.baseAddress!.assumingMemoryBound(to: UInt8.self))
                }
                withUnsafeBytes(of: &escape) { raw in text.append(contentsOf: raw.prefix(count)) }
                // A doubled quote is one quote of the text.
                at += byte == UInt8(ascii: "\"") && field.doubledQuotes ? 2 : 1
                run = at
            }
            text.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[run..<at]))
        }
        text.append(UInt8(ascii: "\""))
    }

    /// The header's names as JSON keys; a name given twice, or none, ends the input.
    private static func keys(of header: [String], at offset: Int) throws(FormatFailure) -> [[UInt8]] {
        var seen: Set<String> = []
        var keys: [[UInt8]] = []
        for (column, name) in header.enumerated() {
            guard !name.isEmpty else {
                throw FormatFailure("the header leaves column \(column + 1) unnamed: name every column", offset: offset)
            }
            guard seen.insert(name).inserted else {
                throw FormatFailure(
                    "the header names the column \(JSONWriter.quotedForMessage(name)) twice: name every column once",
                    offset: offset)
            }
            var key: [UInt8] = []
            JSONWriter.writeString(name, into: &key)
            key.append(UInt8(ascii: ":"))
            keys.append(key)
        }
        return keys
    }

    /// A record's bytes without the line end after it.
    private func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var bytes = bytes
        if bytes.last == 0x0A { bytes.removeLast() }
        if bytes.last == 0x0D { bytes.removeLast() }
        return bytes
    }

    /// At the input's start: skips a byte order mark; false while fewer bytes than one came and
    /// they may be its start.
    private mutating func skipMark(inputEnds: Bool) -> Bool {
        guard !checkedMark else { return true }
        let mark: [UInt8] = [0xEF, 0xBB, 0xBF]
        if buffer.count < 3, !inputEnds, mark.starts(with: buffer) { return false }
        checkedMark = true
        if buffer.starts(with: mark) {
            buffer.removeFirst(3)
            bufferOffset = 3
        }
        return true
    }
}
