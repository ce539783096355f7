import MappingsJSON
import MappingsModel

extension CatalogLoader {
    /// Gives each context of a load that succeeded what mapping needs beside its rules: its
    /// model's definition, what it reads of a payload (`JSONDemand`), and the keys its
    /// `"@unknownKeys"` check knows.
    static func finish(_ contexts: inout [CompiledContext], models: [String: Model]) {
        let discriminators = discriminatorKeys(contexts)
        for index in contexts.indices {
            contexts[index].modelDefinition = contexts[index].model.flatMap { models[$0] }
            if contexts[index].unknownKeys != nil {
                let read = UnknownKeys.keys(readBy: contexts[index].rules)
                contexts[index].unknownKeys?.read = read.map { read in
                    read + (discriminators[index] ?? []).filter { key in !read.contains(key) }
                }
            }
        }
        for index in contexts.indices {
            contexts[index].demand = JSONDemand.of(context: index, in: contexts)
            contexts[index].planDemand = JSONDemand.of(context: index, in: contexts, spans: true)
        }
    }

    /// For each context a union maps its objects with (a case or `@otherwise`), the first keys
    /// of the discriminators that chose it: the union read them, so they are no unknown keys there.
    private static func discriminatorKeys(_ contexts: [CompiledContext]) -> [Int: [String]] {
        var keys: [Int: [String]] = [:]
        for context in contexts {
            for rule in context.rules {
                guard let union = rule.object?.union, case .key(let key)? = union.discriminator.components.first
                else { continue }
                for index in union.contexts where !(keys[index] ?? []).contains(key) {
                    keys[index, default: []].append(key)
                }
            }
        }
        return keys
    }
}
