/// Where a cursor stands in the text of a `.mappings` file, read from the text before it only,
/// so that it holds while the file is half typed: which keys enclose it, and whether it is at
/// a key or at a value (and of which key).
///
/// `mappings lsp` completes from it: keywords and properties at a key, names at a value.
package struct CursorPlace: Sendable, Equatable {
    package enum Role: Sendable, Equatable {
        /// Where a key is written (an object's member name).
        case key
        /// Where a value is written: the member's value, or an element of an array that is one.
        case value
    }

    /// The keys of the members that enclose the cursor, outermost first (`"[]"` for an array element).
    package var path: [String] = []
    package var role: Role = .value
    /// At a value: the key of the member it belongs to (through arrays), when there is one.
    package var key: String?
    /// Whether the cursor is inside a string (its quotes opened before it).
    package var inString = false
    /// The text typed between the opening quote and the cursor.
    package var prefix = ""
    /// The column (1-based, in scalars) where the text of the string under the cursor starts,
    /// or the cursor's own when it is not in a string.
    package var startColumn = 1

    private enum Frame {
        case object(key: String?, expectingKey: Bool)
        case array
    }

    /// Walks a text's Unicode scalars up to the cursor, counting lines and columns.
    private struct Scanner {
        let scalars: [Unicode.Scalar]
        let line: Int
        let column: Int
        var index = 0
        var currentLine = 1
        var currentColumn = 1

        var atEnd: Bool { index >= scalars.count }
        var atCursor: Bool { currentLine > line || (currentLine == line && currentColumn >= column) }

        func starts(_ first: Unicode.Scalar, _ second: Unicode.Scalar) -> Bool {
            index + 1 < scalars.count && scalars[index] == first && scalars[index + 1] == second
        }

        mutating func advance() {
            if scalars[index] == "\n" {
                currentLine += 1
                currentColumn = 1
            } else {
                currentColumn += 1
            }
            index += 1
        }

        /// Past a `/* … */` comment, or up to the cursor inside it.
        mutating func skipBlockComment() {
            advance()
            advance()
            while !atEnd, !atCursor {
                if starts("*", "/") {
                    advance()
                    advance()
                    return
                }
                advance()
            }
        }

        /// A string's text from its opening quote, up to its closing quote, the line's end or the
        /// cursor; whether it closed, and the column its text starts at.
        mutating func string() -> (text: String, closed: Bool, column: Int) {
            advance()
            let textColumn = currentColumn
            var string = ""
            while !atEnd, !atCursor {
                let next = scalars[index]
                if next == "\n" { break }
                if next == "\\", index + 1 < scalars.count {
                    advance()
                    string.unicodeScalars.append(scalars[index])
                    advance()
                    continue
                }
                if next == "\"" {
                    advance()
                    return (string, true, textColumn)
                }
                string.unicodeScalars.append(next)
                advance()
            }
            return (string, false, textColumn)
        }
    }

    /// The place of the cursor at `line` and `column` (1-based, columns in Unicode scalars).
    package init(text: String, line: Int, column: Int) {
        var frames: [Frame] = []
        var scanner = Scanner(scalars: Array(text.unicodeScalars), line: line, column: column)
        startColumn = column
        while !scanner.atEnd, !scanner.atCursor {
            switch scanner.scalars[scanner.index] {
            case "/" where scanner.starts("/", "/"):
                while !scanner.atEnd, scanner.scalars[scanner.index] != "\n", !scanner.atCursor { scanner.advance() }
                if scanner.atCursor {
                    finish(frames, inComment: true)
                    return
                }
            case "/" where scanner.starts("/", "*"):
                scanner.skipBlockComment()
            case "\"":
                let string = scanner.string()
                if !string.closed, scanner.atCursor || scanner.atEnd {
                    inString = true
                    prefix = string.text
                    startColumn = string.column
                    finish(frames, inComment: false)
                    return
                }
                if case .object(_, true) = frames.last {
                    frames[frames.count - 1] = .object(key: string.text, expectingKey: true)
                }
            case "{":
                frames.append(.object(key: nil, expectingKey: true))
                scanner.advance()
            case "[":
                frames.append(.array)
                scanner.advance()
            case "}", "]":
                if !frames.isEmpty { frames.removeLast() }
                scanner.advance()
            case ":":
                if case .object(let key, _) = frames.last {
                    frames[frames.count - 1] = .object(key: key, expectingKey: false)
                }
                scanner.advance()
            case ",":
                if case .object = frames.last { frames[frames.count - 1] = .object(key: nil, expectingKey: true) }
                scanner.advance()
            default:
                scanner.advance()
            }
        }
        finish(frames, inComment: false)
    }

    private mutating func finish(_ frames: [Frame], inComment: Bool) {
        path = []
        for frame in frames.dropLast() {
            switch frame {
            case .object(let key, _): path.append(key ?? "")
            case .array: path.append("[]")
            }
        }
        switch frames.last {
        case .object(let key, let expectingKey):
            role = expectingKey ? .key : .value
            self.key = expectingKey ? nil : key
        case .array:
            role = .value
            key = path.last(where: { $0 != "[]" })
        case nil:
            role = .value
            key = nil
        }
        if inComment { role = .value; key = nil; path = [] }
    }
}
