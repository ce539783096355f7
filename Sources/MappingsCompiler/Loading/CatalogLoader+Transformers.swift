import MappingsJSON
import MappingsModel

extension CatalogLoader {
    /// Binds the transformers every rule of `contexts` names: the host's registry, with the
    /// Swift closures its definitions gave to entries.
    mutating func bindTransformers(in contexts: inout [CompiledContext], tables: [String: LookupTable] = [:]) {
        var registry = transformers
        for provider in registry.providers { provider.provide(tables: tables) }
        for (reference, transformer) in definitions.closures {
            registry.register(className: reference.className, selector: reference.selector, transformer)
        }
        diagnostics += Self.resolveTransformers(in: &contexts, from: registry)
    }

    /// Binds every rule's transformer reference to a transformer, bound to the rule's user
    /// data; reports those that name none. One failing script is one diagnostic, with a note
    /// for each entry that asked for it.
    private static func resolveTransformers(
        in contexts: inout [CompiledContext], from registry: TransformerRegistry
    ) -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        for c in contexts.indices {
            if let filter = contexts[c].filter {
                let at = contexts[c].filterProvenance?.location ?? contexts[c].provenance.location
                contexts[c].filterTransform = resolve(filter, type: nil, for: at, registry, &diagnostics)
            }
            for r in contexts[c].rules.indices {
                let rule = contexts[c].rules[r]
                let entry = rule.provenance.location
                if let reference = rule.transformer {
                    contexts[c].rules[r].transform = resolve(
                        reference, type: rule.type, for: entry, registry, &diagnostics)
                }
                if let reference = rule.reverseTransformer {
                    contexts[c].rules[r].reverseTransform = resolve(
                        reference, type: rule.type, for: entry, registry, &diagnostics)
                }
            }
        }
        return diagnostics
    }

    /// The transformer `reference` names, bound to its user data (and to the entry's type, when
    /// it asks: `TypedTransformer`); `nil` after reporting why there is none.
    private static func resolve(
        _ reference: TransformerReference, type: TypeReference?, for entry: SourceLocation,
        _ registry: TransformerRegistry,
        _ diagnostics: inout [Diagnostic]
    ) -> (any Transformer)? {
        switch registry.resolve(reference) {
        case .found(let transformer as any TypedTransformer):
            return transformer.bound(to: reference.userData, type: type)
        case .found(let transformer):
            return transformer.bound(to: reference.userData)
        case .failed(var diagnostic):
            // Inline code's diagnostics stand in the entry already.
            if diagnostic.location == nil || reference.inline != nil {
                if diagnostic.location == nil { diagnostic.location = entry }
                diagnostics.append(diagnostic)
                return nil
            }
            if diagnostic.location == nil {
                diagnostic.location = entry
                diagnostics.append(diagnostic)
                return nil
            }
            let note = Diagnostic.Note(message: "asked for by this entry", location: entry)
            if let same = diagnostics.firstIndex(where: {
                $0.message == diagnostic.message && $0.location == diagnostic.location
            }) {
                if !diagnostics[same].notes.contains(note) { diagnostics[same].notes.append(note) }
            } else {
                diagnostic.notes.append(note)
                diagnostics.append(diagnostic)
            }
            return nil
        case .unknown where reference.inline != nil:
            diagnostics.append(
                Diagnostic(
                    message: "\"\(reference.className)\" runs Lua, but this catalog has no Lua scripts to run it in",
                    location: reference.inline?.code.location ?? entry,
                    help:
                        "add LuaScripts to the TransformerRegistry (transformers.add(LuaScripts(directory: \"scripts\")))"
                ))
            return nil
        case .unknown:
            let name = "\(reference.className).\(reference.functionName)"
            diagnostics.append(
                Diagnostic(
                    message: "no transformer \"\(name)\" (for \"\(reference.selector)\")",
                    location: entry,
                    help: Suggestion.help(for: name, among: registry.names)
                        ?? "register a Swift transformer for this class and selector"))
            return nil
        }
    }
}
