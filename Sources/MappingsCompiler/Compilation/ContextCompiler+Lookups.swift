import MappingsJSON
import MappingsModel

/// Compiling `@lookup`: the table and the column it names, resolved once, so that mapping finds
/// a row with one hash of its key and reads a cell by index.
extension ContextCompiler {
    /// The lookup `member` writes (`"countries"` or `"countries.name"`); `nil` when there is
    /// none, or after reporting it.
    mutating func tableLookup(_ member: SyntaxMember?, valid: inout Bool) -> TableLookup? {
        guard let member else { return nil }
        guard let text = member.value.stringValue, !text.isEmpty else {
            diagnostics.append(
                Diagnostic(
                    message: "\"@lookup\" names a table, or a table's column (a string), not \(member.value.typeName)",
                    location: member.value.location,
                    help: "write \"@lookup\": \"countries.name\" (a column) or \"@lookup\": \"countries\" (the row)"))
            valid = false
            return nil
        }
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        let name = parts[0]
        guard let table = tables[name] else {
            if !unloadedTables.contains(name) {
                let known = tables.keys.sorted()
                diagnostics.append(
                    Diagnostic(
                        message:
                            "\"@lookup\" names the table \(PathText.quoted(name)), which \"@tables\" does not declare",
                        location: member.value.location,
                        help: Suggestion.help(for: name, among: known)
                            ?? (known.isEmpty
                                ? "declare it: \"@tables\": { \"\(name)\": { \"file\": \"tables/\(name).csv\", \"key\": \"code\" } }"
                                : "the tables: " + known.joined(separator: ", "))))
            }
            valid = false
            return nil
        }
        guard parts.count == 2 else { return TableLookup(table: table, column: nil, text: text) }
        guard let column = table.columns.firstIndex(of: parts[1]) else {
            diagnostics.append(
                Diagnostic(
                    message: "the table \(name) has no column \(PathText.quoted(parts[1]))",
                    location: member.value.location,
                    notes: [
                        Diagnostic.Note(
                            message: "its columns: " + table.columns.map { PathText.quoted($0) }.joined(separator: ", ")
                        )
                    ],
                    help: Suggestion.help(for: parts[1], among: table.columns)))
            valid = false
            return nil
        }
        return TableLookup(table: table, column: column, text: text)
    }
}
