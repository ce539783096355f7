import Foundation
import MappingsEncoding
package import MappingsEngine
import MappingsJSON
import MappingsSpark

/// The cells of a row as `SQLRowEncoder` writes them for SQLite: per record, a 4-byte length,
/// then each column's cell in the table's order (a tag, then what the tag says), then the line
/// feed the record pipeline ends every record's output with.
package enum SQLCell: UInt8 {
    case null = 0
    /// Eight bytes, little-endian.
    case integer = 1
    /// Eight bytes, the IEEE 754 bits.
    case double = 2
    /// A 4-byte length, UTF-8.
    case text = 3
}

/// Turns a record's output JSON into a row of its table, on the lanes: for SQLite the cells
/// (`SQLCell`) the writer binds; for PostgreSQL the row's line of `COPY … FROM STDIN` (text
/// format), which the writer sends as it is. A value the column cannot hold as written — null
/// where the column is not, a date PostgreSQL's `timestamptz` does not hold, a character its
/// text cannot (U+0000) — fails the record here, so a batch never fails in the database for
/// what a record holds.
package struct SQLRowEncoder: RecordEncoding {
    package let table: SQLTable
    package let dialect: SQLDialect
    /// The columns' property names, as UTF-8 (a record's output writes its keys unescaped).
    private let names: [[UInt8]]

    package init(table: SQLTable, dialect: SQLDialect) {
        self.table = table
        self.dialect = dialect
        self.names = table.columns.map { Array($0.property.utf8) }
    }

    package var target: String { "the columns of the table \"\(table.name)\"" }

    package func encodeRecord(_ json: UnsafeBufferPointer<UInt8>, into out: inout [UInt8])
        throws(RecordEncodingFailure)
    {
        let start = out.count
        do throws(EncodingFailure) {
            try encode(json, into: &out)
        } catch {
            out.removeSubrange(start...)
            throw RecordEncodingFailure(message: error.message)
        }
    }

    private func encode(_ json: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) throws(EncodingFailure) {
        let count = table.columns.count
        // Where each column's value is in the output (its first byte; -1: not there).
        // Where each column's value starts and ends: 2 × count places.
        let found: Result<Void, EncodingFailure> = withUnsafeTemporaryAllocation(
            of: Int.self, capacity: 2 * count
        ) { places in
            places.initialize(repeating: -1)
            return Result { () throws(EncodingFailure) in
                try locate(json, into: places)
                let lengthAt = out.count
                if dialect == .sqlite { out.append(contentsOf: [0, 0, 0, 0]) }
                for column in 0..<count {
                    if dialect == .postgresql, column > 0 { out.append(0x09) }
                    do throws(EncodingFailure) {
                        try cell(column, json, at: places[2 * column], end: places[2 * column + 1], into: &out)
                    } catch {
                        throw error.within("." + table.columns[column].property)
                    }
                }
                // The pipeline ends each record's output with a line feed: COPY's end of row, and
                // a byte after each SQLite row.
                if dialect == .sqlite {
                    let length = UInt32(out.count - lengthAt - 4).littleEndian
                    withUnsafeBytes(of: length) { out.replaceSubrange(lengthAt..<(lengthAt + 4), with: $0) }
                }
            }
        }
        try found.get()
    }

    /// Finds each column's value among the record's members (in the table's order when the
    /// output writes them so, which it does: one comparison a member).
    private func locate(_ json: UnsafeBufferPointer<UInt8>, into places: UnsafeMutableBufferPointer<Int>)
        throws(EncodingFailure)
    {
        var reader = OutputReader(bytes: json)
        reader.skipSpace()
        try reader.expect(UInt8(ascii: "{"))
        reader.skipSpace()
        if reader.peek == UInt8(ascii: "}") { return }
        var expected = 0
        while true {
            reader.skipSpace()
            var column: Int?
            let matched: Bool =
                expected < names.count
                ? try names[expected].withUnsafeBufferPointer { name throws(EncodingFailure) in
                    try reader.takeKey(name)
                } : false
            if matched {
                column = expected
            } else {
                var key: [UInt8] = []
                try reader.appendString(into: &key)
                column = names.firstIndex(of: key)
            }
            reader.skipSpace()
            try reader.expect(UInt8(ascii: ":"))
            reader.skipSpace()
            let valueStart = reader.position
            try reader.skipValue()
            if let column {
                places[2 * column] = valueStart
                places[2 * column + 1] = reader.position
                expected = column + 1
            }
            reader.skipSpace()
            if reader.peek == UInt8(ascii: ",") {
                reader.advance()
                continue
            }
            try reader.expect(UInt8(ascii: "}"))
            return
        }
    }

    /// Writes column `column`'s cell from the value at `place..<end` (-1: the record has none).
    private func cell(
        _ column: Int, _ json: UnsafeBufferPointer<UInt8>, at place: Int, end: Int, into out: inout [UInt8]
    ) throws(EncodingFailure) {
        let definition = table.columns[column]
        var reader = OutputReader(bytes: json)
        reader.position = max(place, 0)
        if place < 0 || reader.takeNull() {
            guard definition.nullable else {
                throw reader.failure(
                    place < 0
                        ? "missing, and the column \"\(definition.name)\" is NOT NULL"
                        : "null in the column \"\(definition.name)\", which is NOT NULL")
            }
            if dialect == .sqlite { out.append(SQLCell.null.rawValue) } else { out += [0x5C, 0x4E] }
            return
        }
        let first = reader.peek
        let isString = first == UInt8(ascii: "\"")
        let isNumber = first == UInt8(ascii: "-") || (first &- 48) < 10
        switch definition.kind {
        case .integer:
            guard isNumber, let value = try? reader.integer() else {
                throw mismatch(&reader, "an integer of 64 bits")
            }
            if dialect == .sqlite {
                out.append(SQLCell.integer.rawValue)
                withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) }
            } else {
                out += String(value).utf8
            }
        case .double:
            guard isNumber else { throw mismatch(&reader, "a number") }
            if dialect == .sqlite {
                let at = reader.position
                let value = try reader.double()
                // A REAL column stores a whole double as an integer: -0.0 would read back as 0.0.
                guard value != 0 || value.sign == .plus else {
                    reader.position = at
                    throw mismatch(&reader, "a number SQLite's REAL keeps (it reads -0.0 back as 0.0)")
                }
                out.append(SQLCell.double.rawValue)
                withUnsafeBytes(of: value.bitPattern.littleEndian) { out.append(contentsOf: $0) }
            } else {
                // The output's shortest exact text, which float8 reads back to the same double.
                let range = try reader.numberText()
                out += json[range]
            }
        case .boolean:
            guard first == UInt8(ascii: "t") || first == UInt8(ascii: "f") else {
                throw mismatch(&reader, "a boolean")
            }
            let value = try reader.boolean()
            if dialect == .sqlite {
                out.append(SQLCell.integer.rawValue)
                withUnsafeBytes(of: Int64(value ? 1 : 0).littleEndian) { out.append(contentsOf: $0) }
            } else {
                out.append(value ? UInt8(ascii: "t") : UInt8(ascii: "f"))
            }
        case .date:
            guard isString else { throw mismatch(&reader, "an ISO 8601 instant") }
            if dialect == .postgresql {
                let at = reader.position
                let micros = try reader.withString { SparkRowEncoder.microseconds(iso8601: $0) }
                guard let micros, micros >= Self.earliest, micros < Self.latest else {
                    reader.position = at
                    throw mismatch(&reader, "an instant of the years 1 to 9999, which timestamptz holds")
                }
                reader.position = at
            }
            try text(&reader, into: &out)
        case .decimal:
            guard isNumber else { throw mismatch(&reader, "a decimal") }
            let range = try reader.numberText()
            if dialect == .sqlite {
                Self.textCell(UnsafeBufferPointer(rebasing: json[range]), into: &out)
            } else {
                // numeric has no negative zero: -0.0 would read back as 0.0.
                if json[range.lowerBound] == UInt8(ascii: "-"), Self.isZero(json[range]) {
                    reader.position = range.lowerBound
                    throw mismatch(&reader, "a decimal numeric keeps (it reads -0.0 back as 0.0)")
                }
                out += json[range]
            }
        case .string:
            guard isString else { return try raw(&reader, end: end, into: &out) }
            try text(&reader, into: &out)
        case .json:
            try raw(&reader, end: end, into: &out)
        }
    }

    /// Whether a number's text is a zero: no digit but 0 before its exponent.
    private static func isZero(_ text: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        for byte in text {
            if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") { break }
            if byte >= UInt8(ascii: "1"), byte <= UInt8(ascii: "9") { return false }
        }
        return true
    }

    /// 0001-01-01T00:00:00Z and 10000-01-01T00:00:00Z, in microseconds since 1970.
    static let earliest: Int64 = -62_135_596_800_000_000
    static let latest: Int64 = 253_402_300_800_000_000

    private func mismatch(_ reader: inout OutputReader, _ expected: String) -> EncodingFailure {
        let from = reader.position
        try? reader.skipValue()
        let text = String(
            decoding: UnsafeBufferPointer(rebasing: reader.bytes[from..<min(max(reader.position, from), from + 60)]),
            as: UTF8.self)
        reader.position = from
        return reader.failure("expected \(expected), found \(text)")
    }

    /// A string's value (escapes decoded).
    private func text(_ reader: inout OutputReader, into out: inout [UInt8]) throws(EncodingFailure) {
        let at = reader.position
        if dialect == .sqlite {
            // The tag, the length once the string is decoded into place behind it.
            out.append(SQLCell.text.rawValue)
            let lengthAt = out.count
            out += [0, 0, 0, 0]
            try reader.appendString(into: &out)
            let length = UInt32(out.count - lengthAt - 4).littleEndian
            withUnsafeBytes(of: length) { out.replaceSubrange(lengthAt..<(lengthAt + 4), with: $0) }
            return
        }
        // Decoded into place; escaped for COPY only when it holds a byte COPY escapes (rarely).
        let start = out.count
        try reader.appendString(into: &out)
        var needsEscapes = false
        for byte in out[start...] {
            if byte == 0 {
                out.removeSubrange(start...)
                reader.position = at
                throw reader.failure("PostgreSQL text cannot hold the character U+0000")
            }
            if byte == 0x5C || byte == 0x09 || byte == 0x0A || byte == 0x0D { needsEscapes = true }
        }
        guard needsEscapes else { return }
        let value = Array(out[start...])
        out.removeSubrange(start...)
        value.withUnsafeBufferPointer { Self.copyText($0, into: &out) }
    }

    /// A value as its JSON text (a nested model, a collection, a `JSON` value).
    private func raw(_ reader: inout OutputReader, end: Int, into out: inout [UInt8]) throws(EncodingFailure) {
        let from = reader.position
        let span = UnsafeBufferPointer(rebasing: reader.bytes[from..<end])
        if dialect == .sqlite {
            Self.textCell(span, into: &out)
        } else {
            // jsonb refuses the escape of U+0000 in a string, as text refuses the character.
            if span.count >= 6, Self.contains(span, Array(#"\u0000"#.utf8)) {
                reader.position = from
                throw reader.failure("PostgreSQL jsonb cannot hold the character U+0000")
            }
            Self.copyText(span, into: &out)
        }
    }

    private static func contains(_ bytes: UnsafeBufferPointer<UInt8>, _ needle: [UInt8]) -> Bool {
        guard bytes.count >= needle.count else { return false }
        for start in 0...(bytes.count - needle.count)
        where bytes[start] == needle[0] && bytes[start..<(start + needle.count)].elementsEqual(needle) {
            // An escaped backslash before it (`\\u0000`) is text, not the escape.
            var backslashes = 0
            var index = start - 1
            while index >= 0, bytes[index] == UInt8(ascii: "\\") {
                backslashes += 1
                index -= 1
            }
            if backslashes % 2 == 0 { return true }
        }
        return false
    }

    static func textCell(_ bytes: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        out.append(SQLCell.text.rawValue)
        withUnsafeBytes(of: UInt32(bytes.count).littleEndian) { out.append(contentsOf: $0) }
        out.append(contentsOf: bytes)
    }

    /// Text in COPY's text format: a backslash, a tab, a line feed and a carriage return escaped.
    static func copyText(_ bytes: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        var run = 0
        for index in 0..<bytes.count {
            let escaped: UInt8
            switch bytes[index] {
            case 0x5C: escaped = 0x5C
            case 0x09: escaped = UInt8(ascii: "t")
            case 0x0A: escaped = UInt8(ascii: "n")
            case 0x0D: escaped = UInt8(ascii: "r")
            default: continue
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<index]))
            out.append(0x5C)
            out.append(escaped)
            run = index + 1
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<bytes.count]))
    }
}
