import MappingsJSON

/// Converting to a declared enum: a string (or a number or boolean, by its text, as for
/// `String`) that is one of the enum's values; anything else fails, listing the allowed values.
extension Converter {
    @inline(__always)
    static func convertEnumeration(_ value: JSONValue, to enumeration: Enumeration) -> ScalarConversion {
        guard case .converted(.string(let text)) = convertString(value) else {
            return .failed(mismatch(value, .enumeration(enumeration)))
        }
        if enumeration.allows(text) { return .converted(.string(text)) }
        return .failed(notAllowed(value, text: text, in: enumeration))
    }

    /// `expected Status, found string "actve": allowed values are "active", …; did you mean "active"?`
    static func notAllowed(_ value: JSONValue, text: String, in enumeration: Enumeration) -> String {
        let suggestion = Suggestion.closest(to: text, among: enumeration.values).map {
            "; did you mean \(Suggestion.quoted($0, against: text))?"
        }
        return "expected \(enumeration.name), found \(describe(value)): allowed values are \(enumeration.listed)"
            + (suggestion ?? "")
    }
}
