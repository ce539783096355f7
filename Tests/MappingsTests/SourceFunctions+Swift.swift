extension SourceFunctions {
    /// Swift's functions, initializers, deinitializers and subscripts with a body, wherever they
    /// are declared (nested ones counted on their own too).
    static func swiftFunctions(
        _ code: [UInt8], lines: [ArraySlice<UInt8>], lineStarts: [Int], closing: [Int: Int]
    ) -> [Function] {
        var found: [Function] = []
        for (number, line) in lines.enumerated() {
            guard let (name, column) = swiftDeclaration(line),
                let body = swiftBody(code, from: lineStarts[number] + column, lines: lines, lineStarts: lineStarts),
                let end = closing[body]
            else { continue }
            found.append(
                Function(
                    name: name, line: number + 1, lines: Self.line(containing: end, starts: lineStarts) - number + 1))
        }
        return found
    }

    static let swiftModifiers: Set<String> = [
        "public", "package", "internal", "private", "fileprivate", "open", "static", "class", "final", "override",
        "mutating", "nonmutating", "nonisolated", "convenience", "required", "dynamic", "optional", "consuming",
        "borrowing", "isolated", "distributed",
    ]

    /// The name a line declares a function by, and where its keyword starts in the line; nil
    /// when the line declares no function.
    static func swiftDeclaration(_ line: ArraySlice<UInt8>) -> (name: String, column: Int)? {
        var index = line.startIndex
        func skipSpaces() {
            while index < line.endIndex && (line[index] == UInt8(ascii: " ") || line[index] == UInt8(ascii: "\t")) {
                index += 1
            }
        }
        func word() -> String {
            var end = index
            while end < line.endIndex && isIdentifier(line[end]) { end += 1 }
            return String(decoding: line[index..<end], as: UTF8.self)
        }
        func skipParentheses() {
            guard index < line.endIndex, line[index] == UInt8(ascii: "(") else { return }
            var depth = 0
            repeat {
                if line[index] == UInt8(ascii: "(") { depth += 1 }
                if line[index] == UInt8(ascii: ")") { depth -= 1 }
                index += 1
            } while depth > 0 && index < line.endIndex
        }
        skipSpaces()
        while index < line.endIndex {
            if line[index] == UInt8(ascii: "@") {
                index += 1
                index += word().utf8.count
                skipParentheses()
            } else if swiftModifiers.contains(word()) {
                index += word().utf8.count
                skipParentheses()  // private(set)
            } else {
                break
            }
            skipSpaces()
        }
        let column = index - line.startIndex
        let keyword = word()
        let after = index + keyword.utf8.count < line.endIndex ? line[index + keyword.utf8.count] : UInt8(ascii: " ")
        switch keyword {
        case "func":
            index += 4
            skipSpaces()
            var end = index
            while end < line.endIndex && ![UInt8(ascii: "("), UInt8(ascii: "<"), UInt8(ascii: " ")].contains(line[end])
            {
                end += 1
            }
            return end > index ? (String(decoding: line[index..<end], as: UTF8.self), column) : nil
        case "init" where [UInt8(ascii: "("), UInt8(ascii: "?"), UInt8(ascii: "!"), UInt8(ascii: "<")].contains(after):
            return ("init", column)
        case "subscript" where after == UInt8(ascii: "(") || after == UInt8(ascii: "<"):
            return ("subscript", column)
        case "deinit" where after == UInt8(ascii: " ") || after == UInt8(ascii: "{"):
            return ("deinit", column)
        default:
            return nil
        }
    }

    /// The offset of the brace that opens the body of the declaration starting at `start`, or
    /// nil when it has none (a protocol's requirement): the signature may go on over lines that
    /// continue it (`->`, `throws`, `where`, a parenthesis still open, a line ending in `,`).
    static func swiftBody(_ code: [UInt8], from start: Int, lines: [ArraySlice<UInt8>], lineStarts: [Int]) -> Int? {
        var depth = 0
        var offset = start
        let continuations = ["->", "throws", "rethrows", "async", "where", "{", "&", ","]
        while offset < code.count {
            switch code[offset] {
            case UInt8(ascii: "("), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: ")"), UInt8(ascii: "]"): depth -= 1
            case UInt8(ascii: "{") where depth == 0: return offset
            case UInt8(ascii: "}") where depth == 0: return nil
            case UInt8(ascii: "\n") where depth == 0:
                let number = line(containing: offset, starts: lineStarts)
                let ending = trimmed(lines[number])
                guard let next = lines[(number + 1)...].lazy.map(trimmed).first(where: { !$0.isEmpty }) else {
                    return nil
                }
                if !continuations.contains(where: { next.hasPrefix($0) || ending.hasSuffix($0) }) { return nil }
            default: break
            }
            offset += 1
        }
        return nil
    }
}
