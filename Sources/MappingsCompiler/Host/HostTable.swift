import MappingsJSON

/// A lookup table a Swift host gives (`Definitions.table(_:rows:key:columns:)` and
/// `table(_:file:key:columns:databaseTable:)`): its rows or its file, and the key and column
/// types `@tables` would write, with the place in Swift that gave it.
struct HostTable: Sendable {
    enum Source: Sendable {
        /// Rows as JSON objects of column names to cells.
        case rows([JSONValue])
        /// A CSV, JSON lines or SQLite file, relative to the current directory; `databaseTable`
        /// names the table of a SQLite database.
        case file(String, databaseTable: String?)
    }

    var name: String
    var source: Source
    /// The key's columns; empty: the key of the `@tables` declaration of that name.
    var key: [String]
    /// Declared column types, as `"columns"` writes them (`"Int"`).
    var columns: [(name: String, type: String)]
    var location: SourceLocation
}
