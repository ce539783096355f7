import MappingsCompiler
import MappingsJSON
import MappingsModel

/// A fan-out (`labels.name` over an array of objects) puts null where an element's object has
/// no such key: converting that null must say the value is absent, as it says for a key
/// missing anywhere else, not that the payload holds a null.
extension MappingRun {
    /// Which elements of the array `keyPath` fanned out to in `source` are absent keys (made
    /// only when a conversion failed on a null element).
    struct FanOutHoles {
        let keyPath: PayloadKeyPath?
        let source: JSONValue
        private var found: [Bool]??

        init(keyPath: PayloadKeyPath?, source: JSONValue) {
            self.keyPath = keyPath
            self.source = source
        }

        /// Whether element `index` is null because its object lacks the key.
        mutating func isAbsent(_ index: Int) -> Bool {
            if found == nil { found = .some(keyPath.flatMap { SourceLookup.absentElements($0, in: source) }) }
            guard let absent = found ?? nil, absent.indices.contains(index) else { return false }
            return absent[index]
        }
    }

    /// `failure`, said as a missing value when it is a null element (at `relative`, one whole
    /// index: `[3]`) that a fan-out made of an object without the key.
    static func restated(
        _ failure: ConversionFailure, relative: String, property: String, holes: inout FanOutHoles
    ) -> ConversionFailure {
        guard failure.partValue == "null", relative.hasPrefix("["), relative.hasSuffix("]"),
            let index = Int(relative.dropFirst().dropLast()), holes.isAbsent(index)
        else { return failure }
        var restated = ConversionFailure(
            relativePath: failure.relativePath, message: Converter.missingValue(for: property, isNull: false),
            isMissingValue: true)
        restated.isWarning = failure.isWarning
        return restated
    }
}
