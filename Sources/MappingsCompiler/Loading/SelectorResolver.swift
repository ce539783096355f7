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
    /// What loads but most likely does not do what was meant: a selector inside a context that
    /// compares a trait nothing sets (`"@when type == circle"`, a payload test that is none).
    private(set) var warnings: [Diagnostic] = []

    /// Where an object stands: the file's top level, a directive (`@models`, `@import`), or a context.
    enum Place {
        case top, directive, context
    }

    /// The traits the AppCoreKit aliases test (`@debug`, `@iphone`, `@ios`), which a selector
    /// may compare unset without a warning: unset is their ordinary state.
    static let aliasTraits: Set<String> = ["build", "device", "ios"]

    init(traits: Traits) {
        self.traits = traits
    }

    mutating func resolve(_ node: SyntaxNode, place: Place = .top) -> SyntaxNode {
        switch node.kind {
        case .object(let members):
            var plain: [SyntaxMember] = []
            var blocks: [SyntaxNode] = []
            for member in members {
                guard Selector.isSelectorKey(member.key) else {
                    var member = member
                    let inner = place == .top ? (member.key.hasPrefix("@") ? Place.directive : .context) : place
                    member.value = resolve(member.value, place: inner)
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
                if place == .context { warnIfPayloadTest(selector, member) }
                if selector.holds(in: traits) {
                    blocks.append(resolve(member.value, place: place))
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
            result.kind = .array(elements.map { resolve($0, place: place) })
            return result
        default:
            return node
        }
    }

    /// Warns about `"@when type == circle"` inside a context when no trait `type` is set: it
    /// reads like a test of the payload, but selectors test traits, so the block never holds
    /// (or, with `!=`, always does). Unset traits compared with `<`, `>=`… (a version that is
    /// not given) and the alias traits stay quiet.
    private mutating func warnIfPayloadTest(_ selector: Selector, _ member: SyntaxMember) {
        guard case .compare(let trait, let op, let value) = selector.condition, op == .equal || op == .notEqual,
            traits[trait] == nil, !Self.aliasTraits.contains(trait)
        else { return }
        warnings.append(
            Diagnostic(
                message:
                    "\"\(trait)\" is a trait, not a payload key: no trait \"\(trait)\" is set, so \"\(member.key)\" "
                    + (op == .equal ? "never holds" : "always holds"),
                location: member.keyLocation,
                help:
                    "to choose by a payload value use \"@discriminator\" and \"@cases\"; to test a trait, set it (--trait \(trait)=\(value))"
            ))
    }
}
