import ArgumentParser
import Foundation
import Mappings
import MappingsLua
import MappingsStream

/// What a shell completes, beyond what swift-argument-parser knows by itself: the context
/// names of the catalog the command line names (or of the current folder's `contexts`).
enum Completions {
    /// `--context`: the identifiers of the contexts `--mappings` (default `contexts`) loads,
    /// with `--scripts` (default `scripts`) for their transformers; none when they do not load.
    static let contexts = CompletionKind.custom { words, _, _ in
        let names = contextNames(words)
        // bash expands the candidates (`compgen -W`) and inserts them as they come: `\\\$Name`
        // becomes `\$Name` on the command line, the name itself once the shell reads it.
        guard ProcessInfo.processInfo.environment["SAP_SHELL"] == "bash" else { return names }
        return names.map { $0.replacingOccurrences(of: "$", with: "\\\\\\$") }
    }

    static func contextNames(_ words: [String]) -> [String] {
        var mappings: [String] = []
        var scripts = "scripts"
        var index = 0
        while index < words.count {
            let word = unquoted(words[index])
            for (name, assign) in [("--mappings", { mappings.append($0) }), ("--scripts", { scripts = $0 })]
                as [(String, (String) -> Void)]
            {
                if word == name, index + 1 < words.count {
                    assign(unquoted(words[index + 1]))
                } else if word.hasPrefix(name + "=") {
                    assign(String(word.dropFirst(name.count + 1)))
                }
            }
            index += 1
        }
        if mappings.isEmpty { mappings = ["contexts"] }
        var registry = TransformerRegistry()
        registry.add(LuaScripts(directory: scripts))
        guard let catalog = try? Catalog.load(mappings, transformers: registry) else { return [] }
        return catalog.identifiers
    }

    /// A shell word as typed, without the quotes around it.
    private static func unquoted(_ word: String) -> String {
        guard word.count >= 2, let first = word.first, first == "'" || first == "\"", word.last == first else {
            return word
        }
        return String(word.dropFirst().dropLast())
    }
}
