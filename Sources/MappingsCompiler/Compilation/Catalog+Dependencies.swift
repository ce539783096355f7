extension Catalog {
    /// The identifiers of `identifier`'s context and of every context it maps nested objects
    /// with (`@object`), transitively, in load order; empty when there is no such context.
    /// Why: a stream checks the tests of what it maps with, not of every context loaded.
    package func identifiersUsed(by identifier: String) -> [String] {
        guard let start = context(identifier) else { return [] }
        var reached: Set<Int> = [start.index]
        var pending = [start.index]
        while let index = pending.popLast() {
            for rule in contexts[index].rules {
                let nested = rule.object?.union?.contexts ?? rule.object?.context.map { [$0] } ?? []
                for index in nested where reached.insert(index).inserted { pending.append(index) }
            }
        }
        return identifiers.filter { name in context(name).map { reached.contains($0.index) } ?? false }
    }
}
