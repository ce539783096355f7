import MappingsCompiler
import MappingsJSON
import MappingsModel

/// `@lookup` in a mapping run: what an entry does when its key finds no row, or a row whose
/// cell is empty, and how `explain` shows the row it found.
extension MappingRun {
    /// A key with no row, or a row with an empty cell: missing, as a missing value is — an error
    /// for a required entry, else its default or nothing — with the key and the table in the words.
    mutating func lookupMissed(
        _ lookup: TableLookup, _ lookedUp: (key: JSONValue, row: Int?), rule: Rule, used: Int,
        at valuePath: () -> String, target: inout Value, property: () -> String
    ) {
        let why: String
        if let row = lookedUp.row, let column = lookup.column {
            why =
                "the row of \(JSONWriter.safeText(lookedUp.key)) in the table \(lookup.current.name) (line \(lookup.current.line(ofRow: row))) has no \(lookup.current.columns[column])"
        } else {
            why = lookup.noRowMessage(for: lookedUp.key)
        }
        if !rule.isOptional {
            report(
                .missingRequiredValue, at: valuePath(), property: property(), rule: rule,
                value: Converter.describe(lookedUp.key),
                message: "missing required value for \(property()): \(why) (@lookup \(lookup.text))")
            explain(property(), rule, valuePath(), .failed("missing required value: \(why)"), keyPath: used)
            return
        }
        // What explain says after the payload path: `$.cc is "ZZ", a key no row of the table countries has`.
        let said: String
        if let row = lookedUp.row, let column = lookup.column {
            said =
                "is \(JSONWriter.safeText(lookedUp.key)): its row in the table \(lookup.current.name) (\(lookup.current.file):\(lookup.current.line(ofRow: row))) has no \(lookup.current.columns[column])"
        } else {
            said = "is \(JSONWriter.safeText(lookedUp.key)), a key no row of the table \(lookup.current.name) has"
        }
        if let defaultValue = rule.defaultValue {
            Target.assign(defaultValue, at: rule.target.steps[...], in: &target, models: mapper.catalog.models)
            explain(property(), rule, valuePath(), .defaulted(said), keyPath: used)
        } else {
            explain(property(), rule, valuePath(), .skipped(said), keyPath: used)
        }
    }

    /// `@lookup countries.name (the row of "FR", tables/countries.csv:2)`, for explanations.
    static func shownLookup(_ lookup: TableLookup, key: JSONValue, row: Int) -> String {
        "@lookup \(lookup.text) (the row of \(JSONWriter.safeText(key)), \(lookup.current.file):\(lookup.current.line(ofRow: row)))"
    }
}
