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
///
/// With the `.ansi` style (a terminal that shows colors), `error:` is bold red, `warning:` bold
/// yellow, `note:` and `help:` bold cyan, and carets bold red; the text is otherwise the same.
package struct DiagnosticRenderer: Sendable {
    /// Plain text, or text with ANSI color escapes for a terminal.
    package enum Style: Sendable {
        case plain
        case ansi
    }

    /// The texts of the files the diagnostics point into, by the path they name.
    package var sources: [String: String]
    package var style: Style

    package init(sources: [String: String] = [:], style: Style = .plain) {
        self.sources = sources
        self.style = style
    }

    /// Renders every diagnostic, separated by blank lines.
    package func render(_ diagnostics: [Diagnostic]) -> String {
        diagnostics.map { render($0) }.joined(separator: "\n\n")
    }

    /// Renders errors and warnings together in the order of their places (by file as they first
    /// appear, then line and column; those without a place first), separated by blank lines.
    package func render(_ errors: [Diagnostic], warnings: [Diagnostic]) -> String {
        let all = errors.map { ($0, "error") } + warnings.map { ($0, "warning") }
        var files: [String: Int] = [:]
        for (diagnostic, _) in all {
            if let file = diagnostic.location?.file, files[file] == nil { files[file] = files.count }
        }
        func key(_ offset: Int) -> [Int] {
            guard let location = all[offset].0.location else { return [-1, 0, 0, offset] }
            return [files[location.file] ?? 0, location.line, location.column, offset]
        }
        return all.indices.sorted { key($0).lexicographicallyPrecedes(key($1)) }
            .map { render(all[$0].0, severity: all[$0].1) }.joined(separator: "\n\n")
    }

    /// Renders one diagnostic, without a trailing newline; `severity` starts it (`error`, `note`).
    /// What came from a file or a payload (a key, a class name, a source line) is printed with
    /// its control and invisible characters escaped (`\u001b`): nothing reaches the terminal
    /// as a command, nothing hides.
    package func render(_ diagnostic: Diagnostic, severity: String = "error") -> String {
        let lines = [diagnostic.location?.line ?? 0] + diagnostic.notes.map { $0.location?.line ?? 0 }
        let gutter = String(lines.max() ?? 0).count
        var out: [String] = ["\(label(severity)) \(Self.printable(diagnostic.message))"]
        if let location = diagnostic.location {
            out += snippet(location, gutter: gutter)
        }
        for note in diagnostic.notes {
            out.append("\(pad(gutter)) = \(label("note")) \(Self.printable(note.message))")
            if let location = note.location {
                out += snippet(location, gutter: gutter)
            }
        }
        if let help = diagnostic.help {
            out.append("\(pad(gutter)) = \(label("help")) \(Self.printable(help))")
        }
        return out.joined(separator: "\n")
    }

    /// `text` with its control and invisible characters escaped as a JSON string writes them
    /// (`\r`, `\u001b`, `\u202e`), and nothing else changed; a line feed and a tab are kept
    /// (a message may run over lines, as the tests' failures do; neither moves the cursor back).
    package static func printable(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { JSONWriter.isInvisible($0) && $0 != "\n" && $0 != "\t" }) else {
            return text
        }
        return text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.split(separator: "\t", omittingEmptySubsequences: false).map { JSONWriter.visible(String($0)) }
                .joined(separator: "\t")
        }.joined(separator: "\n")
    }

    private func snippet(_ location: SourceLocation, gutter: Int) -> [String] {
        var out = ["\(pad(gutter))--> \(Self.printable(location.description))"]
        guard let text = sourceLine(location) else { return out }
        out.append("\(pad(gutter)) |")
        let number = String(location.line)
        // The line as printed: each invisible character escaped (a tab kept, for the caret's
        // sake), and the caret under the escapes of the characters it points at.
        var shown = ""
        var prefix = ""
        var carets = 0
        for (offset, scalar) in text.unicodeScalars.enumerated() {
            let printed = scalar == "\t" ? "\t" : Self.printable(String(scalar))
            shown += printed
            if offset < location.column - 1 {
                prefix += scalar == "\t" ? "\t" : String(repeating: " ", count: printed.unicodeScalars.count)
            } else if offset < location.column - 1 + location.length {
                carets += scalar == "\t" ? 1 : printed.unicodeScalars.count
            }
        }
        out.append("\(pad(gutter - number.count))\(number) | \(shown)")
        out.append("\(pad(gutter)) | \(prefix)\(paint(String(repeating: "^", count: max(1, carets)), Self.red))")
        return out
    }

    private func sourceLine(_ location: SourceLocation) -> String? {
        guard let source = sources[location.file], location.line >= 1 else { return nil }
        var current = 1
        var start = source.startIndex
        while current < location.line {
            // CR LF is one Character: a file with Windows line ends (a CSV table) counts it too.
            guard let newline = source[start...].firstIndex(where: { $0 == "\n" || $0 == "\r\n" }) else { return nil }
            start = source.index(after: newline)
            current += 1
        }
        let end = source[start...].firstIndex(where: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }) ?? source.endIndex
        return String(source[start..<end])
    }

    /// `severity:` (`error:`, `note:`…), in its color with the `.ansi` style.
    package func label(_ severity: String) -> String {
        let color =
            switch severity {
            case "error": Self.red
            case "warning": Self.yellow
            default: Self.cyan
            }
        return paint(severity + ":", color)
    }

    /// `text` in a line the tool writes itself (`error: cannot read …`): its leading
    /// `error:`, `warning:` or `note:` styled as the renderer's are.
    package func styled(_ text: String) -> String {
        guard style == .ansi else { return text }
        for severity in ["error", "warning", "note"] where text.hasPrefix(severity + ": ") {
            return label(severity) + text.dropFirst(severity.count + 1)
        }
        return text
    }

    private static let red = "1;31"
    private static let yellow = "1;33"
    private static let cyan = "1;36"

    private func paint(_ text: String, _ color: String) -> String {
        style == .ansi ? "\u{1B}[\(color)m\(text)\u{1B}[0m" : text
    }

    private func pad(_ count: Int) -> String { String(repeating: " ", count: max(0, count)) }
}
