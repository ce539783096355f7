/// The one layout of `.mappings` files (`mappings fmt`): four spaces a level, one member a line,
/// members and elements in their order, strings and numbers as written, every comment kept
/// where it stands (before a member, after it on its line, or between its key, colon, value and
/// comma), a blank line between members kept (one), no trailing commas. The file's top level
/// and the values of its top-level members (the contexts, `@models`) are always one member a
/// line; a deeper object or array holding no comment is written on one line when that fits in
/// `width` columns. Formatting formatted text changes nothing; a file that is not valid UTF-8
/// is not laid out (its bytes would change).
package enum MappingsFormatter {
    package static let width = 100

    /// The text laid out, or `nil` when it is not a `.mappings` file's syntax (`check` says why).
    package static func format(_ text: String) -> String? {
        format(Array(text.utf8))
    }

    /// The bytes laid out, or `nil` when they are not valid UTF-8 or not a `.mappings` file's
    /// syntax (`check` says why).
    package static func format(_ bytes: [UInt8]) -> String? {
        guard SyntaxParser.firstInvalidUTF8(in: bytes) == nil, let tokens = tokenize(bytes) else { return nil }
        var reader = Reader(tokens: tokens)
        let leading = reader.comments()
        guard let root = reader.value() else { return nil }
        let trailing = reader.comments()
        guard reader.atEnd else { return nil }
        var out = ""
        for comment in leading { out += comment.text + "\n" }
        out += render(root, indent: 0, depth: 0)
        out += "\n"
        for comment in trailing { out += comment.text + "\n" }
        return out
    }

    /// Where the first byte that is not UTF-8 stands (1-based line and column), if any.
    package static func invalidUTF8(in bytes: [UInt8]) -> (line: Int, column: Int)? {
        guard let offset = SyntaxParser.firstInvalidUTF8(in: bytes) else { return nil }
        let before = bytes[..<offset]
        let line = before.reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
        let lineStart = before.lastIndex(of: 0x0A).map { $0 + 1 } ?? 0
        let column = 1 + bytes[lineStart..<offset].reduce(0) { $0 + ($1 & 0xC0 == 0x80 ? 0 : 1) }
        return (line, column)
    }

    // MARK: Tokens

    enum Kind: Equatable { case open(UInt8), close(UInt8), comma, colon, string, literal, comment }

    struct Token {
        var kind: Kind
        var text: String
        /// Line feeds between the previous token and this one.
        var newlines: Int
    }

    /// The tokens of `bytes`; `nil` for a string or block comment left open, or a byte no token starts with.
    static func tokenize(_ bytes: [UInt8]) -> [Token]? {
        var tokens: [Token] = []
        // A byte-order mark is no part of the layout.
        var index = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        var newlines = 0
        func text(_ range: Range<Int>) -> String { String(decoding: bytes[range], as: UTF8.self) }
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\n"):
                newlines += 1
                index += 1
                continue
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"):
                index += 1
                continue
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                tokens.append(Token(kind: .open(byte), text: text(index..<index + 1), newlines: newlines))
                index += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                tokens.append(Token(kind: .close(byte), text: text(index..<index + 1), newlines: newlines))
                index += 1
            case UInt8(ascii: ","):
                tokens.append(Token(kind: .comma, text: ",", newlines: newlines))
                index += 1
            case UInt8(ascii: ":"):
                tokens.append(Token(kind: .colon, text: ":", newlines: newlines))
                index += 1
            case UInt8(ascii: "\""):
                var end = index + 1
                while end < bytes.count, bytes[end] != UInt8(ascii: "\"") {
                    if bytes[end] == UInt8(ascii: "\n") { return nil }
                    end += bytes[end] == UInt8(ascii: "\\") ? 2 : 1
                }
                guard end < bytes.count else { return nil }
                tokens.append(Token(kind: .string, text: text(index..<end + 1), newlines: newlines))
                index = end + 1
            case UInt8(ascii: "/") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "/"):
                var end = index
                while end < bytes.count, bytes[end] != UInt8(ascii: "\n") { end += 1 }
                var comment = text(index..<end)
                while comment.last == " " || comment.last == "\t" || comment.last == "\r" { comment.removeLast() }
                tokens.append(Token(kind: .comment, text: comment, newlines: newlines))
                index = end
            case UInt8(ascii: "/") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "*"):
                var end = index + 2
                while end + 1 < bytes.count, !(bytes[end] == UInt8(ascii: "*") && bytes[end + 1] == UInt8(ascii: "/")) {
                    end += 1
                }
                guard end + 1 < bytes.count else { return nil }
                tokens.append(Token(kind: .comment, text: text(index..<end + 2), newlines: newlines))
                index = end + 2
            default:
                var end = index
                let stops: Set<UInt8> = Set(" \t\r\n{}[],:\"/".utf8)
                while end < bytes.count, !stops.contains(bytes[end]) { end += 1 }
                guard end > index else { return nil }
                tokens.append(Token(kind: .literal, text: text(index..<end), newlines: newlines))
                index = end
            }
            newlines = 0
        }
        return tokens
    }

    // MARK: Tree

    struct Comment {
        var text: String
    }

    struct Member {
        /// Comments on their own lines before the member.
        var leading: [Comment] = []
        /// Whether a blank line stood before the member (or its comments).
        var blankBefore = false
        /// The key as written (quotes included); `nil` for an array's element.
        var key: String?
        /// Comments between the key and its colon, and between the colon and the value.
        var afterKey: [Comment] = []
        var afterColon: [Comment] = []
        var value: Node
        /// Comments between the value and its comma.
        var afterValue: [Comment] = []
        /// A comment after the member on its line.
        var trailing: Comment?

        var holdsComments: Bool {
            !leading.isEmpty || !afterKey.isEmpty || !afterColon.isEmpty || !afterValue.isEmpty || trailing != nil
                || value.holdsComments
        }
    }

    /// A selector in its one written form, the function's name: AppCoreKit's
    /// `"coordinate2DFromDictionary:userData:error:"` is `"coordinate2DFromDictionary"` (what
    /// follows the first `:` never mattered: the function is named by what comes before it).
    static func canonical(_ value: Node, key: String?) -> Node {
        guard key == "\"@transformSelector\"" || key == "\"@reverseTransformSelector\"",
            case .scalar(let text) = value, text.hasPrefix("\""), let colon = text.firstIndex(of: ":"),
            text.index(after: text.startIndex) < colon
        else { return value }
        return .scalar(String(text[..<colon]) + "\"")
    }

    indirect enum Node {
        case scalar(String)
        /// An object (`close` `}`) or array (`]`), and the comments before its closing bracket.
        case container(open: String, close: String, members: [Member], dangling: [Comment])

        var holdsComments: Bool {
            guard case .container(_, _, let members, let dangling) = self else { return false }
            return !dangling.isEmpty || members.contains { $0.holdsComments }
        }
    }

    struct Reader {
        let tokens: [Token]
        var position = 0

        var atEnd: Bool { position >= tokens.count }

        private var next: Token? { position < tokens.count ? tokens[position] : nil }

        /// The comments here, each on its own line or not.
        mutating func comments() -> [Comment] {
            var found: [Comment] = []
            while let token = next, token.kind == .comment {
                found.append(Comment(text: token.text))
                position += 1
            }
            return found
        }

        /// The kind of the first token after the comments here.
        private func kindAfterComments() -> Kind? {
            var ahead = position
            while ahead < tokens.count, tokens[ahead].kind == .comment { ahead += 1 }
            return ahead < tokens.count ? tokens[ahead].kind : nil
        }

        mutating func value() -> Node? {
            guard let token = next else { return nil }
            position += 1
            switch token.kind {
            case .string, .literal: return .scalar(token.text)
            case .open(let bracket):
                let isObject = bracket == UInt8(ascii: "{")
                return container(isObject: isObject)
            default: return nil
            }
        }

        private mutating func container(isObject: Bool) -> Node? {
            var members: [Member] = []
            let close = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
            while true {
                let blank = (next?.newlines ?? 0) > 1
                let leading = comments()
                guard let token = next else { return nil }
                if token.kind == .close(close) {
                    position += 1
                    return .container(
                        open: isObject ? "{" : "[", close: isObject ? "}" : "]", members: members, dangling: leading)
                }
                var member = Member(leading: leading, blankBefore: blank || token.newlines > 1, value: .scalar(""))
                if isObject {
                    guard token.kind == .string else { return nil }
                    position += 1
                    member.key = token.text
                    member.afterKey = comments()
                    guard next?.kind == .colon else { return nil }
                    position += 1
                    member.afterColon = comments()
                }
                guard let value = value() else { return nil }
                member.value = MappingsFormatter.canonical(value, key: member.key)
                // Comments before a comma stand between the value and it; without a comma, the
                // first one on the value's line trails the member.
                let comma = kindAfterComments() == .comma
                if comma {
                    member.afterValue = comments()
                    position += 1
                }
                if let comment = next, comment.kind == .comment, comment.newlines == 0 {
                    member.trailing = Comment(text: comment.text)
                    position += 1
                }
                members.append(member)
                // Without a comma, only the closing bracket (after comments) may follow.
                if !comma, kindAfterComments() != .close(close) { return nil }
            }
        }
    }

    // MARK: Layout

    /// `node` at `indent` columns, `depth` levels below the top (where 0 and 1 always break).
    static func render(_ node: Node, indent: Int, depth: Int) -> String {
        guard case .container(let open, let close, let members, let dangling) = node else {
            if case .scalar(let text) = node { return text }
            return ""
        }
        if members.isEmpty, dangling.isEmpty { return open + close }
        if depth >= 2, !node.holdsComments, let line = oneLine(node), indent + line.count <= width {
            return line
        }
        let inner = String(repeating: " ", count: indent + 4)
        // A `//` comment inside a member ends its line: the member goes on one level deeper.
        let continued = "\n" + inner + "    "
        var out = open + "\n"
        for (offset, member) in members.enumerated() {
            if offset > 0, member.blankBefore { out += "\n" }
            for comment in member.leading { out += inner + comment.text + "\n" }
            out += inner
            if let key = member.key {
                out += key + inline(member.afterKey, continued) + ":" + " "
                out += inline(member.afterColon, continued, before: false)
            }
            out += render(member.value, indent: indent + 4, depth: depth + 1)
            out += inline(member.afterValue, continued)
            if offset < members.count - 1 { out += "," }
            if let trailing = member.trailing { out += " " + trailing.text }
            out += "\n"
        }
        for comment in dangling { out += inner + comment.text + "\n" }
        return out + String(repeating: " ", count: indent) + close
    }

    /// Comments inside a member, each set off by a space: before the next token (`before`) or
    /// after one; a `//` comment is followed by `continued` (a new line, indented), as it ends
    /// its line.
    static func inline(_ comments: [Comment], _ continued: String, before: Bool = true) -> String {
        var out = ""
        for comment in comments {
            out += before ? " " + comment.text : comment.text
            if comment.text.hasPrefix("//") {
                out += continued
            } else if !before {
                out += " "
            }
        }
        return out
    }

    /// `node` on one line: `{ "a": 1, "b": [1, 2] }`.
    static func oneLine(_ node: Node) -> String? {
        switch node {
        case .scalar(let text): return text
        case .container(let open, let close, let members, _):
            if members.isEmpty { return open + close }
            var parts: [String] = []
            for member in members {
                guard let value = oneLine(member.value) else { return nil }
                parts.append((member.key.map { $0 + ": " } ?? "") + value)
            }
            let body = parts.joined(separator: ", ")
            return open == "{" ? "{ " + body + " }" : "[" + body + "]"
        }
    }
}
