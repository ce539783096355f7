extension SourceFunctions {
    /// Reads Swift text as code: blanks comments (nested ones too) and the insides of string
    /// literals (raw and multi-line ones too), and reads an interpolation's code as code.
    struct SwiftReader {
        let text: [UInt8]
        /// The text, what is not code blanked (line feeds kept).
        var code: [UInt8]
        var index = 0

        init(text: [UInt8]) {
            self.text = text
            code = text
        }

        func byte(_ ahead: Int) -> UInt8 { index + ahead < text.count ? text[index + ahead] : 0 }

        mutating func blank(_ range: Range<Int>) {
            for offset in range.clamped(to: 0..<text.count) where code[offset] != UInt8(ascii: "\n") {
                code[offset] = UInt8(ascii: " ")
            }
        }

        /// Code, up to the end of the text or, in an interpolation, past the parenthesis that
        /// closes it.
        mutating func readCode(interpolation: Bool = false) {
            var parentheses = 0
            while index < text.count {
                let current = text[index]
                if current == UInt8(ascii: "/") && byte(1) == UInt8(ascii: "/") {
                    let end = text[index...].firstIndex(of: UInt8(ascii: "\n")) ?? text.count
                    blank(index..<end)
                    index = end
                    continue
                }
                if current == UInt8(ascii: "/") && byte(1) == UInt8(ascii: "*") {
                    readComment()
                    continue
                }
                if current == UInt8(ascii: "#") || current == UInt8(ascii: "\"") {
                    var hashes = 0
                    while byte(hashes) == UInt8(ascii: "#") { hashes += 1 }
                    if byte(hashes) == UInt8(ascii: "\"") {
                        readString(hashes: hashes)
                        continue
                    }
                }
                if interpolation && current == UInt8(ascii: "(") { parentheses += 1 }
                if interpolation && current == UInt8(ascii: ")") {
                    if parentheses == 0 {
                        index += 1
                        return
                    }
                    parentheses -= 1
                }
                index += 1
            }
        }

        /// A block comment, with the comments nested in it.
        mutating func readComment() {
            let start = index
            var depth = 0
            while index < text.count {
                if text[index] == UInt8(ascii: "/") && byte(1) == UInt8(ascii: "*") {
                    depth += 1
                    index += 2
                } else if text[index] == UInt8(ascii: "*") && byte(1) == UInt8(ascii: "/") {
                    depth -= 1
                    index += 2
                    if depth == 0 { break }
                } else {
                    index += 1
                }
            }
            blank(start..<index)
        }

        /// A string literal whose delimiter has `hashes` number signs, from its first one.
        mutating func readString(hashes: Int) {
            var blankFrom = index
            index += hashes
            let multiline =
                byte(0) == UInt8(ascii: "\"") && byte(1) == UInt8(ascii: "\"") && byte(2) == UInt8(ascii: "\"")
            let quotes = multiline ? 3 : 1
            index += quotes
            while index < text.count {
                if text[index] == UInt8(ascii: "\\") && (0..<hashes).allSatisfy({ byte(1 + $0) == UInt8(ascii: "#") }) {
                    let escaped = index + 1 + hashes
                    if escaped < text.count && text[escaped] == UInt8(ascii: "(") {
                        blank(blankFrom..<escaped + 1)
                        index = escaped + 1
                        readCode(interpolation: true)
                        blankFrom = index - 1  // its closing parenthesis
                        continue
                    }
                    index = escaped + 1
                    continue
                }
                if (0..<quotes).allSatisfy({ byte($0) == UInt8(ascii: "\"") })
                    && (0..<hashes).allSatisfy({ byte(quotes + $0) == UInt8(ascii: "#") })
                {
                    index += quotes + hashes
                    break
                }
                if !multiline && text[index] == UInt8(ascii: "\n") { break }
                index += 1
            }
            blank(blankFrom..<index)
        }
    }
}
