import MappingsCompiler
import MappingsJSON

extension PlanTables.Conversion {
    /// What converts for `value`: the value, or with `@lookup` its row's cell (or the row);
    /// `nil` when the key finds no row, the cell is empty, or the value is no key — the general
    /// engine's to report.
    @inline(__always)
    func found(_ value: JSONValue) -> JSONValue? {
        guard let lookup else { return value }
        guard case .found(let cell, _) = lookup.value(for: value), cell != .null else { return nil }
        return cell
    }
}
