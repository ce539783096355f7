import MappingsJSON
import MappingsModel

/// The formats a `TableReader` reads into a table's store: CSV a record at a time, JSON lines
/// and a database's rows (or a host's) a row at a time, each cell of a declared column converted
/// to its type as it goes in.
extension TableReader {
    /// A CSV file: the header's names, then one row per record, every cell a string (`null`
    /// when empty) unless its column is declared; undeclared columns' types inferred at the end.
    mutating func readCSV(_ bytes: [UInt8]) -> (columns: [String], store: TableStore)? {
        text = bytes
        var reader = CSVReader(bytes: bytes)
        do {
            guard let header = try reader.next() else {
                diagnostics.append(
                    Diagnostic(
                        message:
                            "the table file \(PathText.quoted(declaration.file)) is empty: a CSV table starts with a header of column names",
                        location: declaration.fileLocation))
                return nil
            }
            checkHeader(header, reader)
            let declared = header.fields.map { name in declaration.columns.first { $0.name == name }?.type }
            let lines = bytes.reduce(0) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
            var store = TableStore(columnCount: header.fields.count, rows: lines, bytes: bytes.count)
            recordStarts.reserveCapacity(lines)
            while let record = try reader.next() {
                guard record.fields.count == header.fields.count else {
                    let place = reader.place(ofField: min(record.starts.count, header.fields.count) - 1, in: record)
                    diagnostics.append(
                        Diagnostic(
                            message:
                                "line \(record.line) of the table \(declaration.name) has \(record.fields.count) field\(record.fields.count == 1 ? "" : "s"), its header \(header.fields.count)",
                            location: SourceLocation(file: declaration.path, line: place.line, column: place.column),
                            help: "every row has one field per column (quote a field that holds a comma)"))
                    continue
                }
                recordStarts.append(UInt32(truncatingIfNeeded: record.starts[0]))
                for (column, field) in record.fields.enumerated() {
                    var cell: JSONValue = field.isEmpty ? .null : .string(field)
                    if let type = declared[column], cell != .null {
                        let (path, place) = (declaration.path, reader.place(ofField: column, in: record))
                        cell = converted(cell, to: type, column: header.fields[column], line: record.line) {
                            SourceLocation(file: path, line: place.line, column: place.column)
                        }
                    }
                    guard store.append(cell) else { return tooLarge() }
                }
                store.noteLine(record.line)
            }
            guard diagnostics.isEmpty else { return nil }
            inferTypes(of: &store, declared: declared)
            return (header.fields, store)
        } catch {
            diagnostics.append(
                Diagnostic(
                    message: "the table \(declaration.name) is not CSV: \(error.message)",
                    location: SourceLocation(file: declaration.path, line: error.line, column: error.column)))
            return nil
        }
    }

    /// Reports empty and repeated column names of a CSV header.
    private mutating func checkHeader(_ header: CSVReader.Record, _ reader: CSVReader) {
        var seen: Set<String> = []
        for (offset, name) in header.fields.enumerated() {
            let place = reader.place(ofField: offset, in: header)
            let at = SourceLocation(file: declaration.path, line: place.line, column: place.column)
            if name.isEmpty {
                diagnostics.append(
                    Diagnostic(
                        message:
                            "the header of the table \(declaration.name) has an empty column name (column \(offset + 1))",
                        location: at, help: "name every column"))
            } else if !seen.insert(name).inserted {
                diagnostics.append(
                    Diagnostic(
                        message:
                            "the header of the table \(declaration.name) names the column \(PathText.quoted(name)) twice",
                        location: at, help: "name every column once"))
            }
        }
    }

    /// Infers the types of a CSV file's undeclared columns: numbers when every cell that is not
    /// empty is a JSON number, booleans when every one is `true` or `false`; others stay strings.
    private func inferTypes(of store: inout TableStore, declared: [TypeReference?]) {
        for column in declared.indices where declared[column] == nil {
            var numbers = true
            var booleans = true
            var any = false
            for row in 0..<store.rowCount where store.kind(row: row, column: column) != .empty {
                any = true
                store.withBytes(row: row, column: column) { bytes in
                    if numbers, JSONNumber(String(decoding: bytes, as: UTF8.self)) == nil { numbers = false }
                    if booleans, !Self.isBoolean(bytes) { booleans = false }
                }
                if !numbers && !booleans { break }
            }
            guard any, numbers || booleans else { continue }
            store.retag(column: column) { bytes in
                numbers ? .number : (bytes.count == 4 ? .yes : .no)
            }
        }
    }

    private static func isBoolean(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes.elementsEqual("true".utf8) || bytes.elementsEqual("false".utf8)
    }

    /// A JSON lines file: one object per line; the columns are the keys, in the order first met.
    mutating func readLines(_ bytes: [UInt8]) -> (columns: [String], store: TableStore)? {
        var objects: [(JSONObject, Int)] = []
        var line = 1
        var start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while start < bytes.count {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
            defer {
                start = end + 1
                line += 1
            }
            let text = Array(bytes[start..<end])
            if text.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
            let value: JSONValue
            do {
                value = try JSONParser.parse(text)
            } catch {
                diagnostics.append(
                    Diagnostic(
                        message: "line \(line) of the table \(declaration.name) is not JSON: \(error.message)",
                        location: SourceLocation(file: declaration.path, line: line, column: error.column)))
                continue
            }
            guard case .object(let object) = value else {
                diagnostics.append(
                    Diagnostic(
                        message: "line \(line) of the table \(declaration.name) holds \(value.typeName), not an object",
                        location: SourceLocation(file: declaration.path, line: line, column: 1),
                        help: "a JSON lines table holds one object (a row) per line"))
                continue
            }
            objects.append((object, line))
        }
        guard diagnostics.isEmpty else { return nil }
        return rows(of: objects)
    }

    /// The store of rows given as objects, each with its line: the columns are the keys, in the
    /// order first met; a key written twice in a row is an error.
    mutating func rows(of objects: [(JSONObject, Int)]) -> (columns: [String], store: TableStore)? {
        var columns: [String] = []
        var known: Set<String> = []
        for (object, line) in objects {
            if let repeated = object.duplicateKeys.first {
                diagnostics.append(
                    Diagnostic(
                        message:
                            "\(lineWord) \(line) of the table \(declaration.name) writes the key \(PathText.quoted(repeated)) twice",
                        location: declaration.isInMemory
                            ? declaration.fileLocation : SourceLocation(file: declaration.path, line: line, column: 1),
                        help: "a row has one value a column: keep one of them"))
                continue
            }
            for member in object.members where known.insert(member.key).inserted { columns.append(member.key) }
        }
        guard diagnostics.isEmpty else { return nil }
        let rows = objects.map { object, _ in columns.map { object[$0] ?? .null } }
        guard let store = store(columns: columns, rows: rows, lines: objects.map(\.1)) else { return nil }
        return (columns, store)
    }

    /// The store of rows of cells, each with its line, declared columns converted.
    mutating func store(columns: [String], rows: [[JSONValue]], lines: [Int]) -> TableStore? {
        let declared = columns.map { name in declaration.columns.first { $0.name == name }?.type }
        var store = TableStore(columnCount: columns.count, rows: rows.count)
        let (path, whole) = (declaration.path, declaration.format == .sqlite || declaration.isInMemory)
        let fileLocation = declaration.fileLocation
        for (row, cells) in rows.enumerated() {
            for (column, cell) in cells.enumerated() {
                var value = cell
                if let type = declared[column], cell != .null {
                    value = converted(cell, to: type, column: columns[column], line: lines[row]) {
                        whole ? fileLocation : SourceLocation(file: path, line: lines[row], column: 1)
                    }
                }
                guard store.append(value) else { return tooLarge() }
            }
            store.noteLine(lines[row])
        }
        return diagnostics.isEmpty ? store : nil
    }

    /// A declared column's cell converted to its type; the cell as it was after reporting a failure.
    private mutating func converted(
        _ cell: JSONValue, to type: TypeReference, column: String, line: Int, at place: () -> SourceLocation
    ) -> JSONValue {
        var failures: [ConversionFailure] = []
        let value = Converter(models: [:]).convert(cell, to: type, dateFormat: nil as DateFormats?, failures: &failures)
        if let failure = failures.first {
            diagnostics.append(
                Diagnostic(
                    message:
                        "the column \(PathText.quoted(column)) of the table \(declaration.name), \(lineWord) \(line): \(failure.message)",
                    location: place(), help: "fix the cell, leave it empty, or declare the column with another type"))
            return cell
        }
        return (try? JSONParser.parse(JSONWriter.string(value))) ?? cell
    }

    /// Reports a table whose cells pass what one table holds; `nil`.
    private mutating func tooLarge<T>() -> T? {
        diagnostics.append(
            Diagnostic(
                message:
                    "the table \(declaration.name) holds more than \(TableStore.maximumBytes >> 20) MiB of cells, the most a table holds",
                location: declaration.fileLocation, help: "split it into tables of fewer rows or columns"))
        return nil
    }
}
