import MappingsJSON
import MappingsModel

/// Prints diagnostics the way rustc and swift-parsing do: summary, location, source line, caret.
///
/// This is the only place that turns a `Diagnostic` into text, so every message of the
/// loader and the tool looks the same:
/// ```
/// error: duplicate key "name"
///  --> contexts/tweets.mappings:7:9
///   |
/// 7 |         "name": "user.screen_name",
///   |         ^^^^^^
///   = note: first defined here
///  --> contexts/tweets.mappings:5:9
///   |
/// 5 |         "name": "user.name",
///   |         ^^^^^^
///   = help: remove one of the two, or merge them into one
/// ```
package struct DiagnosticRenderer: Sendable {
    /// The texts of the files the diagnostics point into, by the path they name.
    package var sources: [String: String]

    package init(sources: [String: String] = [:]) {
        self.sources = sources
    }

    /// Renders every diagnostic, separated by blank lines.
    package func render(_ diagnostics: [Diagnostic]) -> String {
        diagnostics.map { render($0) }.joined(separator: "\n\n")
    }

    /// Renders one diagnostic, without a trailing newline; `severity` starts it (`error`, `note`).
    package func render(_ diagnostic: Diagnostic, severity: String = "error") -> String {
        let lines = [diagnostic.location?.line ?? 0] + diagnostic.notes.map { $0.location?.line ?? 0 }
        let gutter = String(lines.max() ?? 0).count
        var out: [String] = ["\(severity): \(diagnostic.message)"]
        if let location = diagnostic.location {
            out += snippet(location, gutter: gutter)
        }
        for note in diagnostic.notes {
            out.append("\(pad(gutter)) = note: \(note.message)")
            if let location = note.location {
                out += snippet(location, gutter: gutter)
            }
        }
        if let help = diagnostic.help {
            out.append("\(pad(gutter)) = help: \(help)")
        }
        return out.joined(separator: "\n")
    }

    private func snippet(_ location: SourceLocation, gutter: Int) -> [String] {
        var out = ["\(pad(gutter))--> \(location)"]
        guard let text = sourceLine(location) else { return out }
        out.append("\(pad(gutter)) |")
        let number = String(location.line)
        out.append("\(pad(gutter - number.count))\(number) | \(text)")
        let prefix = text.unicodeScalars.prefix(location.column - 1).map { $0 == "\t" ? "\t" : " " }.joined()
        let available = max(1, text.unicodeScalars.count - (location.column - 1))
        out.append("\(pad(gutter)) | \(prefix)\(String(repeating: "^", count: min(location.length, available)))")
        return out
    }

    private func sourceLine(_ location: SourceLocation) -> String? {
        guard let source = sources[location.file], location.line >= 1 else { return nil }
        var current = 1
        var start = source.startIndex
        while current < location.line {
            guard let newline = source[start...].firstIndex(of: "\n") else { return nil }
            start = source.index(after: newline)
            current += 1
        }
        let end = source[start...].firstIndex(where: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }) ?? source.endIndex
        return String(source[start..<end])
    }

    private func pad(_ count: Int) -> String { String(repeating: " ", count: max(0, count)) }
}
