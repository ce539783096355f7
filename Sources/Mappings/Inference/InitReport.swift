import Foundation

/// What the types of a project `mappings init` wrote rest on: how many records, and the
/// properties typed from few values or from nulls alone, which a larger sample may contradict.
///
/// ```text
/// note: typed from 12 records (spread over 1,000 records)
/// note: resting on few values: Feature.gap (Int from 4 values, null or missing in 996: optional; a
///   fraction elsewhere would need Double), Feature.rms (only null: JSON?, any value)
/// ```
package enum InitReport {
    /// Fewer non-null values than this make a type rest on few values.
    package static let fewValues = 10
    /// How many such properties are named; the rest are counted.
    static let named = 12

    /// The lines of the report (without `note: `).
    package static func lines(_ project: InitProject) -> [String] {
        var first = "typed from " + count(project.records, "record")
        if let over = project.spreadOver { first += " (spread over \(over))" }
        let few = project.records < fewValues
        if few {
            first +=
                ": every type rests on \(project.records == 1 ? "one value" : "at most \(project.records) values")"
                + " — a larger sample makes the types surer (`--sample N` spreads N records over a large NDJSON file)"
        }
        var lines = [first]
        var thin: [String] = []
        for model in project.models {
            for property in model.properties {
                let name = model.name + "." + property.name
                if property.values == 0 {
                    thin.append("\(name) (only null: \(property.type.text)?, any value)")
                } else if !few, property.values < fewValues {
                    var text = "\(name) (\(property.type.text) from \(count(property.values, "value"))"
                    if property.absent > 0 { text += ", null or missing in \(property.absent): optional" }
                    if property.type == .scalar("Int") { text += "; a fraction elsewhere would need Double" }
                    thin.append(text + ")")
                }
            }
        }
        if !thin.isEmpty {
            var listed = thin.prefix(named).joined(separator: ", ")
            if thin.count > named { listed += ", and \(thin.count - named) more" }
            lines.append("resting on few values: " + listed)
        }
        return lines
    }

    /// `1 record`, `1,000 records`.
    package static func count(_ number: Int, _ noun: String) -> String {
        let formatter = NumberFormatter()
        formatter.numberStyle = .decimal
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.usesGroupingSeparator = true
        formatter.groupingSeparator = ","
        formatter.groupingSize = 3
        let digits = formatter.string(from: NSNumber(value: number)) ?? String(number)
        return digits + " " + noun + (number == 1 ? "" : "s")
    }
}
