import MappingsJSON

/// Positions in a document's text, converted between the compiler's (1-based lines, columns in
/// Unicode scalars) and the protocol's (0-based lines, characters in UTF-16 code units, or in
/// UTF-8 bytes when the editor and the server agree on it).
struct TextPositions {
    enum Encoding: String {
        case utf16 = "utf-16"
        case utf8 = "utf-8"
        case utf32 = "utf-32"
    }

    let lines: [Substring]
    let encoding: Encoding

    init(_ text: String, encoding: Encoding) {
        lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        self.encoding = encoding
    }

    /// The protocol position of a 1-based line and scalar column.
    func position(line: Int, column: Int) -> JSONValue {
        let row = max(0, line - 1)
        var character = column - 1
        if row < lines.count {
            let scalars = lines[row].unicodeScalars.prefix(max(0, column - 1))
            character = scalars.reduce(0) { $0 + width(of: $1) }
            character += max(0, column - 1 - scalars.count)
        }
        return ["line": .integer(Int64(row)), "character": .integer(Int64(max(0, character)))]
    }

    /// The protocol range a location covers.
    func range(_ location: SourceLocation) -> JSONValue {
        [
            "start": position(line: location.line, column: location.column),
            "end": position(line: location.line, column: location.column + location.length),
        ]
    }

    /// From a location's start to the end of `end`.
    func range(from start: SourceLocation, through end: SourceLocation) -> JSONValue {
        [
            "start": position(line: start.line, column: start.column),
            "end": position(line: end.line, column: end.column + end.length),
        ]
    }

    /// The 1-based line and scalar column of a protocol position (clamped into the text).
    func place(_ position: JSONValue?) -> (line: Int, column: Int) {
        let row = max(0, position?.field("line")?.integer ?? 0)
        let character = max(0, position?.field("character")?.integer ?? 0)
        guard row < lines.count else { return (row + 1, 1) }
        var units = 0
        var column = 1
        for scalar in lines[row].unicodeScalars {
            if units >= character { break }
            units += width(of: scalar)
            column += 1
        }
        return (row + 1, column)
    }

    /// The range of the whole text.
    var whole: JSONValue {
        let last = lines.count - 1
        return [
            "start": ["line": 0, "character": 0],
            "end": position(line: last + 1, column: (lines.last?.unicodeScalars.count ?? 0) + 1),
        ]
    }

    private func width(of scalar: Unicode.Scalar) -> Int {
        switch encoding {
        case .utf16: scalar.utf16.count
        case .utf8: scalar.utf8.count
        case .utf32: 1
        }
    }
}
