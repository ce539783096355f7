import MappingsJSON

/// Parses the type syntax of `@models`: `T`, `T?`, `[T]`, `[String: T]`, `{T}`, nested freely, and
/// unions of models: `Circle | Rect`, `[Circle | Rect]`, `[String: Circle | Rect]`, and
/// `(Circle | Rect)?` for an optional one (`Circle | Rect?` is refused: the `?` would read as
/// belonging to `Rect` alone).
///
/// Names are not checked here (a model may be declared after it is used); the caller checks
/// `modelNames` once every model is known.
package struct TypeParser {
    package struct Failure: Error {
        package var message: String
        /// Offset, in characters, into the type text.
        package var offset: Int
        package var length: Int
        package var help: String?
    }

    private let characters: [Character]
    private var index = 0

    init(_ text: String) {
        self.characters = Array(text)
    }

    package static func parse(_ text: String) throws(Failure) -> TypeReference {
        var parser = TypeParser(text)
        parser.skipSpaces()
        let type = try parser.parseType()
        parser.skipSpaces()
        guard parser.index == parser.characters.count else {
            throw Failure(
                message: "unexpected \"\(String(parser.characters[parser.index...]))\" after the type",
                offset: parser.index, length: parser.characters.count - parser.index, help: nil)
        }
        return type
    }

    /// A type, or a union of models separated by `|`.
    private mutating func parseType() throws(Failure) -> TypeReference {
        let start = index
        let first = try parseSingle()
        skipSpaces()
        guard index < characters.count, characters[index] == "|" else { return first }
        var members = [try unionMember(first, at: start)]
        while index < characters.count, characters[index] == "|" {
            index += 1
            skipSpaces()
            let at = index
            let single = try parseSingle()
            let member = try unionMember(single, at: at)
            if members.contains(member) {
                throw Failure(
                    message: "\"\(member)\" is listed twice in the union", offset: at, length: member.count,
                    help: "remove one of them")
            }
            members.append(member)
            skipSpaces()
        }
        return .union(members)
    }

    /// The model name a union member names; throws for anything else.
    private func unionMember(_ type: TypeReference, at offset: Int) throws(Failure) -> String {
        let length = max(1, index - offset)
        switch type {
        case .model(let name): return name
        case .optional:
            throw Failure(
                message: "a member of a union is not optional on its own", offset: offset, length: length,
                help: "make the whole union optional: (A | B)?")
        case .union:
            throw Failure(
                message: "a union does not nest in another", offset: offset, length: length,
                help: "list every member once: A | B | C")
        default:
            throw Failure(
                message: "a union's members are models, not \(type)", offset: offset, length: length,
                help: "declare a model for each case and list the models: Circle | Rect")
        }
    }

    /// A type without `|` at its top: a name, `[…]`, `(…)`, each with an optional `?`.
    private mutating func parseSingle() throws(Failure) -> TypeReference {
        var type: TypeReference
        guard index < characters.count else {
            throw Failure(
                message: "a type is missing", offset: index, length: 1,
                help: "write a type such as String, Int, [String] or UserModel")
        }
        switch characters[index] {
        case "(":
            type = try enclosed(closing: ")") { parser, _ throws(Failure) in try parser.parseType() }
        case "[":
            type = try enclosed(closing: "]") { parser, open throws(Failure) in try parser.parseCollection(open: open) }
        case "{":
            type = .set(try enclosed(closing: "}") { parser, _ throws(Failure) in try parser.parseType() })
        default:
            type = try parseName()
        }
        skipSpaces()
        if index < characters.count, characters[index] == "?" {
            index += 1
            skipSpaces()
            if index < characters.count, characters[index] == "?" {
                throw Failure(
                    message: "a type is optional once: \"??\" is one \"?\" too many", offset: index,
                    length: 1, help: nil)
            }
            type = .optional(type)
        }
        return type
    }

    /// What `inner` parses between the bracket at `index` and `closing`.
    private mutating func enclosed(
        closing: Character, _ inner: (inout TypeParser, Int) throws(Failure) -> TypeReference
    ) throws(Failure) -> TypeReference {
        let open = index
        let opening = characters[open]
        index += 1
        skipSpaces()
        let type = try inner(&self, open)
        skipSpaces()
        guard index < characters.count, characters[index] == closing else {
            throw Failure(
                message: "this \"\(opening)\" is not closed", offset: open, length: 1,
                help: "add the closing \"\(closing)\"")
        }
        index += 1
        return type
    }

    /// The inside of `[…]` (its `[` at `open`): an array's element, or a dictionary's `String: value`.
    private mutating func parseCollection(open: Int) throws(Failure) -> TypeReference {
        let first = try parseType()
        skipSpaces()
        guard index < characters.count, characters[index] == ":" else { return .array(first) }
        guard first == .string else {
            throw Failure(
                message: "dictionary keys are String, not \(first)", offset: open + 1, length: 1,
                help: "write [String: T]")
        }
        index += 1
        skipSpaces()
        let value = try parseType()
        return .dictionary(value)
    }

    /// A scalar's or a model's name.
    private mutating func parseName() throws(Failure) -> TypeReference {
        let start = index
        while index < characters.count,
            characters[index].isLetter || characters[index].isNumber || characters[index] == "_"
        {
            index += 1
        }
        guard index > start else {
            throw Failure(
                message: "unexpected \"\(characters[index])\" where a type was expected",
                offset: index, length: 1, help: "write a type such as String, Int, [String] or UserModel")
        }
        let name = String(characters[start..<index])
        return TypeReference.scalars[name] ?? .model(name)
    }

    private mutating func skipSpaces() {
        while index < characters.count, characters[index] == " " { index += 1 }
    }
}
