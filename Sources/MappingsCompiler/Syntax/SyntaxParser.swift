import MappingsJSON
import MappingsModel

/// Reads the text of a `.mappings` file into a `SyntaxNode` tree.
///
/// The syntax is JSON with `//` and `/* */` comments and trailing commas, strict otherwise.
/// Parsing stops at the first syntax error (what follows it cannot be trusted), but a
/// duplicate key does not stop it: every duplicate is reported, each naming both places.
package struct SyntaxParser {
    /// How deeply objects and arrays may nest before the file is refused rather than risk the stack.
    package static let maximumDepth = 128

    private let bytes: [UInt8]
    private let file: String
    private var index = 0
    private var line = 1
    private var lineStart = 0
    private var depth = 0
    private(set) var diagnostics: [Diagnostic] = []

    private struct Failure: Error {}

    init(text: String, file: String) {
        self.bytes = Array(text.utf8)
        self.file = file
    }

    init(bytes: [UInt8], file: String) {
        self.bytes = bytes
        self.file = file
    }

    /// Parses the whole text; `nil` when it has a syntax error (then `diagnostics` says which).
    mutating func parse() -> SyntaxNode? {
        if let bad = Self.firstInvalidUTF8(in: bytes) {
            jump(to: bad)
            diagnostics.append(error("the file is not valid UTF-8", at: location()))
            return nil
        }
        index = JSONEscape.textStart(of: bytes)
        lineStart = index
        do {
            try skipTrivia()
            if index == bytes.count {
                diagnostics.append(
                    error("the file is empty", at: location(), help: "a .mappings file holds one JSON object: `{ … }`"))
                return nil
            }
            let root = try parseValue()
            try skipTrivia()
            if index < bytes.count {
                diagnostics.append(
                    error(
                        "unexpected text after the end of the top-level value", at: location(),
                        help: "a .mappings file holds exactly one JSON object"))
                return nil
            }
            return root
        } catch {
            return nil
        }
    }

    // MARK: Values

    private mutating func parseValue() throws(Failure) -> SyntaxNode {
        guard index < bytes.count else { throw fail("unexpected end of file: a value was expected") }
        let start = location()
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""):
            let (string, length) = try parseString()
            var at = start
            at.length = length
            return SyntaxNode(.string(string), at: at)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return try parseNumber()
        case UInt8(ascii: "t"): return try parseLiteral("true", .bool(true))
        case UInt8(ascii: "f"): return try parseLiteral("false", .bool(false))
        case UInt8(ascii: "n"): return try parseLiteral("null", .null)
        case UInt8(ascii: "'"):
            throw fail("strings are written in double quotes", help: "replace the single quotes with double quotes")
        default:
            throw unexpected(expecting: "a value")
        }
    }

    private mutating func parseObject() throws(Failure) -> SyntaxNode {
        let start = location()
        try enter()
        index += 1
        var members: [SyntaxMember] = []
        var seen: [CodePointKey: SourceLocation] = [:]
        try skipTrivia()
        while true {
            guard index < bytes.count else {
                throw fail("unexpected end of file: this object is not closed", at: start, help: "add the closing '}'")
            }
            if bytes[index] == UInt8(ascii: "}") { index += 1; break }
            guard bytes[index] == UInt8(ascii: "\"") else {
                if isIdentifierStart(bytes[index]) {
                    let word = peekWord()
                    throw fail("object keys are written in double quotes", help: "write \"\(word)\"")
                }
                if bytes[index] == UInt8(ascii: "'") {
                    throw fail(
                        "object keys are written in double quotes", help: "replace the single quotes with double quotes"
                    )
                }
                throw unexpected(expecting: "a key in double quotes or '}'")
            }
            var keyLocation = location()
            let (key, length) = try parseString()
            keyLocation.length = length
            try skipTrivia()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw unexpected(expecting: "':' after the key \"\(key)\"")
            }
            index += 1
            try skipTrivia()
            let value = try parseValue()
            // Where a missing comma belongs: right after the value, not at the next member.
            let afterValue = location()
            if let first = seen[CodePointKey(key)] {
                diagnostics.append(
                    Diagnostic(
                        message: "duplicate key \"\(key)\"", location: keyLocation,
                        notes: [Diagnostic.Note(message: "first defined here", location: first)],
                        help: "remove one of the two, or merge them into one"))
            } else {
                seen[CodePointKey(key)] = keyLocation
                members.append(SyntaxMember(key: key, keyLocation: keyLocation, value: value))
            }
            try skipTrivia()
            guard index < bytes.count else {
                throw fail("unexpected end of file: this object is not closed", at: start, help: "add the closing '}'")
            }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                try skipTrivia()
                continue
            }
            if bytes[index] == UInt8(ascii: "}") { index += 1; break }
            if bytes[index] == UInt8(ascii: "\"") {
                throw missingComma(after: afterValue, closer: "}", between: "member")
            }
            throw unexpected(expecting: "',' or '}'")
        }
        depth -= 1
        return SyntaxNode(.object(members), at: start)
    }

    private mutating func parseArray() throws(Failure) -> SyntaxNode {
        let start = location()
        try enter()
        index += 1
        var elements: [SyntaxNode] = []
        try skipTrivia()
        while true {
            guard index < bytes.count else {
                throw fail("unexpected end of file: this array is not closed", at: start, help: "add the closing ']'")
            }
            if bytes[index] == UInt8(ascii: "]") { index += 1; break }
            elements.append(try parseValue())
            let afterValue = location()
            try skipTrivia()
            guard index < bytes.count else {
                throw fail("unexpected end of file: this array is not closed", at: start, help: "add the closing ']'")
            }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                try skipTrivia()
                continue
            }
            if bytes[index] == UInt8(ascii: "]") { index += 1; break }
            if [UInt8(ascii: "\""), UInt8(ascii: "{"), UInt8(ascii: "[")].contains(bytes[index]) {
                throw missingComma(after: afterValue, closer: "]", between: "element")
            }
            throw unexpected(expecting: "',' or ']'")
        }
        depth -= 1
        return SyntaxNode(.array(elements), at: start)
    }

    private mutating func enter() throws(Failure) {
        depth += 1
        if depth > Self.maximumDepth {
            throw fail("objects and arrays nest more than \(Self.maximumDepth) levels deep")
        }
    }

    /// Reads a string literal; returns its value and how many columns the literal spans.
    private mutating func parseString() throws(Failure) -> (String, Int) {
        let start = location()
        let startIndex = index
        index += 1
        var scalars = String.UnicodeScalarView()
        var runStart = index
        func flush(_ end: Int) {
            if end > runStart {
                scalars.append(contentsOf: String(decoding: bytes[runStart..<end], as: UTF8.self).unicodeScalars)
            }
        }
        while true {
            guard index < bytes.count else {
                throw fail("unexpected end of file: this string is not closed", at: start, help: "add the closing '\"'")
            }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                flush(index)
                index += 1
                break
            }
            if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") {
                throw fail(
                    "this string is not closed before the end of the line", at: start,
                    help: "add the closing '\"', or write a line break as \\n")
            }
            if byte < 0x20 {
                throw fail(
                    "a control character must be escaped inside a string", help: "write it as \\u\(hex4(UInt32(byte)))")
            }
            if byte == UInt8(ascii: "\\") {
                flush(index)
                index += 1
                guard index < bytes.count else { throw fail("unexpected end of file inside an escape") }
                let escape = bytes[index]
                index += 1
                if let character = JSONEscape.character(after: escape) {
                    scalars.append(character)
                } else if escape == UInt8(ascii: "u") {
                    scalars.append(try parseUnicodeEscape())
                } else {
                    index -= 2
                    throw fail(
                        "unknown escape sequence '\\\(Character(Unicode.Scalar(escape)))'",
                        help: "valid escapes are \\\" \\\\ \\/ \\b \\f \\n \\r \\t and \\uXXXX")
                }
                runStart = index
                continue
            }
            index += 1
        }
        let length = columns(from: startIndex, to: index)
        return (String(scalars), length)
    }

    private mutating func parseUnicodeEscape() throws(Failure) -> Unicode.Scalar {
        let escapeStart = index - 2
        let high = try hexQuad(escapeStart)
        if JSONEscape.isHighSurrogate(high) {
            guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
            else {
                jump(to: escapeStart)
                throw fail("a high surrogate \\u\(hex4(high)) must be followed by a low surrogate")
            }
            index += 2
            let low = try hexQuad(escapeStart)
            guard let scalar = JSONEscape.scalar(high: high, low: low) else {
                jump(to: escapeStart)
                throw fail("a high surrogate \\u\(hex4(high)) must be followed by a low surrogate")
            }
            return scalar
        }
        guard let scalar = Unicode.Scalar(high) else {
            jump(to: escapeStart)
            throw fail("a lone low surrogate \\u\(hex4(high)) is not a character")
        }
        return scalar
    }

    private mutating func hexQuad(_ escapeStart: Int) throws(Failure) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard index < bytes.count, let digit = hexDigit(bytes[index]) else {
                jump(to: escapeStart)
                throw fail("\\u must be followed by four hexadecimal digits")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    private mutating func parseNumber() throws(Failure) -> SyntaxNode {
        var at = location()
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw fail("a number needs digits after '-'") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) {
                throw fail("numbers do not start with a leading zero", at: at)
            }
        } else {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw fail("a number needs digits after '.'") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard index < bytes.count, isDigit(bytes[index]) else {
                throw fail("a number needs digits in its exponent")
            }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        at.length = index - start
        return SyntaxNode(.number(String(decoding: bytes[start..<index], as: UTF8.self)), at: at)
    }

    private mutating func parseLiteral(_ word: String, _ kind: SyntaxNode.Kind) throws(Failure) -> SyntaxNode {
        var at = location()
        let utf8 = Array(word.utf8)
        guard bytes.count - index >= utf8.count, Array(bytes[index..<index + utf8.count]) == utf8,
            index + utf8.count == bytes.count || !isIdentifierPart(bytes[index + utf8.count])
        else {
            throw unexpected(expecting: "a value")
        }
        index += utf8.count
        at.length = utf8.count
        return SyntaxNode(kind, at: at)
    }

    // MARK: Trivia

    private mutating func skipTrivia() throws(Failure) {
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"):
                index += 1
            case UInt8(ascii: "\n"):
                index += 1
                line += 1
                lineStart = index
            case UInt8(ascii: "/") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "/"):
                while index < bytes.count, bytes[index] != UInt8(ascii: "\n") { index += 1 }
            case UInt8(ascii: "/") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "*"):
                let start = location()
                index += 2
                while true {
                    guard index + 1 < bytes.count else {
                        throw fail("this block comment is not closed", at: start, help: "add the closing '*/'")
                    }
                    if bytes[index] == UInt8(ascii: "*"), bytes[index + 1] == UInt8(ascii: "/") { index += 2; break }
                    if bytes[index] == UInt8(ascii: "\n") { line += 1; lineStart = index + 1 }
                    index += 1
                }
            default:
                return
            }
        }
    }

    // MARK: Positions and errors

    private func location() -> SourceLocation {
        SourceLocation(file: file, line: line, column: columns(from: lineStart, to: index) + 1)
    }

    /// Counts Unicode scalars (bytes that start one) in `start..<end`.
    private func columns(from start: Int, to end: Int) -> Int {
        var count = 0
        var i = start
        while i < end && i < bytes.count {
            if bytes[i] & 0xC0 != 0x80 { count += 1 }
            i += 1
        }
        return count
    }

    /// Moves to `offset`, recounting the line (used only to place an error).
    private mutating func jump(to offset: Int) {
        line = 1
        lineStart = 0
        for i in 0..<min(offset, bytes.count) where bytes[i] == UInt8(ascii: "\n") {
            line += 1
            lineStart = i + 1
        }
        index = offset
    }

    private func error(_ message: String, at location: SourceLocation, help: String? = nil) -> Diagnostic {
        Diagnostic(message: message, location: location, help: help)
    }

    /// A value followed by the next one without a comma: said right after the value, where the
    /// comma belongs, with a note where the next `member` or element starts.
    private mutating func missingComma(after value: SourceLocation, closer: String, between what: String) -> Failure {
        diagnostics.append(
            Diagnostic(
                message: "expected ',' or '\(closer)' after this value", location: value,
                notes: [Diagnostic.Note(message: "the next \(what) starts here", location: location())],
                help: "add a ',' here, between the \(what)s"))
        return Failure()
    }

    private mutating func fail(_ message: String, at location: SourceLocation? = nil, help: String? = nil) -> Failure {
        diagnostics.append(error(message, at: location ?? self.location(), help: help))
        return Failure()
    }

    private mutating func unexpected(expecting expected: String) -> Failure {
        guard index < bytes.count else { return fail("unexpected end of file: expected \(expected)") }
        let scalar =
            String(decoding: bytes[index..<min(bytes.count, index + 4)], as: UTF8.self).unicodeScalars.first ?? "?"
        let shown =
            scalar.properties.isWhitespace || scalar.value < 0x20
            ? "U+\(hex4(scalar.value))" : "'\(Character(scalar))'"
        if scalar == "]" || scalar == "}" || scalar == "," {
            return fail("unexpected \(shown): expected \(expected)")
        }
        return fail("unexpected character \(shown): expected \(expected)")
    }

    private func peekWord() -> String {
        var end = index
        while end < bytes.count, isIdentifierPart(bytes[end]) { end += 1 }
        return String(decoding: bytes[index..<end], as: UTF8.self)
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private func isIdentifierStart(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") || byte == UInt8(ascii: "_")
            || byte == UInt8(ascii: "$") || byte == UInt8(ascii: "@")
    }

    private func isIdentifierPart(_ byte: UInt8) -> Bool { isIdentifierStart(byte) || isDigit(byte) }

    private func hexDigit(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    private func hex4(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    /// The offset of the first byte that breaks UTF-8, or `nil` when the bytes are valid.
    static func firstInvalidUTF8(in bytes: [UInt8]) -> Int? {
        var i = 0
        while i < bytes.count {
            let byte = bytes[i]
            if byte < 0x80 { i += 1; continue }
            let count: Int
            var minimum: UInt32
            var scalar: UInt32
            switch byte {
            case 0xC2...0xDF: count = 1; minimum = 0x80; scalar = UInt32(byte & 0x1F)
            case 0xE0...0xEF: count = 2; minimum = 0x800; scalar = UInt32(byte & 0x0F)
            case 0xF0...0xF4: count = 3; minimum = 0x10000; scalar = UInt32(byte & 0x07)
            default: return i
            }
            guard i + count < bytes.count else { return i }
            for k in 1...count {
                let next = bytes[i + k]
                guard next & 0xC0 == 0x80 else { return i }
                scalar = scalar << 6 | UInt32(next & 0x3F)
            }
            if scalar < minimum || scalar > 0x10FFFF || (0xD800...0xDFFF).contains(scalar) { return i }
            i += count + 1
        }
        return nil
    }
}
