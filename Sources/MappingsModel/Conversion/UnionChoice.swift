package import MappingsJSON

/// How a union's member is chosen from an object by the value at its discriminator: what a
/// union entry declares (`@discriminator`, `@cases`, `@otherwise`), reduced to model names so
/// that conversion can choose the same way when it reads an object back (`serialize`, `--into`)
/// that carries its discriminator (`ModelObject.unionTag`), before it falls back to shape.
package struct UnionChoice: Sendable, Hashable {
    /// The discriminator's key path, as object keys.
    package let keys: [String]
    /// Case values → the member each builds.
    private let members: [CodePointKey: String]
    /// The member a value no case names builds; `nil`: such a value chooses nothing.
    package let otherwise: String?

    package init(keys: [String], cases: [(value: String, member: String)], otherwise: String?) {
        self.keys = keys
        self.members = Dictionary(
            cases.map { (CodePointKey($0.value), $0.member) }, uniquingKeysWith: { first, _ in first })
        self.otherwise = otherwise
    }

    /// The member the discriminator of `object` chooses; `nil` when the object has no value
    /// there (or a null), or a value no case names and no `@otherwise`.
    package func member(of object: JSONObject) -> (member: String, tag: JSONValue)? {
        var current = JSONValue.object(object)
        for key in keys {
            guard case .object(let level) = current, let next = level[key] else { return nil }
            current = next
        }
        guard current != .null else { return nil }
        if let text = Self.caseText(of: current), let member = members[CodePointKey(text)] {
            return (member, current)
        }
        return otherwise.map { ($0, current) }
    }

    /// The text a discriminator value matches `@cases` by: a string its own text, a number its
    /// digits as the payload writes them (`1` matches the case `"1"`, `1.0` does not), a boolean
    /// `"true"` or `"false"`; `nil` for null, an array or an object, which match no case.
    package static func caseText(of value: JSONValue) -> String? {
        switch value {
        case .string(let string): string
        case .integer(let integer): String(integer)
        case .number(let number): number.literal
        case .double(let double): JSONNumber.text(of: double)
        case .bool(let bool): bool ? "true" : "false"
        case .null, .array, .object: nil
        }
    }

    /// The key union choices are kept under: the members, sorted, whatever order a type lists them.
    package static func key(of members: [String]) -> String {
        members.sorted().joined(separator: "|")
    }
}
