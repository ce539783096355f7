import MappingsCompiler
import MappingsJSON
import MappingsModel

extension Mapper {
    /// Where a property of an object built with `context` comes from: the entry that maps it
    /// (its own line) and the payload path it reads, following `relativePath` (`.user.name`,
    /// `.tags[2]`) through nested contexts. A step no entry maps keeps the context's line and
    /// is appended as written.
    func origin(of relativePath: String, in context: CompiledContext, base: String) -> (rule: Provenance, path: String)
    {
        var path = base
        var rule = context.provenance
        var current: CompiledContext? = context
        for token in Self.tokens(relativePath) {
            guard token.hasPrefix(".") else {
                path += token
                continue
            }
            let name = String(token.dropFirst())
            if let found = current?.rules.first(where: {
                $0.target.steps.count == 1 && $0.target.steps[0].name == name
            }) {
                rule = found.provenance
                path = found.source.payloadPath(from: path)
                current = found.object?.context.map { catalog.contexts[$0] }
            } else {
                path += PathText.member(name)
                current = nil
            }
        }
        return (rule, path)
    }

    /// `.user.tags[2]["k"]` as `.user`, `.tags`, `[2]`, `["k"]`.
    private static func tokens(_ path: String) -> [String] {
        var tokens: [String] = []
        var current = ""
        var inString = false
        var escaped = false
        for character in path {
            if inString {
                current.append(character)
                if escaped {
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    inString = false
                }
                continue
            }
            if character == "." || character == "[" {
                if !current.isEmpty { tokens.append(current) }
                current = String(character)
            } else {
                current.append(character)
                if character == "\"" { inString = true }
            }
        }
        if !current.isEmpty { tokens.append(current) }
        return tokens
    }
}
