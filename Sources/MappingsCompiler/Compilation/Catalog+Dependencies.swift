extension Catalog {
    /// The identifiers of `identifier`'s context and of every context it maps nested objects
    /// with (`@object`), transitively, in load order; empty when there is no such context.
    /// Why: a stream checks the tests of what it maps with, not of every context loaded.
    package func identifiersUsed(by identifier: String) -> [String] {
        guard let start = context(identifier) else { return [] }
        let reached = contextsReached(from: start.index)
        return identifiers.filter { name in context(name).map { reached.contains($0.index) } ?? false }
    }

    /// Whether mapping with `context` may call a transformer: an entry of it, or of a context it
    /// maps nested objects or union members with, names one.
    package func callsTransformers(mappingWith context: CompiledContext) -> Bool {
        contextsReached(from: context.index).contains { index in
            contexts[index].rules.contains { $0.transformer != nil }
        }
    }

    /// The indices of the context at `start` and of every context its entries map nested
    /// objects or union members with, transitively.
    private func contextsReached(from start: Int) -> Set<Int> {
        var reached: Set<Int> = [start]
        var pending = [start]
        while let index = pending.popLast() {
            for rule in contexts[index].rules {
                let nested = rule.object?.union?.contexts ?? rule.object?.context.map { [$0] } ?? []
                for index in nested where reached.insert(index).inserted { pending.append(index) }
            }
        }
        return reached
    }
}
