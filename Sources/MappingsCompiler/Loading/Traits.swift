import Foundation
import MappingsJSON
import MappingsModel

/// Facts about the environment that selectors test, such as `apiVersion=2` or `build=debug`.
///
/// Traits come from the host (`Traits(["apiVersion": "2"])`) or from the tool
/// (`--trait apiVersion=2`). A trait given without a value is `true`.
public struct Traits: Sendable, Hashable, ExpressibleByDictionaryLiteral {
    /// Each trait's value, by name.
    public var values: [String: String]

    /// Traits with these values.
    public init(_ values: [String: String] = [:]) {
        self.values = values
    }

    /// Traits written as a literal: `["apiVersion": "2"]`.
    public init(dictionaryLiteral elements: (String, String)...) {
        self.values = Dictionary(elements, uniquingKeysWith: { _, last in last })
    }

    /// The value of the trait `name`, or `nil` when it has none.
    public subscript(name: String) -> String? {
        get { values[name] }
        set { values[name] = newValue }
    }

    /// Whether `name` can be tested by a selector: letters, digits, `_`, `.` and `-`, not
    /// starting with a digit (`apiVersion`, `build.type`; not `2x` or `a b`).
    package static func isName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, !("0"..."9").contains(first) else { return false }
        return name.unicodeScalars.allSatisfy(isNameCharacter)
    }

    /// Whether `scalar` may appear in a trait name.
    package static func isNameCharacter(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_" || scalar == "."
            || scalar == "-"
    }

    /// Parses `KEY=VALUE` (or `KEY`, meaning `KEY=true`); `nil` when the key is empty.
    public static func parseAssignment(_ text: String) -> (key: String, value: String)? {
        let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        let key = parts[0].trimmingCharacters(in: .whitespaces)
        guard !key.isEmpty else { return nil }
        return (key, parts.count > 1 ? String(parts[1]) : "true")
    }
}
