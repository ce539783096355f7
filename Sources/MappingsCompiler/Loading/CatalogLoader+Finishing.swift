import MappingsJSON
import MappingsModel

extension CatalogLoader {
    /// Gives each context of a load that succeeded what mapping needs beside its rules: its
    /// model's definition, what it reads of a payload (`JSONDemand`), and the keys its
    /// `"@unknownKeys"` check knows.
    static func finish(_ contexts: inout [CompiledContext], models: [String: Model]) {
        for index in contexts.indices {
            contexts[index].modelDefinition = contexts[index].model.flatMap { models[$0] }
            if contexts[index].unknownKeys != nil {
                let read = UnknownKeys.keys(readBy: contexts[index].rules)
                contexts[index].unknownKeys?.read = read
            }
        }
        for index in contexts.indices {
            contexts[index].demand = JSONDemand.of(context: index, in: contexts)
        }
    }
}
