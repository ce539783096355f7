import CSQLClient
import MappingsJSON

/// Reads every row of one table of a SQLite database file, read-only, through the SQLite the
/// SQL sink loads at run time (`CSQLClient`): a column's cells as SQLite holds them — integers,
/// reals (their text, kept exact when JSON reads it as a number), text, null.
enum SQLiteTableReader {
    /// Why the table could not be read, in words for a diagnostic, and the database's tables
    /// when the one named is not there (for a suggestion).
    struct Failure: Error {
        var message: String
        var tables: [String] = []
    }

    static func read(path: String, table: String) -> Result<(columns: [String], rows: [[JSONValue]]), Failure> {
        var loadError: UnsafePointer<CChar>?
        guard let api = mappings_sqlite_load(&loadError)?.pointee else {
            return .failure(
                Failure(
                    message:
                        "SQLite cannot be loaded (\(loadError.map { String(cString: $0) } ?? "unknown")): install libsqlite3-0"
                ))
        }
        var handle: OpaquePointer?
        guard api.open_v2(path, &handle, Int32(MAPPINGS_SQLITE_OPEN_READONLY), nil) == MAPPINGS_SQLITE_OK,
            let database = handle
        else {
            let message = String(cString: api.errmsg(handle))
            _ = api.close_v2(handle)
            return .failure(Failure(message: "cannot open the database: \(message)"))
        }
        defer { _ = api.close_v2(database) }
        let quoted =
            "\"" + table.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""
        var statement: OpaquePointer?
        guard api.prepare_v2(database, "SELECT * FROM \(quoted)", -1, &statement, nil) == MAPPINGS_SQLITE_OK,
            let query = statement
        else {
            let message = String(cString: api.errmsg(database))
            _ = api.finalize(statement)
            return .failure(Failure(message: message, tables: names(in: database, api)))
        }
        defer { _ = api.finalize(query) }
        let count = api.column_count(query)
        let columns = (0..<count).map { api.column_name(query, $0).map { String(cString: $0) } ?? "" }
        var rows: [[JSONValue]] = []
        while true {
            let status = api.step(query)
            if status == MAPPINGS_SQLITE_DONE { break }
            guard status == MAPPINGS_SQLITE_ROW else {
                return .failure(Failure(message: String(cString: api.errmsg(database))))
            }
            rows.append((0..<count).map { cell(query, $0, api) })
        }
        return .success((columns, rows))
    }

    private static func cell(_ query: OpaquePointer, _ column: Int32, _ api: mappings_sqlite_api) -> JSONValue {
        switch api.column_type(query, column) {
        case Int32(MAPPINGS_SQLITE_NULL): return .null
        case Int32(MAPPINGS_SQLITE_INTEGER): return .integer(api.column_int64(query, column))
        default:
            let bytes = api.column_text(query, column)
            let count = Int(api.column_bytes(query, column))
            let text = bytes.map { String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self) } ?? ""
            if api.column_type(query, column) == Int32(MAPPINGS_SQLITE_FLOAT), JSONNumber(text) != nil {
                return JSONValue.number(literal: text)
            }
            return .string(text)
        }
    }

    /// The database's tables and views, for a suggestion.
    private static func names(in database: OpaquePointer, _ api: mappings_sqlite_api) -> [String] {
        var statement: OpaquePointer?
        guard
            api.prepare_v2(
                database, "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') ORDER BY name", -1,
                &statement, nil) == MAPPINGS_SQLITE_OK, let query = statement
        else { return [] }
        defer { _ = api.finalize(query) }
        var names: [String] = []
        while api.step(query) == MAPPINGS_SQLITE_ROW {
            if let text = api.column_text(query, 0) { names.append(String(cString: text)) }
        }
        return names
    }
}
