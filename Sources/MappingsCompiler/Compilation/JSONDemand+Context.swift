package import MappingsJSON
import MappingsModel

extension JSONDemand {
    /// What a context reads of the value it maps, following `@object` contexts; a context
    /// reached again while its own demand is being worked out (a recursive model) reads
    /// everything there.
    ///
    /// With `spans`, what a fast plan reads: the input of a transformer that takes text (a Lua
    /// script's) is not built but handed on as its text, so it needs no more than its place in
    /// the record (`.members([])`: a frame or list whose span is the text, or a scalar), and
    /// other entries may read into it. A Swift transformer's input is built whole, as before.
    package static func of(context index: Int, in contexts: [CompiledContext], spans: Bool = false) -> JSONDemand {
        var visiting: Set<Int> = []
        return of(context: index, in: contexts, spans: spans, visiting: &visiting)
    }

    private static func of(
        context index: Int, in contexts: [CompiledContext], spans: Bool, visiting: inout Set<Int>
    ) -> JSONDemand {
        guard visiting.insert(index).inserted else { return .everything }
        defer { visiting.remove(index) }
        // A filter is handed the whole payload: built whole, or in a plan the frame's own span.
        if contexts[index].filter != nil, !spans || !(contexts[index].filterTransform is any TextTransformer) {
            return .everything
        }
        // A context that checks its keys keeps them all, read or not.
        var demands = [JSONDemand.members([], keepsOtherKeys: contexts[index].unknownKeys != nil)]
        for rule in contexts[index].rules {
            var leaf = spans && rule.transform is any TextTransformer ? JSONDemand.members([]) : .everything
            // A dictionary of objects reads every key of its value: only arrays pass a demand on.
            let isDictionary = if case .dictionary? = rule.type?.unwrapped { true } else { false }
            // Nor do collections of collections, nor elements matched by `@identity` (which may
            // read a key of the element that its context does not).
            let readsAll = isDictionary || rule.type?.holdsCollections == true || rule.policies.identity != nil
            if rule.transformer == nil, !readsAll, let object = rule.object, let nested = object.context {
                leaf = of(context: nested, in: contexts, spans: spans, visiting: &visiting)
            } else if rule.transformer == nil, !readsAll, let union = rule.object?.union {
                // Each object reads its discriminator and what its case's context reads.
                leaf = along(union.discriminator.components[...], leaf: .everything)
                for chosen in union.contexts {
                    leaf = leaf.merged(with: of(context: chosen, in: contexts, spans: spans, visiting: &visiting))
                }
            }
            // A selection's values make one object: built whole, or in a plan each value's span
            // (the plan puts their texts together).
            if rule.selection != nil { leaf = spans && rule.object == nil ? .members([]) : .everything }
            for keyPath in rule.keyPaths {
                let demand = along(keyPath.components[...], leaf: leaf)
                if case .everything = demand { return .everything }
                demands.append(demand)
            }
        }
        // Merged at once: one merge a rule would copy the members read so far each time.
        return merging(demands)
    }

    /// The demand at the start of `components` when the value at their end needs `leaf`.
    private static func along(_ components: ArraySlice<PayloadKeyPath.Component>, leaf: JSONDemand) -> JSONDemand {
        guard let first = components.first else { return leaf }
        guard case .key(let key) = first else { return .everything }
        return .members([Member(key: key, demand: along(components.dropFirst(), leaf: leaf))])
    }
}
