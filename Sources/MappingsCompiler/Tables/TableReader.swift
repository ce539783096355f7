import MappingsJSON
import MappingsModel

/// Reads a declared table's file into a `LookupTable`: the header (CSV) or the keys (JSON
/// lines), the cells converted to their declared types or inferred ones, and the key index.
///
/// Every problem is a diagnostic that points into the table's file (line and column) or at the
/// declaration: a missing key column, a key written twice (both lines), a ragged row, a cell
/// that does not convert. A table with a problem is not built. A CSV file's cells go straight
/// into the table's store (`TableStore`), a record at a time; the records' offsets are kept
/// while it loads, to point a later diagnostic at a cell.
struct TableReader {
    let declaration: TableDeclaration
    var diagnostics: [Diagnostic] = []
    /// A CSV file's bytes, and the offset each row's record starts at in them.
    var text: [UInt8] = []
    var recordStarts: [UInt32] = []

    init(declaration: TableDeclaration) {
        self.declaration = declaration
    }

    /// The table of a SQLite database file, or `nil` when it cannot be read (reported).
    mutating func readDatabase() -> LookupTable? {
        switch SQLiteTableReader.read(path: declaration.path, table: declaration.table ?? "") {
        case .success(let (columns, rows)):
            guard let store = store(columns: columns, rows: rows, lines: Array(rows.indices.map { $0 + 1 })) else {
                return nil
            }
            return build(columns: columns, store: store)
        case .failure(let failure):
            diagnostics.append(
                Diagnostic(
                    message:
                        "cannot read the table \(PathText.quoted(declaration.table ?? "")) of the database \(PathText.quoted(declaration.path)) (the table \(declaration.name)): \(failure.message)",
                    location: failure.tables.isEmpty
                        ? declaration.fileLocation : declaration.tableLocation ?? declaration.fileLocation,
                    help: Suggestion.help(for: declaration.table ?? "", among: failure.tables)
                        ?? (failure.tables.isEmpty ? nil : "its tables: " + failure.tables.joined(separator: ", "))))
            return nil
        }
    }

    /// The table, or `nil` when its file has a problem (reported).
    mutating func read(_ bytes: [UInt8]) -> LookupTable? {
        let parsed: (columns: [String], store: TableStore)?
        switch declaration.format {
        case .csv: parsed = readCSV(bytes)
        case .jsonl: parsed = readLines(bytes)
        case .sqlite: return readDatabase()
        }
        guard let parsed else { return nil }
        return build(columns: parsed.columns, store: parsed.store)
    }

    /// The table of rows a host gives (JSON objects, as the lines of a JSON lines file would
    /// hold them; row `n` is "line" `n` in messages), or `nil` (reported).
    mutating func read(rows given: [JSONValue]) -> LookupTable? {
        var objects: [(JSONObject, Int)] = []
        for (offset, row) in given.enumerated() {
            guard case .object(let object) = row else {
                diagnostics.append(
                    Diagnostic(
                        message: "row \(offset + 1) of the table \(declaration.name) is \(row.typeName), not an object",
                        location: declaration.fileLocation, help: "a row is an object of column names to cells"))
                continue
            }
            objects.append((object, offset + 1))
        }
        guard diagnostics.isEmpty, let parsed = rows(of: objects) else { return nil }
        return build(columns: parsed.columns, store: parsed.store)
    }

    /// What a row's number is in messages: a line of a text file, a row of a database's table.
    var lineWord: String { declaration.format == .sqlite || declaration.isInMemory ? "row" : "line" }

    /// The table from its columns and cells: the key's columns found, each row's key checked,
    /// the keys indexed; `nil` after reporting a problem.
    private mutating func build(columns: [String], store given: TableStore) -> LookupTable? {
        var store = given
        var keyColumns: [Int] = []
        for key in declaration.key {
            guard let column = columns.firstIndex(of: key.name) else {
                diagnostics.append(
                    Diagnostic(
                        message: "the table \(declaration.name) has no key column \(PathText.quoted(key.name))",
                        location: key.location,
                        notes: [
                            Diagnostic.Note(
                                message: "its columns: " + columns.map { PathText.quoted($0) }.joined(separator: ", "))
                        ],
                        help: Suggestion.help(for: key.name, among: columns)))
                return nil
            }
            keyColumns.append(column)
        }
        for declared in declaration.columns where !columns.contains(declared.name) {
            diagnostics.append(
                Diagnostic(
                    message: "the table \(declaration.name) has no column \(PathText.quoted(declared.name))",
                    location: declared.location, help: Suggestion.help(for: declared.name, among: columns)))
        }
        guard diagnostics.isEmpty else { return nil }
        for row in 0..<store.rowCount {
            for column in keyColumns where store.withKeyText(row: row, column: column, { $0 == nil }) {
                let cell = store.cell(row: row, column: column)
                diagnostics.append(
                    Diagnostic(
                        message:
                            "the row of \(declaration.name) on \(lineWord) \(store.line(ofRow: row)) has no key (\(PathText.quoted(columns[column])) is \(cell == .null ? "empty" : cell.typeName))",
                        location: place(row: row, column: column, in: store),
                        help: "give every row a key, or remove the row"))
            }
        }
        guard diagnostics.isEmpty else { return nil }
        for (row, first) in store.index(keyColumns: keyColumns) {
            let parts = keyColumns.map { LookupTable.keyText(of: store.cell(row: row, column: $0)) ?? "" }
            diagnostics.append(
                Diagnostic(
                    message:
                        "the key \(PathText.quoted(parts.joined(separator: ", "))) is written twice in the table \(declaration.name): \(lineWord)s \(store.line(ofRow: first)) and \(store.line(ofRow: row))",
                    location: place(row: row, column: keyColumns[0], in: store),
                    notes: [
                        Diagnostic.Note(
                            message: "first written here", location: place(row: first, column: keyColumns[0], in: store)
                        )
                    ],
                    help: "a key finds one row: remove one of them, or make the key composite (\"key\": [\"a\", \"b\"])"
                ))
        }
        guard diagnostics.isEmpty else { return nil }
        store.compact()
        return LookupTable(name: declaration.name, file: declaration.path, columns: columns, store: store)
    }

    /// Where a cell is: its line and column in a CSV file, its line in a JSON lines file, the
    /// declaration for a database's table or a host's rows.
    private func place(row: Int, column: Int, in store: TableStore) -> SourceLocation {
        if declaration.format == .sqlite || declaration.isInMemory { return declaration.fileLocation }
        guard declaration.format == .csv, row < recordStarts.count else {
            return SourceLocation(file: declaration.path, line: store.line(ofRow: row), column: 1)
        }
        var reader = CSVReader(bytes: text, at: Int(recordStarts[row]), line: store.line(ofRow: row))
        guard let record = try? reader.next(), column < record.starts.count else {
            return SourceLocation(file: declaration.path, line: store.line(ofRow: row), column: 1)
        }
        let place = reader.place(ofField: column, in: record)
        return SourceLocation(file: declaration.path, line: place.line, column: place.column)
    }
}
