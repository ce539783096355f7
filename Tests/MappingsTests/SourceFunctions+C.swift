extension SourceFunctions {
    /// C's functions: each brace at the top level whose header (the lines above it back to a
    /// blank one, or one ending a declaration or a block) has a parameter list and no `=`.
    static func cFunctions(
        _ code: [UInt8], lines: [ArraySlice<UInt8>], lineStarts: [Int], closing: [Int: Int], lineOf: (Int) -> Int
    ) -> [Function] {
        var found: [Function] = []
        var offset = 0
        while offset < code.count {
            guard code[offset] == UInt8(ascii: "{"), let end = closing[offset] else {
                offset += 1
                continue
            }
            let braceLine = lineOf(offset)
            var first = braceLine
            while first > 0 {
                let previous = trimmed(lines[first - 1])
                if previous.isEmpty || previous.hasSuffix(";") || previous.hasSuffix("}") { break }
                first -= 1
            }
            if let name = cFunctionName(Array(code[lineStarts[first]..<offset])) {
                found.append(Function(name: name, line: first + 1, lines: lineOf(end) - first + 1))
            }
            offset = end + 1
        }
        return found
    }

    /// The name a top-level header declares a function by: the first identifier followed by a
    /// parenthesis (attributes left out), when no `=` stands outside parentheses (an initializer).
    static func cFunctionName(_ header: [UInt8]) -> String? {
        var depth = 0
        var name: String?
        var index = 0
        while index < header.count {
            let byte = header[index]
            if byte == UInt8(ascii: "(") { depth += 1 }
            if byte == UInt8(ascii: ")") { depth -= 1 }
            if byte == UInt8(ascii: "=") && depth == 0 { return nil }
            guard depth == 0, isIdentifier(byte), index == 0 || !isIdentifier(header[index - 1]) else {
                index += 1
                continue
            }
            var end = index
            while end < header.count && isIdentifier(header[end]) { end += 1 }
            var after = end
            while after < header.count && (header[after] == UInt8(ascii: " ") || header[after] == UInt8(ascii: "\n")) {
                after += 1
            }
            let word = String(decoding: header[index..<end], as: UTF8.self)
            if name == nil, after < header.count, header[after] == UInt8(ascii: "("), word != "__attribute__" {
                name = word
            }
            index = end
        }
        return name
    }
}
