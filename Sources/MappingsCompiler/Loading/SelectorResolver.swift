import Foundation
import MappingsJSON
import MappingsModel

/// Applies selectors to a parsed file: a block whose selector holds merges into the object
/// around it, and one that does not vanishes.
///
/// Selectors are resolved before anything else, at every depth, so a selector may hold
/// `@import`s, contexts, models or entries alike. Holding blocks are laid over the object's
/// other members in the order they are written: the later block wins.
struct SelectorResolver {
    let traits: Traits
    private(set) var diagnostics: [Diagnostic] = []

    init(traits: Traits) {
        self.traits = traits
    }

    mutating func resolve(_ node: SyntaxNode) -> SyntaxNode {
        switch node.kind {
        case .object(let members):
            var plain: [SyntaxMember] = []
            var blocks: [SyntaxNode] = []
            for member in members {
                guard Selector.isSelectorKey(member.key) else {
                    var member = member
                    member.value = resolve(member.value)
                    plain.append(member)
                    continue
                }
                let selector: Selector
                do {
                    selector = try Selector(key: member.key)
                } catch {
                    diagnostics.append(
                        Diagnostic(message: error.message, location: member.keyLocation, help: error.help))
                    continue
                }
                guard case .object = member.value.kind else {
                    diagnostics.append(
                        Diagnostic(
                            message: "the selector \"\(member.key)\" must hold an object, not \(member.value.typeName)",
                            location: member.value.location,
                            help: "write the members it adds inside { }"))
                    continue
                }
                if selector.holds(in: traits) {
                    blocks.append(resolve(member.value))
                }
            }
            var result = node
            result.kind = .object(plain)
            for block in blocks {
                result = SyntaxMerge.overlay(block, onto: result)
            }
            result.location = node.location
            return result
        case .array(let elements):
            var result = node
            result.kind = .array(elements.map { resolve($0) })
            return result
        default:
            return node
        }
    }
}
