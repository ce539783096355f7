import Foundation
import MappingsJSON
public import MappingsModel

/// Every context and model of a set of `.mappings` files, loaded, resolved and compiled.
///
/// A catalog is immutable and `Sendable`: load it once, share it between threads, and
/// swap in a new one to change the mappings. Loading reports every problem it finds at once:
/// ```swift
/// do {
///     let catalog = try Catalog.load(["contexts"], traits: ["apiVersion": "2"])
///     print(catalog.identifiers)        // ["$TweetModel", "$TimelineModel", …]
/// } catch {
///     print(error)                      // error: unknown class "TweetModl" … with source lines
/// }
/// ```
public struct Catalog: Sendable {
    /// All compiled contexts: the named ones first, in load order, then inline `@mappings` blocks.
    public let contexts: [CompiledContext]
    /// The declared models, by name.
    public let models: [String: Model]
    /// The identifiers of the named contexts, in load order.
    public let identifiers: [String]
    /// The files loaded, in the order they were reached.
    public let files: [String]
    private let index: [String: Int]

    /// The context with this identifier, or `nil`.
    public func context(_ identifier: String) -> CompiledContext? {
        index[identifier].map { contexts[$0] }
    }

    /// Loads `.mappings` files and directories (each directory's `*.mappings`, in name order),
    /// following their `@import`s, and compiles them.
    ///
    /// - Parameters:
    ///   - paths: files or directories; relative paths are relative to the current directory
    ///     (or to the root of `source` when it is in memory).
    ///   - source: where the files are read from.
    ///   - traits: what `@when` selectors test.
    ///   - transformers: the Swift transformers entries may name; a name that resolves to
    ///     none is a load-time error.
    ///   - definitions: models and contexts the host declares in Swift (typed models
    ///     included), loaded and checked with the files.
    /// - Throws: `MappingsError` of kind `.invalidMappings` with every diagnostic of the load.
    public static func load(
        _ paths: [String], from source: FileSource = .disk, traits: Traits = Traits(),
        transformers: TransformerRegistry = TransformerRegistry(), definitions: Definitions = Definitions()
    ) throws(MappingsError) -> Catalog {
        var loader = FileLoader(source: source, traits: traits)
        _ = loader.load(roots: paths)
        var diagnostics = loader.diagnostics
        let reach = loader.reachability()
        let files = loader.order.compactMap { loader.files[$0] }

        let modelTable = DeclarationTable(
            files.flatMap(\.models) + definitions.models, what: "model", reach: reach)
        let contextTable = DeclarationTable(
            files.flatMap(\.definitions) + definitions.contexts, what: "context", reach: reach)
        diagnostics += modelTable.diagnostics + contextTable.diagnostics

        let modelCompiler = ModelCompiler(
            declarations: modelTable.names.compactMap { modelTable.winners[$0] },
            order: modelTable.names, external: definitions.typedModels.map(\.model.name))
        diagnostics += modelCompiler.diagnostics
        let (models, typedDiagnostics) = Self.merge(definitions.typedModels, into: modelCompiler.models)
        diagnostics += typedDiagnostics

        var importChains: [String: [SourceLocation]] = [:]
        for file in files {
            var chain: [SourceLocation] = []
            var site = file.importedAt
            while let current = site, chain.count < files.count {
                chain.append(current)
                site = files.first(where: { $0.path == current.file })?.importedAt
            }
            importChains[file.path] = chain
        }

        let names = contextTable.names.filter { contextTable.winners[$0] != nil }
        var compiler = ContextCompiler(
            models: models, inheritance: InheritanceResolver(definitions: contextTable.winners),
            named: names, importChains: importChains)
        for (index, name) in names.enumerated() {
            compiler.compileNamed(name, index: index)
        }
        diagnostics += compiler.inheritance.diagnostics + compiler.diagnostics
        var contexts = compiler.contexts.compactMap { $0 }
        var registry = transformers
        for (reference, transformer) in definitions.closures {
            registry.register(className: reference.className, selector: reference.selector, transformer)
        }
        diagnostics += Self.resolveTransformers(in: &contexts, from: registry)

        guard diagnostics.isEmpty else {
            var sources = loader.texts
            for provider in transformers.providers {
                sources.merge(provider.sources) { mine, _ in mine }
            }
            for (file, path) in definitions.sourcePaths where sources[file] == nil {
                // The Swift files of the host's definitions, when they are still where they were built.
                if let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8)
                {
                    sources[file] = text
                }
            }
            diagnostics = diagnostics.map { Self.underline($0, in: sources, files: definitions.sourcePaths) }
            throw MappingsError(kind: .invalidMappings, diagnostics: Self.ordered(diagnostics), sources: sources)
        }
        for index in contexts.indices {
            contexts[index].modelDefinition = contexts[index].model.flatMap { models[$0] }
        }
        for index in contexts.indices {
            contexts[index].demand = JSONDemand.of(context: index, in: contexts)
        }
        return Catalog(
            contexts: contexts, models: models, identifiers: names,
            files: files.map(\.path),
            index: Dictionary(names.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first }))
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

    /// Adds the models bound to Swift types. A file may declare the same model too, as long
    /// as it declares the same properties with the same types; the Swift type's model is the
    /// one used (its property order is the order its key paths bind in).
    private static func merge(
        _ typed: [RegisteredModel], into declared: [String: Model]
    ) -> ([String: Model], [Diagnostic]) {
        var models = declared
        var diagnostics: [Diagnostic] = []
        for registered in typed {
            let model = registered.model
            if let file = declared[model.name] {
                let mine = Dictionary(model.properties.map { ($0.name, $0.type) }, uniquingKeysWith: { a, _ in a })
                let theirs = Dictionary(file.properties.map { ($0.name, $0.type) }, uniquingKeysWith: { a, _ in a })
                if mine != theirs {
                    var differences: [String] = []
                    for property in file.properties {
                        switch mine[property.name] {
                        case nil: differences.append("\"\(property.name)\" is not bound by the Swift type")
                        case let type? where type != property.type:
                            differences.append("\"\(property.name)\" is \(property.type) here, \(type) in Swift")
                        default: break
                        }
                    }
                    for property in model.properties where theirs[property.name] == nil {
                        differences.append(
                            "\"\(property.name)\" (\(property.type)) is bound in Swift but not declared here")
                    }
                    diagnostics.append(
                        Diagnostic(
                            message:
                                "the model \"\(model.name)\" does not match the Swift type \(registered.swiftType): "
                                + differences.joined(separator: "; "),
                            location: file.location,
                            notes: [
                                Diagnostic.Note(message: "the Swift type is bound here", location: registered.location)
                            ],
                            help: "declare the same properties and types as the Swift type, or remove this declaration")
                    )
                }
            }
            models[model.name] = model
        }
        for registered in typed {
            for property in registered.model.properties {
                for name in property.type.modelNames where models[name] == nil {
                    diagnostics.append(
                        Diagnostic(
                            message:
                                "the property \"\(property.name)\" of \(registered.swiftType) is of the unknown model \"\(name)\"",
                            location: property.location,
                            help: Suggestion.help(for: name, among: models.keys)
                                ?? "declare the model \"\(name)\", or register its Swift type"))
                }
            }
        }
        return (models, diagnostics)
    }

    /// Binds every rule's transformer reference to a transformer, bound to the rule's user
    /// data; reports those that name none. One failing script is one diagnostic, with a note
    /// for each entry that asked for it.
    private static func resolveTransformers(
        in contexts: inout [CompiledContext], from registry: TransformerRegistry
    ) -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        for c in contexts.indices {
            for r in contexts[c].rules.indices {
                let rule = contexts[c].rules[r]
                let entry = rule.provenance.location
                if let reference = rule.transformer {
                    contexts[c].rules[r].transform = resolve(reference, for: entry, registry, &diagnostics)
                }
                if let reference = rule.reverseTransformer {
                    contexts[c].rules[r].reverseTransform = resolve(reference, for: entry, registry, &diagnostics)
                }
            }
        }
        return diagnostics
    }

    /// The transformer `reference` names, bound to its user data; `nil` after reporting why
    /// there is none.
    private static func resolve(
        _ reference: TransformerReference, for entry: SourceLocation, _ registry: TransformerRegistry,
        _ diagnostics: inout [Diagnostic]
    ) -> (any Transformer)? {
        switch registry.resolve(reference) {
        case .found(let transformer):
            return transformer.bound(to: reference.userData)
        case .failed(var diagnostic):
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
