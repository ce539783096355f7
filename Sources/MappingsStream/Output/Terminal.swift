import Foundation
package import Mappings
import Synchronization

/// Writes to the standard streams; diagnostics on stderr in color when `--color` says so.
package enum Terminal {
    private static let colors = Atomic<Bool>(false)

    /// Colors diagnostics from now on (or not): set once, from `--color`, before a command runs.
    package static func useColors(_ on: Bool) {
        colors.store(on, ordering: .relaxed)
    }

    /// How the diagnostic renderer styles what goes to stderr.
    static var style: DiagnosticRenderer.Style {
        colors.load(ordering: .relaxed) ? .ansi : .plain
    }

    /// Writes a line to stderr; a leading `error:`, `warning:` or `note:` is colored like a diagnostic's.
    /// Control and invisible characters in it (a file name, a context name, a reason that quotes
    /// a file) are escaped, line by line: nothing reaches the terminal as a command.
    package static func error(_ text: String) {
        let shown = text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { DiagnosticRenderer.printable(String($0)) }.joined(separator: "\n")
        FileHandle.standardError.write(Data((DiagnosticRenderer(style: style).styled(shown) + "\n").utf8))
    }

    /// Writes diagnostics that do not stop a command (warnings, notes) to stderr, rendered with
    /// their source lines as `severity` (`warning`, `note`), the lines read from their files.
    package static func diagnostics(_ diagnostics: [Diagnostic], severity: String) {
        guard !diagnostics.isEmpty else { return }
        let files = Set(diagnostics.compactMap { $0.location?.file })
        let sources = Dictionary(
            uniqueKeysWithValues: files.compactMap { file in
                (try? String(contentsOfFile: file, encoding: .utf8)).map { (file, $0) }
            })
        let renderer = DiagnosticRenderer(sources: sources, style: style)
        // The renderer escapes what it prints and may color it: written as it is.
        let text = diagnostics.map { renderer.render($0, severity: severity) }.joined(separator: "\n")
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// Writes an error to stderr: a `MappingsError`'s diagnostics rendered with their source
    /// lines, any other error as its description.
    package static func diagnostics(_ error: any Error) {
        guard let error = error as? MappingsError else { return Self.error(String(describing: error)) }
        let renderer = DiagnosticRenderer(sources: error.sources, style: style)
        let text = renderer.render(error.diagnostics, warnings: error.warnings)
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    package static func output(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }
}
