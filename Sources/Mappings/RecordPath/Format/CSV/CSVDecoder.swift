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
        while true {
            let record: CSVReader.Record
            do throws(CSVReader.Failure) {
                guard let next = try reader.next() else { break }
                record = next
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
            records.skip(lines: record.line - consumed.line)
            try take(record, lines: max(1, reader.line - record.line), into: &records, end: reader.position)
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

    /// The header (the first record), or a row: its object, or its reject.
    private mutating func take(
        _ record: CSVReader.Record, lines: Int, into records: inout DecodedRecords, end: Int
    ) throws(FormatFailure) {
        guard let keys else {
            keys = try Self.keys(of: record, at: bufferOffset + record.starts[0])
            records.skip(lines: lines)
            return
        }
        recordCount += 1
        guard record.fields.count == keys.count else {
            let position = FormatPosition(
                offset: bufferOffset + record.starts[0], record: recordCount, line: record.line)
            records.reject(
                FormatReject(
                    "the row has \(record.fields.count) field\(record.fields.count == 1 ? "" : "s"), the header \(keys.count)",
                    at: position, input: trimmed(buffer[record.starts[0]..<end]), lines: lines))
            return
        }
        records.record(lines: lines) { text in
            text.append(UInt8(ascii: "{"))
            for (index, field) in record.fields.enumerated() {
                if index > 0 { text.append(UInt8(ascii: ",")) }
                text.append(contentsOf: keys[index])
                if field.isEmpty, !record.quoted[index] {
                    JSONWriter.append("null", to: &text)
                } else {
                    JSONWriter.writeString(field, into: &text)
                }
            }
            text.append(UInt8(ascii: "}"))
        }
    }

    /// The header's names as JSON keys; a name given twice, or none, ends the input.
    private static func keys(of header: CSVReader.Record, at offset: Int) throws(FormatFailure) -> [[UInt8]] {
        var seen: Set<String> = []
        var keys: [[UInt8]] = []
        for (column, name) in header.fields.enumerated() {
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
