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

    /// The place of the cursor at `line` and `column` (1-based, columns in Unicode scalars).
    package init(text: String, line: Int, column: Int) {
        var frames: [Frame] = []
        var currentLine = 1
        var currentColumn = 1
        let scalars = Array(text.unicodeScalars)
        var index = 0
        func atCursor() -> Bool {
            currentLine > line || (currentLine == line && currentColumn >= column)
        }
        func advance() {
            if scalars[index] == "\n" {
                currentLine += 1
                currentColumn = 1
            } else {
                currentColumn += 1
            }
            index += 1
        }
        startColumn = column
        while index < scalars.count, !atCursor() {
            let scalar = scalars[index]
            switch scalar {
            case "/" where index + 1 < scalars.count && scalars[index + 1] == "/":
                while index < scalars.count, scalars[index] != "\n", !atCursor() { advance() }
                if atCursor() {
                    finish(frames, inComment: true)
                    return
                }
            case "/" where index + 1 < scalars.count && scalars[index + 1] == "*":
                advance()
                advance()
                while index < scalars.count, !atCursor() {
                    if scalars[index] == "*", index + 1 < scalars.count, scalars[index + 1] == "/" {
                        advance()
                        advance()
                        break
                    }
                    advance()
                }
            case "\"":
                advance()
                let textColumn = currentColumn
                var string = ""
                var closed = false
                while index < scalars.count, !atCursor() {
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
                        closed = true
                        break
                    }
                    string.unicodeScalars.append(next)
                    advance()
                }
                if !closed, atCursor() || index == scalars.count {
                    inString = true
                    prefix = string
                    startColumn = textColumn
                    finish(frames, inComment: false)
                    return
                }
                if case .object(_, true) = frames.last {
                    frames[frames.count - 1] = .object(key: string, expectingKey: true)
                }
            case "{":
                frames.append(.object(key: nil, expectingKey: true))
                advance()
            case "[":
                frames.append(.array)
                advance()
            case "}", "]":
                if !frames.isEmpty { frames.removeLast() }
                advance()
            case ":":
                if case .object(let key, _) = frames.last {
                    frames[frames.count - 1] = .object(key: key, expectingKey: false)
                }
                advance()
            case ",":
                if case .object = frames.last { frames[frames.count - 1] = .object(key: nil, expectingKey: true) }
                advance()
            default:
                advance()
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
