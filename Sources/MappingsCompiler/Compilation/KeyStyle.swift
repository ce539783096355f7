/// How a context with `"@keyStyle"` derives the payload key of each property it has no entry
/// for: `imageUrl` is read from `image_url` in `snake_case`.
///
/// A property name splits into words at `_` and `-`, before an uppercase letter that follows
/// a lowercase letter or a digit, and before the last uppercase letter of a run when a
/// lowercase letter follows it (`URLString` is `URL`, `String`). Digits stay with the word
/// they follow. Leading underscores are kept as they are.
///
/// | Property     | `snake_case`  | `kebab-case`  | `camelCase`  |
/// |--------------|---------------|---------------|--------------|
/// | `imageUrl`   | `image_url`   | `image-url`   | `imageUrl`   |
/// | `imageURL`   | `image_url`   | `image-url`   | `imageUrl`   |
/// | `URLString`  | `url_string`  | `url-string`  | `urlString`  |
/// | `user2Name`  | `user2_name`  | `user2-name`  | `user2Name`  |
/// | `image_url`  | `image_url`   | `image-url`   | `imageUrl`   |
///
/// `same` reads the key named like the property.
public enum KeyStyle: String, Sendable, Hashable, CaseIterable {
    /// Lowercase words joined by `_` (`"@keyStyle": "snake_case"`).
    case snakeCase = "snake_case"
    /// The first word lowercase, the others capitalized (`"@keyStyle": "camelCase"`).
    case camelCase = "camelCase"
    /// Lowercase words joined by `-` (`"@keyStyle": "kebab-case"`).
    case kebabCase = "kebab-case"
    /// The property's name as it is (`"@keyStyle": "same"`).
    case same = "same"

    /// The payload key this style derives from `property`.
    package func key(for property: String) -> String {
        let prefix = property.prefix(while: { $0 == "_" })
        let words = Self.words(of: property.dropFirst(prefix.count))
        guard self != .same, !words.isEmpty else { return property }
        switch self {
        case .snakeCase: return prefix + words.map { $0.lowercased() }.joined(separator: "_")
        case .kebabCase: return prefix + words.map { $0.lowercased() }.joined(separator: "-")
        case .camelCase:
            let rest = words.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst().lowercased() }
            return prefix + words[0].lowercased() + rest.joined()
        case .same: return property
        }
    }

    /// The words of a name, split as the type's documentation says.
    static func words(of name: Substring) -> [String] {
        let characters = Array(name)
        var words: [String] = []
        var current = ""
        for (offset, character) in characters.enumerated() {
            if character == "_" || character == "-" {
                if !current.isEmpty { words.append(current) }
                current = ""
                continue
            }
            if character.isUppercase, let previous = current.last {
                let next = offset + 1 < characters.count ? characters[offset + 1] : nil
                let startsWord =
                    previous.isLowercase || previous.isNumber
                    || (previous.isUppercase && next?.isLowercase == true)
                if startsWord {
                    words.append(current)
                    current = ""
                }
            }
            current.append(character)
        }
        if !current.isEmpty { words.append(current) }
        return words
    }
}
