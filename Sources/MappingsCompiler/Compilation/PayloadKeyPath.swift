import Foundation
import MappingsJSON
import MappingsModel

/// A source key path, parsed once when the catalog compiles.
///
/// `user.name` reads a member of a member; `@self` (or an empty path) is the whole current
/// source; a key applied to an array fans out over its elements; `@first`, `@last`, `@count`
/// and integer indexes (negative ones count from the end) work on arrays.
///
/// A backslash takes the next character literally: `\.` is a dot inside a key
/// (`data.gcm\.message_id`), `\\` a backslash, and `\@`, `\-` or `\` before a digit make
/// the component a key even where it would be a keyword or an index (`\@self`, `\-1`, `\0`).
/// A component with an escape is always a key.
package struct PayloadKeyPath: Sendable, Hashable, CustomStringConvertible {
    package enum Component: Sendable, Hashable {
        case key(String)
        /// An array index; on an object, the member whose key is the same digits.
        case index(Int)
        case first
        case last
        case count
    }

    package let components: [Component]
    /// The path as written.
    package let text: String

    package var description: String { text.isEmpty ? "@self" : text }

    /// Whether the path is the whole current source.
    package var isSelf: Bool { components.isEmpty }

    /// The object keys of a key path made only of keys (a union's discriminator); an index or
    /// `@count` step, which such a path has not, is left out.
    package var keys: [String] {
        components.compactMap { if case .key(let key) = $0 { key } else { nil } }
    }

    struct Failure: Error {
        var message: String
        var help: String?
    }

    init(components: [Component], text: String) {
        self.components = components
        self.text = text
    }

    /// Parses a source key path.
    static func parse(_ text: String) throws(Failure) -> PayloadKeyPath {
        if text.isEmpty || text == "@self" { return PayloadKeyPath(components: [], text: "") }
        var components: [Component] = []
        let parts = try split(text)
        for (offset, (part, escaped)) in parts.enumerated() {
            if escaped {
                components.append(.key(part))
                continue
            }
            switch part {
            case "":
                throw Failure(
                    message: "the key path \"\(text)\" has an empty component",
                    help: "remove the extra '.'")
            case "@self":
                guard offset == 0 else {
                    throw Failure(message: "\"@self\" can only start a key path", help: "remove \".@self\"")
                }
            case "@first": components.append(.first)
            case "@last": components.append(.last)
            case "@count": components.append(.count)
            default:
                if part.hasPrefix("@") {
                    throw Failure(
                        message: "unknown key path operator \"\(part)\" in \"\(text)\"",
                        help: Suggestion.help(for: part, among: ["@self", "@first", "@last", "@count"])
                            ?? "key path operators are @self, @first, @last and @count; for the key, escape it: \\\(part) (\"\\\\\(part)\" in a JSON string)"
                    )
                }
                if let index = Int(part), part.allSatisfy({ $0.isNumber || $0 == "-" }) {
                    components.append(.index(index))
                } else {
                    components.append(.key(part))
                }
            }
        }
        return PayloadKeyPath(components: components, text: text)
    }

    /// The characters a backslash may escape in a key path.
    static let escapable: Set<Character> = [".", "\\", "@", "-", "0", "1", "2", "3", "4", "5", "6", "7", "8", "9"]

    /// `text` cut at its unescaped dots, each part with its escapes resolved and whether it had one.
    private static func split(_ text: String) throws(Failure) -> [(String, Bool)] {
        var parts: [(String, Bool)] = []
        var current = ""
        var escaped = false
        var pending = false
        for character in text {
            if pending {
                guard escapable.contains(character) else {
                    throw Failure(
                        message: "the key path \"\(text)\" has an unknown escape \"\\\(character)\"",
                        help:
                            "a backslash escapes '.', '\\', '@', '-' or a digit: \\\\ is a backslash in a key (\"\\\\\\\\\" in a JSON string)"
                    )
                }
                current.append(character)
                escaped = true
                pending = false
            } else if character == "\\" {
                pending = true
            } else if character == "." {
                parts.append((current, escaped))
                current = ""
                escaped = false
            } else {
                current.append(character)
            }
        }
        guard !pending else {
            throw Failure(
                message: "the key path \"\(text)\" ends with a lone backslash",
                help: "\\\\ is a backslash in a key (\"\\\\\\\\\" in a JSON string)")
        }
        parts.append((current, escaped))
        return parts
    }
}

extension PayloadKeyPath {
    /// The payload path this key path reads from `base` (`$.user.name`): `@first` is `[0]`,
    /// `@last` and `@count` read the whole array (`[*]`).
    package func payloadPath(from base: String) -> String {
        var path = base
        for component in components {
            switch component {
            case .key(let key): path += PathText.member(key)
            case .index(let index): path += "[\(index)]"
            case .first: path += "[0]"
            case .last, .count: path += "[*]"
            }
        }
        return path
    }

    /// Parses a key path as entries write it (`data.items`, `@self`, `results.@first`); a
    /// malformed one is an error of kind `.invalidInput` saying why.
    package init(parsing text: String) throws(MappingsError) {
        do {
            self = try PayloadKeyPath.parse(text)
        } catch {
            throw MappingsError(
                kind: .invalidInput,
                diagnostics: [
                    Diagnostic(message: "the key path \"\(text)\" is not valid: \(error.message)", help: error.help)
                ])
        }
    }
}
