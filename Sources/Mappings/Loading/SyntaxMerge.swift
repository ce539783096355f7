/// Deep merge of `.mappings` trees, shared by selectors and `@inherits`.
enum SyntaxMerge {
    /// Lays `winner` over `base`: where both are objects their members merge recursively;
    /// anywhere else (scalars, arrays, or a type conflict) `winner` is kept whole.
    ///
    /// Members keep `base`'s order, followed by the members only `winner` has, so an
    /// inheriting context lists its parent's entries first, like a subclass its superclass's;
    /// with `winnerFirst`, `winner`'s order comes first (for combining parents in listed order).
    static func overlay(_ winner: SyntaxNode, onto base: SyntaxNode, winnerFirst: Bool = false) -> SyntaxNode {
        guard case .object(let winning) = winner.kind, case .object(let based) = base.kind else { return winner }
        if winnerFirst {
            var flipped = overlay(base, onto: winner)
            flipped.kind = .object(
                winning.map { member in
                    guard let other = based.first(where: { $0.key == member.key }) else { return member }
                    var merged = member
                    merged.value = overlay(member.value, onto: other.value)
                    return merged
                } + based.filter { member in !winning.contains(where: { $0.key == member.key }) })
            flipped.location = winner.location
            flipped.inheritedVia = winner.inheritedVia
            return flipped
        }
        var result: [SyntaxMember] = []
        result.reserveCapacity(based.count + winning.count)
        var taken = Set<String>()
        for member in based {
            if let override = winning.first(where: { $0.key == member.key }) {
                var merged = override
                merged.value = overlay(override.value, onto: member.value)
                result.append(merged)
                taken.insert(member.key)
            } else {
                result.append(member)
            }
        }
        for member in winning where !taken.contains(member.key) {
            result.append(member)
        }
        var node = winner
        node.kind = .object(result)
        return node
    }
}
