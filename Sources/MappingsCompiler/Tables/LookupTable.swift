package import MappingsJSON
import Synchronization

/// A lookup table of `@tables`, loaded: its columns, its rows, and an index from each row's key
/// to the row.
///
/// Immutable and `Sendable`: a catalog loads it once and every lane, entry and Lua interpreter
/// reads the same storage. A key is compared as text (`keyText(of:)`): the string `"42"` and the
/// number `42` find the same row, and a composite key joins its columns' texts. One reference
/// to its parts: an entry's conversion that holds the table copies it on the record path.
package struct LookupTable: Sendable {
    /// The name `@tables` gives it (`countries`).
    package var name: String { parts.name }
    /// The file it was read from, resolved against the `.mappings` file that names it.
    package var file: String { parts.file }
    /// The column names, in the file's order.
    package var columns: [String] { parts.columns }
    /// The key's columns, as indexes into `columns`, in the order `"key"` names them.
    package var keyColumns: [Int] { parts.store.keyColumns }
    /// The name, file and columns, and the store: the cells, one per column a row (`null` for an
    /// empty field), and the key index.
    private let parts: Parts
    /// This table among those the process loaded: what tells a reloaded table from the one
    /// an interpreter holds.
    package let serial = LookupTable.loaded.add(1, ordering: .relaxed).newValue
    private static let loaded = Atomic<UInt64>(0)

    private final class Parts: Sendable {
        let name: String
        let file: String
        let columns: [String]
        let store: TableStore

        init(name: String, file: String, columns: [String], store: TableStore) {
            (self.name, self.file, self.columns, self.store) = (name, file, columns, store)
        }
    }

    init(name: String, file: String, columns: [String], store: TableStore) {
        parts = Parts(name: name, file: file, columns: columns, store: store)
    }

    /// How many rows.
    package var rowCount: Int { parts.store.rowCount }

    /// The bytes the table takes in memory: what `--max-table-memory` counts.
    package var memory: Int { parts.store.memory }

    /// A size in words, as messages and `check` give one: `61.2 MiB`, `12.0 KiB`, `300 bytes`.
    package static func memoryText(_ bytes: Int) -> String {
        func tenths(_ unit: Int) -> String { "\(bytes / unit).\(bytes % unit * 10 / unit)" }
        if bytes >= 1 << 20 { return tenths(1 << 20) + " MiB" }
        if bytes >= 1 << 10 { return tenths(1 << 10) + " KiB" }
        return "\(bytes) bytes"
    }

    /// The 1-based line of the file row `row` starts on (a database table's row number).
    package func line(ofRow row: Int) -> Int { parts.store.line(ofRow: row) }

    /// The cell of row `row` in column `column` (`null` when empty).
    package func cell(row: Int, column: Int) -> JSONValue { parts.store.cell(row: row, column: column) }

    /// The cells of row `row`, one per column.
    package func cells(ofRow row: Int) -> [JSONValue] { columns.indices.map { parts.store.cell(row: row, column: $0) } }

    /// The row whose key is `key` (a key text), or `nil`.
    package func row(forKeyText key: String) -> Int? { parts.store.row(forKeyText: key) }

    /// The row whose key text is `key`'s bytes, or `nil`: the fast plan's lookup, by the
    /// record's bytes, with no `String` and no allocation.
    package func row(forKeyText key: UnsafeBufferPointer<UInt8>) -> Int? { parts.store.row(forKeyText: key) }

    /// What a cell holds, for a reader of its bytes (`withCell(row:column:_:)`).
    package enum CellKind {
        /// An empty field: no bytes.
        case empty
        /// A string: its UTF-8, unescaped.
        case string
        /// A number: its digits as written.
        case number
        /// `true` or `false`: no bytes, the kind says which.
        case yes, no
        /// An array or an object: its JSON.
        case json
    }

    /// Calls `body` with the kind of the cell of row `row` in column `column` and its bytes,
    /// which are the table's own (no copy).
    package func withCell<R>(row: Int, column: Int, _ body: (CellKind, UnsafeBufferPointer<UInt8>) -> R) -> R {
        let kind: CellKind
        switch parts.store.kind(row: row, column: column) {
        case .empty: kind = .empty
        case .string: kind = .string
        case .number: kind = .number
        case .yes: kind = .yes
        case .no: kind = .no
        case .json: kind = .json
        }
        return parts.store.withBytes(row: row, column: column) { body(kind, $0) }
    }

    /// The row `value` names: a scalar for a key of one column; for a composite key an array
    /// of the key's values in the key's order, or an object with the key's column names.
    /// `nil` when no row has that key, or when the value cannot be a key (`reason` says why).
    package func row(for value: JSONValue) -> Result<Int?, KeyFailure> {
        switch key(of: value) {
        case .success(let text): .success(parts.store.row(forKeyText: text))
        case .failure(let failure): .failure(failure)
        }
    }

    /// Why a value is no key of the table.
    package struct KeyFailure: Error, Sendable {
        package let message: String
    }

    /// The key text of `value` for this table (see `row(for:)`).
    package func key(of value: JSONValue) -> Result<String, KeyFailure> {
        if keyColumns.count == 1 {
            guard let text = Self.keyText(of: value) else {
                return .failure(KeyFailure(message: "a key is a string, a number or a boolean, not \(value.typeName)"))
            }
            return .success(text)
        }
        let names = keyColumns.map { columns[$0] }
        var parts: [String] = []
        switch value {
        case .array(let items) where items.count == keyColumns.count:
            for item in items {
                guard let text = Self.keyText(of: item) else {
                    return .failure(
                        KeyFailure(message: "a key's part is a string, a number or a boolean, not \(item.typeName)"))
                }
                parts.append(text)
            }
        case .object(let object):
            for name in names {
                guard let part = object[name], let text = Self.keyText(of: part) else {
                    return .failure(KeyFailure(message: "the key of \(name) has no value for \(PathText.quoted(name))"))
                }
                parts.append(text)
            }
        default:
            let list = names.map { PathText.quoted($0) }.joined(separator: ", ")
            return .failure(
                KeyFailure(
                    message:
                        "the key of \(name) has \(keyColumns.count) columns (\(list)): look it up with an array of \(keyColumns.count) values or an object of those keys, not \(value.typeName)"
                ))
        }
        return .success(Self.compositeKey(parts))
    }

    /// The cells of row `row` as a JSON object of the columns (`null` cells left out).
    package func object(ofRow row: Int) -> JSONValue {
        .object(
            JSONObject(
                uniqueMembers: zip(columns, cells(ofRow: row)).compactMap { $1 == .null ? nil : (key: $0, value: $1) }))
    }

    /// The text a key value is compared by: a string as it is, a number as its digits, a
    /// boolean as `true` or `false`; `nil` for null, arrays and objects.
    package static func keyText(of value: JSONValue) -> String? {
        switch value {
        case .string(let string): string
        case .integer(let integer): String(integer)
        case .double(let double): JSONNumber.text(of: double)
        case .number(let number): number.literal
        case .bool(let bool): bool ? "true" : "false"
        case .null, .array, .object: nil
        }
    }

    /// Every row as a pair of its key text and its cells (an object, empty cells left out), in
    /// the file's order: what the Lua sandbox builds its rows from.
    package var keyedRows: JSONValue {
        .array(
            (0..<rowCount).map { row in
                let texts = keyColumns.map { Self.keyText(of: cell(row: row, column: $0)) ?? "" }
                return .array([.string(Self.compositeKey(texts)), object(ofRow: row)])
            })
    }

    /// The key text of a composite key's parts, each one's text apart (a unit separator, U+001F).
    package static func compositeKey(_ parts: [String]) -> String {
        parts.joined(separator: "\u{1F}")
    }
}
