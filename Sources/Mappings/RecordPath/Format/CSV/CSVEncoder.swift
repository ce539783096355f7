import MappingsJSON

/// Mapped records as CSV rows (RFC 4180), under a header of the context's output properties in
/// their order (`OutputShape`: a model's properties, else the keys the context's entries set).
///
/// A cell is a string's text, a number's exact digits, `true`/`false`, or — for an object or an
/// array — its JSON text in one cell; `null` (or a key the record left out, `--omit-nulls`) is an
/// empty cell, the empty string a quoted one (`""`), so that the CSV decoder reads each back as
/// it was. A cell is quoted when it holds a comma, a quote (doubled), a carriage return or a line
/// feed, or is empty text; rows end with CR LF, as RFC 4180 writes them. A record with a key the
/// header lacks cannot be a row: it is a `FormatFailure`, never a column dropped in silence.
package struct CSVEncoder: RecordEncoder {
    /// The header's names, in order.
    package let columns: [String]
    private let columnIndex: [String: Int]
    /// Records encoded so far.
    private var count = 0
    /// A row's cells being gathered (one per column; `nil`: empty).
    private var cells: [JSONValue?]

    package init(columns: [String]) {
        self.columns = columns
        columnIndex = Dictionary(columns.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        cells = Array(repeating: nil, count: columns.count)
    }

    package mutating func start(into output: inout [UInt8]) throws(FormatFailure) {
        for (index, name) in columns.enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            Self.appendCell(Array(name.utf8), emptyText: true, to: &output)
        }
        output.append(contentsOf: [0x0D, 0x0A])
    }

    package mutating func encode(_ record: UnsafeRawBufferPointer, into output: inout [UInt8]) throws(FormatFailure) {
        count += 1
        let value: JSONValue
        do {
            value = try JSONParser.parse(record.assumingMemoryBound(to: UInt8.self), demand: .everything)
        } catch {
            throw FormatFailure(
                "record \(count) of the output is not JSON: \(error.message)", offset: output.count, record: count)
        }
        guard case .object(let object) = value else {
            throw FormatFailure(
                "record \(count) of the output is a JSON \(value.typeName), not an object: a CSV row is an object's members",
                offset: output.count, record: count)
        }
        for index in cells.indices { cells[index] = nil }
        for (key, member) in object.members {
            guard let column = columnIndex[key] else {
                throw FormatFailure(
                    "record \(count) of the output has the key \(JSONWriter.quotedForMessage(key)), which the header (the context's output properties) lacks",
                    offset: output.count, record: count)
            }
            cells[column] = member
        }
        for (index, cell) in cells.enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            Self.append(cell ?? .null, to: &output)
        }
        output.append(contentsOf: [0x0D, 0x0A])
    }

    package mutating func finish(into output: inout [UInt8]) throws(FormatFailure) {}

    /// A value's cell: empty for `null`, a string's text, any other value's JSON text.
    private static func append(_ value: JSONValue, to output: inout [UInt8]) {
        switch value {
        case .null: return
        case .string(let text): appendCell(Array(text.utf8), emptyText: true, to: &output)
        default:
            var text: [UInt8] = []
            JSONWriter.write(value, into: &text)
            appendCell(text, emptyText: false, to: &output)
        }
    }

    /// A cell's bytes, quoted (inner quotes doubled) when they hold a comma, a quote, a carriage
    /// return or a line feed, or when they are an empty text (`""`, which an empty cell is not).
    private static func appendCell(_ bytes: [UInt8], emptyText: Bool, to output: inout [UInt8]) {
        let needsQuotes =
            (bytes.isEmpty && emptyText)
            || bytes.contains { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 0x0A || $0 == 0x0D }
        guard needsQuotes else { return output.append(contentsOf: bytes) }
        output.append(UInt8(ascii: "\""))
        for byte in bytes {
            output.append(byte)
            if byte == UInt8(ascii: "\"") { output.append(byte) }
        }
        output.append(UInt8(ascii: "\""))
    }
}
