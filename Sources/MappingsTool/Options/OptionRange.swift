import ArgumentParser
import MappingsStream

/// The range a numeric option accepts, checked with a message that names the range and the
/// value given: `--lua-timeout must be between 1 and 3600000 ms, not -5`.
///
/// Numeric options are parsed with `.unconditional`, so that a negative value (`--workers -1`)
/// reaches this check instead of being taken for an option.
struct OptionRange {
    var option: String
    var range: ClosedRange<Int>
    /// The unit the message names after the bounds (`ms`, `MiB`), or empty.
    var unit: String = ""

    /// Throws a usage error unless `value` is in the range.
    func check(_ value: Int) throws {
        guard !range.contains(value) else { return }
        let unit = unit.isEmpty ? "" : " " + unit
        if range.upperBound == .max {
            throw ValidationError("\(option) must be at least \(range.lowerBound)\(unit), not \(value)")
        }
        throw ValidationError(
            "\(option) must be between \(range.lowerBound) and \(range.upperBound)\(unit), not \(value)")
    }
}
