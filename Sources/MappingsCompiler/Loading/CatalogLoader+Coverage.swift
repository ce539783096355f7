import MappingsModel

extension CatalogLoader {
    /// Warns about each context that builds a model bound to a Swift type and maps nothing to
    /// one of its required properties: every instance it makes keeps what the type's `init()`
    /// gave that property, which no issue at mapping time would say.
    mutating func warnUnmappedRequired(_ contexts: [CompiledContext], models: [String: Model]) {
        let bound = Dictionary(
            definitions.typedModels.map { ($0.model.name, $0.swiftType) }, uniquingKeysWith: { first, _ in first })
        for context in contexts {
            guard let name = context.model, let swiftType = bound[name], let model = models[name] else { continue }
            let mapped = Set(context.rules.compactMap { $0.target.steps.first?.name })
            let unmapped = model.properties.filter { property in
                if case .optional = property.type { return false }
                return !mapped.contains(property.name)
            }
            guard !unmapped.isEmpty else { continue }
            let which = context.identifier.map { "\"\($0)\"" } ?? "this context"
            let names = unmapped.map { "\"\($0.name)\" (\($0.type))" }.joined(separator: ", ")
            let plural = unmapped.count == 1 ? "property" : "properties"
            warnings.append(
                Diagnostic(
                    message:
                        "\(which) builds \(name) but maps nothing to its required \(plural) \(names): each \(swiftType) "
                        + "it makes keeps what init() gave",
                    location: context.provenance.location,
                    help:
                        "map \(unmapped.count == 1 ? "it" : "them") in the context, or make the Swift "
                        + "\(plural) optional"))
        }
    }
}
