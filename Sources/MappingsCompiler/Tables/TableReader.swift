import MappingsJSON
import MappingsModel

/// Reads a declared table's file into a `LookupTable`: the header (CSV) or the keys (JSON
/// lines), the cells converted to their declared types or inferred ones, and the key index.
///
/// Every problem is a diagnostic that points into the table's file (line and column) or at the
/// declaration: a missing key column, a key written twice (both lines), a ragged row, a cell
/// that does not convert. A table with a problem is not built.
struct TableReader {
    let declaration: TableDeclaration
    private(set) var diagnostics: [Diagnostic] = []

    /// Where a cell starts in the table's file (1-based line and column).
    typealias Place = (line: Int, column: Int)

    init(declaration: TableDeclaration) {
        self.declaration = declaration
    }

    /// The table of a SQLite database file, or `nil` when it cannot be read (reported).
    mutating func readDatabase() -> LookupTable? {
        switch SQLiteTableReader.read(path: declaration.path, table: declaration.table ?? "") {
        case .success(let (columns, rows)):
            let numbers = Array(1...max(1, rows.count)).prefix(rows.count)
            return build((columns, rows, Array(numbers), rows.map { _ in [] }))
        case .failure(let failure):
            diagnostics.append(
                Diagnostic(
                    message:
                        "cannot read the table \(PathText.quoted(declaration.table ?? "")) of the database \(PathText.quoted(declaration.path)) (the table \(declaration.name)): \(failure.message)",
                    location: declaration.fileLocation,
                    help: Suggestion.help(for: declaration.table ?? "", among: failure.tables)
                        ?? (failure.tables.isEmpty ? nil : "its tables: " + failure.tables.joined(separator: ", "))))
            return nil
        }
    }

    /// The table, or `nil` when its file has a problem (reported).
    mutating func read(_ bytes: [UInt8]) -> LookupTable? {
        let parsed: (columns: [String], rows: [[JSONValue]], lines: [Int], places: [[Place]])?
        switch declaration.format {
        case .csv: parsed = readCSV(bytes)
        case .jsonl: parsed = readLines(bytes)
        case .sqlite: return readDatabase()
        }
        guard let parsed else { return nil }
        return build(parsed)
    }

    /// What a row's number is in messages: a line of a text file, a row of a database's table.
    private var lineWord: String { declaration.format == .sqlite ? "row" : "line" }

    /// The table from its columns and rows: the key's columns found, the cells converted, the
    /// keys indexed; `nil` after reporting a problem.
    private mutating func build(
        _ parsed: (columns: [String], rows: [[JSONValue]], lines: [Int], places: [[Place]])
    ) -> LookupTable? {
        var parsed = parsed
        var keyColumns: [Int] = []
        for key in declaration.key {
            guard let column = parsed.columns.firstIndex(of: key.name) else {
                diagnostics.append(
                    Diagnostic(
                        message: "the table \(declaration.name) has no key column \(PathText.quoted(key.name))",
                        location: key.location,
                        notes: [
                            Diagnostic.Note(
                                message: "its columns: "
                                    + parsed.columns.map { PathText.quoted($0) }.joined(separator: ", "))
                        ],
                        help: Suggestion.help(for: key.name, among: parsed.columns)))
                return nil
            }
            keyColumns.append(column)
        }
        for declared in declaration.columns where !parsed.columns.contains(declared.name) {
            diagnostics.append(
                Diagnostic(
                    message: "the table \(declaration.name) has no column \(PathText.quoted(declared.name))",
                    location: declared.location, help: Suggestion.help(for: declared.name, among: parsed.columns)))
        }
        convertCells(&parsed)
        guard diagnostics.isEmpty else { return nil }
        var index: [String: Int] = [:]
        index.reserveCapacity(parsed.rows.count)
        for (row, cells) in parsed.rows.enumerated() {
            var parts: [String] = []
            for column in keyColumns {
                guard let text = LookupTable.keyText(of: cells[column]) else {
                    diagnostics.append(
                        Diagnostic(
                            message:
                                "the row of \(declaration.name) on \(lineWord) \(parsed.lines[row]) has no key (\(PathText.quoted(parsed.columns[column])) is \(cells[column] == .null ? "empty" : cells[column].typeName))",
                            location: place(row: row, column: column, in: parsed),
                            help: "give every row a key, or remove the row"))
                    continue
                }
                parts.append(text)
            }
            guard parts.count == keyColumns.count else { continue }
            let key = keyColumns.count == 1 ? parts[0] : LookupTable.compositeKey(parts)
            if let first = index[key] {
                diagnostics.append(
                    Diagnostic(
                        message:
                            "the key \(PathText.quoted(parts.joined(separator: ", "))) is written twice in the table \(declaration.name): \(lineWord)s \(parsed.lines[first]) and \(parsed.lines[row])",
                        location: place(row: row, column: keyColumns[0], in: parsed),
                        notes: [
                            Diagnostic.Note(
                                message: "first written here",
                                location: place(row: first, column: keyColumns[0], in: parsed))
                        ],
                        help:
                            "a key finds one row: remove one of them, or make the key composite (\"key\": [\"a\", \"b\"])"
                    ))
                continue
            }
            index[key] = row
        }
        guard diagnostics.isEmpty else { return nil }
        return LookupTable(
            name: declaration.name, file: declaration.path, columns: parsed.columns, keyColumns: keyColumns,
            rows: parsed.rows, lines: parsed.lines, index: index)
    }

    private func place(
        row: Int, column: Int, in parsed: (columns: [String], rows: [[JSONValue]], lines: [Int], places: [[Place]])
    ) -> SourceLocation {
        guard declaration.format != .sqlite else { return declaration.fileLocation }
        let places = parsed.places[row]
        return places.count > column
            ? SourceLocation(file: declaration.path, line: places[column].line, column: places[column].column)
            : SourceLocation(file: declaration.path, line: parsed.lines[row], column: 1)
    }

    /// A CSV file: the header's names, then one row per record, every cell a string (`null` when empty).
    private mutating func readCSV(_ bytes: [UInt8]) -> (
        columns: [String], rows: [[JSONValue]], lines: [Int], places: [[Place]]
    )? {
        var reader = CSVReader(bytes: bytes)
        let records: [CSVReader.Record]
        do {
            records = try reader.records()
        } catch {
            diagnostics.append(
                Diagnostic(
                    message: "the table \(declaration.name) is not CSV: \(error.message)",
                    location: SourceLocation(file: declaration.path, line: error.line, column: error.column)))
            return nil
        }
        guard let header = records.first else {
            diagnostics.append(
                Diagnostic(
                    message:
                        "the table file \(PathText.quoted(declaration.file)) is empty: a CSV table starts with a header of column names",
                    location: declaration.fileLocation))
            return nil
        }
        var seen: [String: Int] = [:]
        for (offset, name) in header.fields.enumerated() {
            let at = SourceLocation(file: declaration.path, line: header.line, column: header.columns[offset])
            if name.isEmpty {
                diagnostics.append(
                    Diagnostic(
                        message:
                            "the header of the table \(declaration.name) has an empty column name (column \(offset + 1))",
                        location: at, help: "name every column"))
            } else if seen[name] != nil {
                diagnostics.append(
                    Diagnostic(
                        message:
                            "the header of the table \(declaration.name) names the column \(PathText.quoted(name)) twice",
                        location: at, help: "name every column once"))
            }
            seen[name] = offset
        }
        var rows: [[JSONValue]] = []
        var lines: [Int] = []
        var places: [[Place]] = []
        rows.reserveCapacity(records.count - 1)
        for record in records.dropFirst() {
            guard record.fields.count == header.fields.count else {
                diagnostics.append(
                    Diagnostic(
                        message:
                            "line \(record.line) of the table \(declaration.name) has \(record.fields.count) field\(record.fields.count == 1 ? "" : "s"), its header \(header.fields.count)",
                        location: SourceLocation(
                            file: declaration.path, line: record.line,
                            column: record.columns[min(record.columns.count, header.fields.count) - 1]),
                        help: "every row has one field per column (quote a field that holds a comma)"))
                continue
            }
            rows.append(record.fields.map { $0.isEmpty ? .null : .string($0) })
            lines.append(record.line)
            places.append(record.columns.map { Place(line: record.line, column: $0) })
        }
        guard diagnostics.isEmpty else { return nil }
        return (header.fields, rows, lines, places)
    }

    /// A JSON lines file: one object per line; the columns are the keys, in the order first met.
    private mutating func readLines(_ bytes: [UInt8]) -> (
        columns: [String], rows: [[JSONValue]], lines: [Int], places: [[Place]]
    )? {
        var objects: [(JSONObject, Int)] = []
        var columns: [String] = []
        var known: Set<String> = []
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
            if let repeated = object.duplicateKeys.first {
                diagnostics.append(
                    Diagnostic(
                        message:
                            "line \(line) of the table \(declaration.name) writes the key \(PathText.quoted(repeated)) twice",
                        location: SourceLocation(file: declaration.path, line: line, column: 1),
                        help: "a row has one value a column: keep one of them"))
                continue
            }
            for member in object.members where known.insert(member.key).inserted { columns.append(member.key) }
            objects.append((object, line))
        }
        guard diagnostics.isEmpty else { return nil }
        let rows = objects.map { object, _ in columns.map { object[$0] ?? .null } }
        return (columns, rows, objects.map(\.1), objects.map { [Place(line: $0.1, column: 1)] })
    }

    /// Converts the declared columns' cells to their types, and infers the others' in a CSV file:
    /// numbers when every cell is a JSON number, booleans when every one is `true` or `false`.
    private mutating func convertCells(
        _ parsed: inout (columns: [String], rows: [[JSONValue]], lines: [Int], places: [[Place]])
    ) {
        let converter = Converter(models: [:])
        for (column, name) in parsed.columns.enumerated() {
            if let declared = declaration.columns.first(where: { $0.name == name }) {
                for row in parsed.rows.indices where parsed.rows[row][column] != .null {
                    let cell = parsed.rows[row][column]
                    var failures: [ConversionFailure] = []
                    let value = converter.convert(
                        cell, to: declared.type, dateFormat: nil as DateFormats?, failures: &failures)
                    if let failure = failures.first {
                        diagnostics.append(
                            Diagnostic(
                                message:
                                    "the column \(PathText.quoted(name)) of the table \(declaration.name), \(lineWord) \(parsed.lines[row]): \(failure.message)",
                                location: place(row: row, column: column, in: parsed),
                                help: "fix the cell, leave it empty, or declare the column with another type"))
                        continue
                    }
                    parsed.rows[row][column] = (try? JSONParser.parse(JSONWriter.string(value))) ?? cell
                }
            } else if declaration.format == .csv {
                let cells = parsed.rows.lazy.map { $0[column] }.filter { $0 != .null }
                guard !cells.isEmpty else { continue }
                if cells.allSatisfy({ if case .string(let text) = $0 { JSONNumber(text) != nil } else { false } }) {
                    for row in parsed.rows.indices {
                        if case .string(let text) = parsed.rows[row][column] {
                            parsed.rows[row][column] = JSONValue.number(literal: text)
                        }
                    }
                } else if cells.allSatisfy({ $0 == .string("true") || $0 == .string("false") }) {
                    for row in parsed.rows.indices where parsed.rows[row][column] != .null {
                        parsed.rows[row][column] = .bool(parsed.rows[row][column] == .string("true"))
                    }
                }
            }
        }
    }
}
