/// Union entries declared in Swift.
extension NestedObject {
    /// Chooses each object's member of a union by the value at `discriminator` (`"@object":
    /// { "@discriminator": …, "@cases": …, "@otherwise": … }`).
    ///
    /// ```swift
    /// drawing.map("shapes", from: "shapes",
    ///             object: .cases(discriminator: "type", ["circle": "$Circle", "rect": "$Rect"]))
    /// ```
    /// - Parameters:
    ///   - discriminator: the key path, inside each object, of the value that chooses.
    ///   - cases: each discriminator value and the context that maps it (its `@class` is the member).
    ///   - otherwise: the context for a value no case names, or a missing one; without it, such
    ///     an object is an issue.
    public static func cases(
        discriminator: String, _ cases: KeyValuePairs<String, String>, otherwise: String? = nil
    ) -> NestedObject {
        NestedObject(
            kind: .union(discriminator: discriminator, cases: cases.map { ($0.key, $0.value) }, otherwise: otherwise),
            className: nil)
    }
}
