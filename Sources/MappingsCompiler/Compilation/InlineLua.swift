package import MappingsJSON

/// Lua code written in a `.mappings` file as a string (`@lua`, `@reverseLua`, `@luaPrelude`,
/// `@filter`) or handed over by a Swift host, with what places a position of the code in the
/// file: messages about it name the file's line and column, inside the string.
package struct InlineLuaCode: Sendable, Hashable {
    /// The code, as the string's value.
    package let code: String
    /// Where the string is written: its opening quote (for a host's code, the call site).
    package let location: SourceLocation
    /// The string literal as written, quotes included, when the file's text is known; `nil` for
    /// a host's code, whose positions are then the call site.
    package let literal: String?

    package init(code: String, location: SourceLocation, literal: String?) {
        self.code = code
        self.location = location
        self.literal = literal
    }

    /// The code of `node` (a string), with its literal taken from `texts` (the files' texts).
    init(_ node: SyntaxNode, code: String, texts: [String: String]) {
        let location = node.location
        var literal: String?
        if let text = texts[location.file] {
            // Lines by scalars: a "\r\n" is one Character, which a Character split would not cut.
            let lines = text.unicodeScalars.split(
                separator: "\n", maxSplits: location.line, omittingEmptySubsequences: false)
            if location.line - 1 < lines.count {
                let scalars = Array(lines[location.line - 1])
                let start = location.column - 1
                if start >= 0, start + location.length <= scalars.count {
                    var view = String.UnicodeScalarView()
                    view.append(contentsOf: scalars[start..<start + location.length])
                    literal = String(view)
                }
            }
        }
        self.init(code: code, location: location, literal: literal)
    }

    /// The place in the file of the code's scalar at `offset` (`offset == count`: just past the
    /// end): the column inside the string, escapes counted as written. Without the literal, the
    /// string's place.
    package func place(ofOffset offset: Int) -> SourceLocation {
        guard let literal else { return location }
        let raw = Array(literal.unicodeScalars)
        var column = 1  // past the opening quote
        var decoded = 0
        while decoded < offset, column < raw.count - 1 {
            if raw[column] == "\\" {
                if column + 1 < raw.count, raw[column + 1] == "u" {
                    // A surrogate pair is two escapes for one scalar.
                    let pair =
                        column + 11 < raw.count && raw[column + 6] == "\\" && raw[column + 7] == "u"
                        && Self.isHighSurrogate(raw[(column + 2)..<(column + 6)])
                    column += pair ? 12 : 6
                } else {
                    column += 2
                }
            } else {
                column += 1
            }
            decoded += 1
        }
        return SourceLocation(file: location.file, line: location.line, column: location.column + column)
    }

    /// The place of column `column` (1-based) of line `line` (1-based) of the code.
    package func place(line: Int, column: Int = 1) -> SourceLocation {
        var offset = 0
        var current = 1
        for scalar in code.unicodeScalars {
            if current == line { break }
            offset += 1
            if scalar == "\n" { current += 1 }
        }
        return place(ofOffset: offset + max(0, column - 1))
    }

    /// The code's line `line` (1-based), for messages.
    package func line(_ line: Int) -> Substring? {
        let lines = code.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false)
        return line >= 1 && line <= lines.count ? Substring(lines[line - 1]) : nil
    }

    private static func isHighSurrogate(_ hex: ArraySlice<Unicode.Scalar>) -> Bool {
        guard let value = UInt32(String(String.UnicodeScalarView(hex)), radix: 16) else { return false }
        return (0xD800...0xDBFF).contains(value)
    }
}

/// An entry's inline Lua (`@lua` or `@reverseLua`) and the prelude of the file it is written in.
///
/// A class, compared by value: a transformer reference holding it is copied for every call a
/// record makes, and one reference counts once where its strings counted each.
package final class InlineLua: Sendable, Hashable {
    /// `@lua`, `@reverseLua` or `@filter`: what messages call it.
    package let keyword: String
    package let code: InlineLuaCode
    /// The file's `@luaPrelude`, which the code sees.
    package let prelude: InlineLuaCode?

    package init(keyword: String, code: InlineLuaCode, prelude: InlineLuaCode?) {
        self.keyword = keyword
        self.code = code
        self.prelude = prelude
    }

    package static func == (left: InlineLua, right: InlineLua) -> Bool {
        left === right || (left.keyword == right.keyword && left.code == right.code && left.prelude == right.prelude)
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(keyword)
        hasher.combine(code)
        hasher.combine(prelude)
    }
}
