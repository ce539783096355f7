import Foundation

/// The functions of a C or Swift source file, each with how many lines it spans: from the first
/// line of its signature (attributes on lines of their own left out) to its closing brace.
///
/// The text is first read as code: comments, preprocessor lines (C), and the insides of string
/// and character literals become spaces, line feeds kept, so that no brace in them counts.
/// Swift's string interpolations are code again (their closures' braces are balanced), and its
/// raw (`#"…"#`) and multi-line (`"""`) strings are read as such.
struct SourceFunctions {
    enum Language { case c, swift }

    struct Function: Equatable, CustomStringConvertible {
        var name: String
        /// Its signature's first line, 1-based.
        var line: Int
        var lines: Int
        var description: String { "\(name) (line \(line), \(lines) lines)" }
    }

    var functions: [Function] = []
    /// Whether every brace of the code closes, and none closes what is not open: when not, the
    /// text was misread and its counts mean nothing.
    var balanced = true

    init(_ text: String, language: Language) {
        let code = language == .c ? Self.cCode(Array(text.utf8)) : Self.swiftCode(Array(text.utf8))
        var lineStarts = [0]
        for (offset, byte) in code.enumerated() where byte == UInt8(ascii: "\n") { lineStarts.append(offset + 1) }
        let lines = lineStarts.indices.map { index in
            code[lineStarts[index]..<(index + 1 < lineStarts.count ? lineStarts[index + 1] - 1 : code.count)]
        }
        let closing = Self.closingBraces(code)
        balanced = closing != nil
        guard let closing else { return }
        let lineOf = { (offset: Int) in Self.line(containing: offset, starts: lineStarts) }
        switch language {
        case .c:
            functions = Self.cFunctions(code, lines: lines, lineStarts: lineStarts, closing: closing, lineOf: lineOf)
        case .swift: functions = Self.swiftFunctions(code, lines: lines, lineStarts: lineStarts, closing: closing)
        }
    }

    // MARK: Reading the text as code

    /// The text with C's comments, preprocessor lines, and string and character literals blanked.
    static func cCode(_ text: [UInt8]) -> [UInt8] {
        var code = text
        var index = 0
        func blank(_ range: Range<Int>) {
            for offset in range where code[offset] != UInt8(ascii: "\n") { code[offset] = UInt8(ascii: " ") }
        }
        while index < text.count {
            let byte = text[index]
            let next = index + 1 < text.count ? text[index + 1] : 0
            if byte == UInt8(ascii: "#") && startsLine(text, at: index) {
                // A directive, with its continuation lines.
                var end = index
                while end < text.count && !(text[end] == UInt8(ascii: "\n") && text[end - 1] != UInt8(ascii: "\\")) {
                    end += 1
                }
                blank(index..<end)
                index = end
            } else if byte == UInt8(ascii: "/") && next == UInt8(ascii: "/") {
                let end = text[index...].firstIndex(of: UInt8(ascii: "\n")) ?? text.count
                blank(index..<end)
                index = end
            } else if byte == UInt8(ascii: "/") && next == UInt8(ascii: "*") {
                var end = index + 2
                while end + 1 < text.count && !(text[end] == UInt8(ascii: "*") && text[end + 1] == UInt8(ascii: "/")) {
                    end += 1
                }
                end = min(end + 2, text.count)
                blank(index..<end)
                index = end
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                var end = index + 1
                while end < text.count && text[end] != byte && text[end] != UInt8(ascii: "\n") {
                    end += text[end] == UInt8(ascii: "\\") ? 2 : 1
                }
                end = min(end + 1, text.count)
                blank(index..<end)
                index = end
            } else {
                index += 1
            }
        }
        return code
    }

    /// Whether only spaces and tabs come before `offset` on its line.
    static func startsLine(_ text: [UInt8], at offset: Int) -> Bool {
        var before = offset - 1
        while before >= 0 && (text[before] == UInt8(ascii: " ") || text[before] == UInt8(ascii: "\t")) { before -= 1 }
        return before < 0 || text[before] == UInt8(ascii: "\n")
    }

    /// The text with Swift's comments (nested ones too) and the insides of its string literals
    /// blanked; an interpolation's code is kept.
    static func swiftCode(_ text: [UInt8]) -> [UInt8] {
        var reader = SwiftReader(text: text)
        reader.readCode()
        return reader.code
    }

    /// The offset of the brace that closes each opening brace, by the opening brace's offset; nil
    /// when the braces do not balance.
    static func closingBraces(_ code: [UInt8]) -> [Int: Int]? {
        var open: [Int] = []
        var closing: [Int: Int] = [:]
        for (offset, byte) in code.enumerated() {
            if byte == UInt8(ascii: "{") { open.append(offset) }
            if byte == UInt8(ascii: "}") {
                guard let start = open.popLast() else { return nil }
                closing[start] = offset
            }
        }
        return open.isEmpty ? closing : nil
    }

    static func line(containing offset: Int, starts: [Int]) -> Int {
        var low = 0
        var high = starts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if starts[middle] <= offset { low = middle } else { high = middle - 1 }
        }
        return low
    }

    static func trimmed(_ line: ArraySlice<UInt8>) -> String {
        String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespaces)
    }

    static func isIdentifier(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
            || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_")
    }
}
