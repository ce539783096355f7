import Foundation
import MappingsJSON

extension CatalogLoader {
    /// The error that reports every diagnostic of the load, in place order with the source
    /// lines they point at; `nil` when there is none.
    ///
    /// - Parameter texts: the texts of the files read.
    func failure(texts: [String: String]) -> MappingsError? {
        guard !diagnostics.isEmpty else { return nil }
        var sources = texts
        for provider in transformers.providers {
            sources.merge(provider.sources) { mine, _ in mine }
        }
        for (file, path) in definitions.sourcePaths where sources[file] == nil {
            // The Swift files of the host's definitions, when they are still where they were built.
            if let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) {
                sources[file] = text
            }
        }
        let underlined = diagnostics.map { Self.underline($0, in: sources, files: definitions.sourcePaths) }
        var error = MappingsError(kind: .invalidMappings, diagnostics: Self.ordered(underlined), sources: sources)
        error.warnings = warnings
        return error
    }

    /// Points the locations in Swift files (which know only a line) at the code on that line.
    private static func underline(_ diagnostic: Diagnostic, in sources: [String: String], files: [String: String])
        -> Diagnostic
    {
        func adjust(_ location: SourceLocation?) -> SourceLocation? {
            guard var location, files[location.file] != nil, let text = sources[location.file] else { return location }
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            guard location.line >= 1, location.line <= lines.count else { return location }
            let line = lines[location.line - 1].unicodeScalars
            let indent = line.prefix(while: { $0 == " " || $0 == "\t" }).count
            location.column = indent + 1
            location.length = max(1, line.count - indent)
            return location
        }
        var diagnostic = diagnostic
        diagnostic.location = adjust(diagnostic.location)
        diagnostic.notes = diagnostic.notes.map { Diagnostic.Note(message: $0.message, location: adjust($0.location)) }
        return diagnostic
    }

    /// Diagnostics without location first, then by file, line and column; duplicates dropped.
    private static func ordered(_ diagnostics: [Diagnostic]) -> [Diagnostic] {
        var seen = Set<Diagnostic>()
        let unique = diagnostics.filter { seen.insert($0).inserted }
        return unique.enumerated().sorted { a, b in
            let l = a.element.location, r = b.element.location
            switch (l, r) {
            case (nil, nil): return a.offset < b.offset
            case (nil, _): return true
            case (_, nil): return false
            case let (l?, r?):
                if l.file != r.file { return a.offset < b.offset }
                if l.line != r.line { return l.line < r.line }
                if l.column != r.column { return l.column < r.column }
                return a.offset < b.offset
            }
        }.map(\.element)
    }
}
