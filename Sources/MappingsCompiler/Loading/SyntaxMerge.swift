import MappingsJSON
import MappingsModel

/// Deep merge of `.mappings` trees, shared by selectors and `@inherits`.
enum SyntaxMerge {
    /// Lays `winner` over `base`: where both are objects their members merge recursively;
    /// anywhere else (scalars, arrays, or a type conflict) `winner` is kept whole.
    ///
    /// Members keep `base`'s order, followed by the members only `winner` has, so an
    /// inheriting context lists its parent's entries first, like a subclass its superclass's.
    /// With `winnerFirst`, `winner`'s order comes first, at every depth (for combining
    /// parents in the order they are listed).
    static func overlay(_ winner: SyntaxNode, onto base: SyntaxNode, winnerFirst: Bool = false) -> SyntaxNode {
        guard case .object(let winning) = winner.kind, case .object(let based) = base.kind else { return winner }
        let (first, second) = winnerFirst ? (winning, based) : (based, winning)
        var result: [SyntaxMember] = []
        result.reserveCapacity(first.count + second.count)
        var taken = Set<String>()
        for member in first {
            guard let other = second.first(where: { $0.key == member.key }) else {
                result.append(member)
                continue
            }
            let (top, bottom) = winnerFirst ? (member, other) : (other, member)
            var merged = top
            merged.value = overlay(top.value, onto: bottom.value, winnerFirst: winnerFirst)
            result.append(merged)
            taken.insert(member.key)
        }
        result += second.filter { !taken.contains($0.key) }
        var node = winner
        node.kind = .object(result)
        return node
    }
}
