package import MappingsJSON
import Synchronization

/// A lookup table of `@tables`, loaded: its columns, its rows, and an index from each row's key
/// to the row.
///
/// Immutable and `Sendable`: a catalog loads it once and every lane, entry and Lua interpreter
/// reads the same storage. A key is compared as text (`keyText(of:)`): the string `"42"` and the
/// number `42` find the same row, and a composite key joins its columns' texts.
package struct LookupTable: Sendable {
    /// The name `@tables` gives it (`countries`).
    package let name: String
    /// The file it was read from, resolved against the `.mappings` file that names it.
    package let file: String
    /// The column names, in the file's order.
    package let columns: [String]
    /// The key's columns, as indexes into `columns`, in the order `"key"` names them.
    package let keyColumns: [Int]
    /// Each row's cells, one per column (`null` for an empty field).
    package let rows: [[JSONValue]]
    /// The 1-based line of the file each row starts on.
    package let lines: [Int]
    /// Each row's key text (`keyText(of:)`), to its row.
    private let index: [String: Int]
    /// This table among those the process loaded: what tells a reloaded table from the one
    /// an interpreter holds.
    package let serial = LookupTable.loaded.add(1, ordering: .relaxed).newValue
    private static let loaded = Atomic<UInt64>(0)

    package init(
        name: String, file: String, columns: [String], keyColumns: [Int], rows: [[JSONValue]], lines: [Int],
        index: [String: Int]
    ) {
        self.name = name
        self.file = file
        self.columns = columns
        self.keyColumns = keyColumns
        self.rows = rows
        self.lines = lines
        self.index = index
    }

    /// The row whose key is `key` (a key text), or `nil`.
    package func row(forKeyText key: String) -> Int? { index[key] }

    /// The row `value` names: a scalar for a key of one column; for a composite key an array
    /// of the key's values in the key's order, or an object with the key's column names.
    /// `nil` when no row has that key, or when the value cannot be a key (`reason` says why).
    package func row(for value: JSONValue) -> Result<Int?, KeyFailure> {
        switch key(of: value) {
        case .success(let text): .success(index[text])
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
                uniqueMembers: zip(columns, rows[row]).compactMap { $1 == .null ? nil : (key: $0, value: $1) }))
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
        var texts = [String](repeating: "", count: rows.count)
        for (text, row) in index { texts[row] = text }
        return .array(rows.indices.map { .array([.string(texts[$0]), object(ofRow: $0)]) })
    }

    /// The key text of a composite key's parts, each one's text apart (a unit separator, U+001F).
    package static func compositeKey(_ parts: [String]) -> String {
        parts.joined(separator: "\u{1F}")
    }
}
