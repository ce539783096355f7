import MappingsJSON
import MappingsModel

/// A context's `"@unknownKeys"`: what to do with payload keys, at the context's own level, that
/// none of its entries reads. `ignore` (the default) compiles to no check at all, so a context
/// without it costs nothing per record.
///
/// An entry reads the first key of each of its key paths (fallbacks included). An entry
/// whose key path is `@self` (or starts with `@first`, `@last`, `@count` or an index) hands
/// the whole object on, so it reads every key: such a context reports none. Nested contexts
/// (`@object`) check their own level with their own `"@unknownKeys"`.
package struct UnknownKeys: Sendable {
    /// `"warn"`: each unknown key is a warning; `"error"`: an error.
    package var isError: Bool
    /// Where `"@unknownKeys"` is written: the rule the issues name.
    package var provenance: Provenance
    /// The keys the context's entries read, worked out when the catalog loads; `nil` when an
    /// entry reads every key.
    package var read: [String]? = []

    /// The values `"@unknownKeys"` takes.
    static let policies = ["ignore", "warn", "error"]

    /// The keys `rules` read at their context's level, or `nil` when one of them reads every key.
    static func keys(readBy rules: [Rule]) -> [String]? {
        var keys: [String] = []
        for rule in rules {
            for path in rule.keyPaths {
                guard case .key(let key)? = path.components.first else { return nil }
                if !keys.contains(where: { $0.hasSameCodePoints(as: key) }) { keys.append(key) }
            }
        }
        return keys
    }
}
