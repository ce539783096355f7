import MappingsJSON
import MappingsModel

/// Resolves `@inherits` across all definitions: deep merge, the inheriting object wins,
/// then the first-listed parent.
///
/// A reference is a definition's identifier (`$Base`) or a dotted path into one
/// (`$Templates.user`), looked up in the resolved (already inherited) definitions. Cycles
/// and missing parents are reported, never followed.
struct InheritanceResolver {
    private let definitions: [String: Declaration]
    private var resolved: [String: SyntaxNode] = [:]
    private var inProgress: [String] = []
    private(set) var diagnostics: [Diagnostic] = []
    /// Whether a file did not parse: a reference to no definition may be to one of its own.
    let incomplete: Bool

    init(definitions: [String: Declaration], incomplete: Bool = false) {
        self.definitions = definitions
        self.incomplete = incomplete
    }

    /// The definition named `name` with every `@inherits` in it resolved.
    mutating func definition(_ name: String) -> SyntaxNode? {
        if let done = resolved[name] { return done }
        guard let declaration = definitions[name] else { return nil }
        inProgress.append(name)
        let node = resolve(declaration.node)
        inProgress.removeLast()
        resolved[name] = node
        return node
    }

    /// The node a reference points to, resolved; reports and returns `nil` when there is none.
    mutating func lookup(_ reference: String, at location: SourceLocation, purpose: String) -> SyntaxNode? {
        let parts = reference.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        var head: (name: String, consumed: Int)?
        for count in stride(from: parts.count, through: 1, by: -1) {
            let name = parts[0..<count].joined(separator: ".")
            if definitions[name] != nil { head = (name, count); break }
        }
        guard let head else {
            guard !incomplete else { return nil }
            diagnostics.append(
                Diagnostic(
                    message: "\(purpose) \"\(reference)\" names no context", location: location,
                    help: Suggestion.help(for: parts[0], among: definitions.keys)))
            return nil
        }
        if let cycleStart = inProgress.firstIndex(of: head.name) {
            let chain = (inProgress[cycleStart...] + [head.name]).map { "\"\($0)\"" }.joined(separator: " → ")
            diagnostics.append(
                Diagnostic(
                    message: "inheritance cycle: \(chain)", location: location,
                    help: inProgress.count - cycleStart == 1
                        ? "a definition cannot inherit from itself or a part of itself"
                        : "break the cycle: one of these must not inherit from the other"))
            return nil
        }
        guard var node = definition(head.name) else { return nil }
        var walked = head.name
        for part in parts[head.consumed...] {
            guard let member = node.member(part) else {
                diagnostics.append(
                    Diagnostic(
                        message: "\"\(walked)\" has no member \"\(part)\"", location: location,
                        help: Suggestion.help(for: part, among: node.members?.map(\.key) ?? [])))
                return nil
            }
            node = member.value
            walked += "." + part
        }
        return node
    }

    private mutating func resolve(_ node: SyntaxNode) -> SyntaxNode {
        switch node.kind {
        case .array(let elements):
            var result = node
            result.kind = .array(elements.map { resolve($0) })
            return result
        case .object(let members):
            var own: [SyntaxMember] = []
            var inherits: SyntaxMember?
            for member in members {
                if member.key == "@inherits" {
                    inherits = member
                } else {
                    var member = member
                    member.value = resolve(member.value)
                    own.append(member)
                }
            }
            var result = node
            result.kind = .object(own)
            guard let inherits else { return result }
            var parents: SyntaxNode?
            var steps: [InheritanceStep] = []
            let references = inherits.value.stringList(
                whole: "\"@inherits\" takes a context identifier or an array of them",
                element: "a parent is named by a non-empty string", diagnostics: &diagnostics)
            for (reference, location) in references {
                guard let parent = lookup(reference, at: location, purpose: "the parent") else { continue }
                guard case .object = parent.kind else {
                    diagnostics.append(
                        Diagnostic(
                            message: "\"\(reference)\" is \(parent.typeName); only an object can be inherited from",
                            location: location,
                            notes: [Diagnostic.Note(message: "it is defined here", location: parent.location)]))
                    continue
                }
                let step = InheritanceStep(parent: reference, location: location)
                steps.append(step)
                let marked = parent.inherited(via: step)
                parents = parents.map { SyntaxMerge.overlay($0, onto: marked, winnerFirst: true) } ?? marked
            }
            if let parents { result = SyntaxMerge.overlay(result, onto: parents) }
            result.location = node.location
            result.inheritedVia = node.inheritedVia + steps
            return result
        default:
            return node
        }
    }
}
