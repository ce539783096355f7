import MappingsJSON
import MappingsModel

/// Compiling the `@object` of a union entry: `@discriminator` (the key path, inside each
/// object, of the value that chooses), `@cases` (value → context, whose `@class` is the member
/// it builds) and `@otherwise`, checked against the union's members.
extension ContextCompiler {
    /// Whether an `@object` with these options chooses a union member, or must: the property is
    /// a union, or the options name a union keyword.
    func choosesMember(_ options: [SyntaxMember], propertyType: TypeReference?) -> Bool {
        Self.unionMembers(of: propertyType) != nil || options.contains { Keywords.union.contains($0.key) }
    }

    /// The members of the union an `@object` builds: the property's type, or the elements at the
    /// bottom of its collections (`[Circle | Rect]`, `[[Circle | Rect]]`); `nil` when it is none.
    static func unionMembers(of type: TypeReference?) -> [String]? {
        if case .union(let members)? = type?.innermostElement { return members }
        return nil
    }

    /// The rule of a union's `@object`; `nil` once anything about it was reported.
    mutating func compileUnion(
        _ member: SyntaxMember, options: [SyntaxMember], propertyType: TypeReference?, property: String
    ) -> ObjectRule? {
        let members = Self.unionMembers(of: propertyType)
        if let propertyType, members == nil, let first = options.first(where: { Keywords.union.contains($0.key) }) {
            diagnostics.append(
                Diagnostic(
                    message:
                        "\"\(first.key)\" chooses among the members of a union, but \"\(property)\" is \(propertyType)",
                    location: first.keyLocation,
                    help:
                        "declare \"\(property)\" as a union of models, such as \"Circle | Rect\", or remove \"\(first.key)\""
                ))
            return nil
        }
        var (discriminator, cases, otherwise, valid) = unionOptions(options)
        let type = propertyType.map(String.init(describing:)) ?? "a union"
        guard let cases else {
            // A misspelled "@cases" was reported with its suggestion: that is the mistake.
            guard valid else { return nil }
            diagnostics.append(
                Diagnostic(
                    message:
                        "\"\(property)\" is \(type): its \"@object\" needs \"@cases\" to choose each object's member",
                    location: discriminator?.keyLocation ?? member.keyLocation,
                    help: discriminator == nil
                        ? "add \"@discriminator\": \"type\" and \"@cases\": { \"circle\": \"$Circle\", … }"
                        : "add \"@cases\": { \"circle\": \"$Circle\", … }: each value of the discriminator and its context"
                ))
            return nil
        }
        guard let discriminator else {
            diagnostics.append(
                Diagnostic(
                    message: "\"@cases\" needs \"@discriminator\" beside it: the key path of the value that chooses",
                    location: cases.keyLocation, help: "add \"@discriminator\": \"type\""))
            return nil
        }
        let path = discriminatorPath(discriminator)
        guard let written = cases.value.members, !written.isEmpty else {
            diagnostics.append(
                Diagnostic(
                    message:
                        "\"@cases\" takes an object of discriminator values and contexts, not \(cases.value.members == nil ? cases.value.typeName : "an empty object")",
                    location: cases.value.location,
                    help: "write \"@cases\": { \"circle\": \"$Circle\", \"rect\": \"$Rect\" }"
                ))
            return nil
        }
        var compiled: [UnionRule.Case] = []
        for option in written {
            if let chosen = unionCase(option.value, value: option.key, members: members, property: property) {
                compiled.append(chosen)
            } else {
                valid = false
            }
        }
        var fallback: UnionRule.Case?
        if let otherwise {
            fallback = unionCase(otherwise.value, value: "", members: members, property: property)
            if fallback == nil { valid = false }
        }
        guard valid, let path else { return nil }
        return ObjectRule(
            model: nil, context: nil, union: UnionRule(discriminator: path, cases: compiled, otherwise: fallback))
    }

    /// A union's `@discriminator`, `@cases` and `@otherwise`, and whether the other options were
    /// all valid (each that was not reported).
    private mutating func unionOptions(
        _ options: [SyntaxMember]
    ) -> (discriminator: SyntaxMember?, cases: SyntaxMember?, otherwise: SyntaxMember?, valid: Bool) {
        var discriminator: SyntaxMember?
        var cases: SyntaxMember?
        var otherwise: SyntaxMember?
        var valid = true
        for option in options {
            switch option.key {
            case "@discriminator": discriminator = option
            case "@cases": cases = option
            case "@otherwise": otherwise = option
            case "@class", "@mappings":
                diagnostics.append(
                    Diagnostic(
                        message:
                            "the objects of a union are mapped by their \"@cases\", so \"\(option.key)\" has no place here",
                        location: option.keyLocation,
                        help: "name each case's context in \"@cases\"; its \"@class\" is the member it builds"))
                valid = false
            default:
                diagnostics.append(
                    unknownKeyword(option, in: "the \"@object\" of a union", allowed: Keywords.union))
                valid = false
            }
        }
        return (discriminator, cases, otherwise, valid)
    }

    /// `@discriminator`'s key path: keys only (serialize writes the value back there).
    private mutating func discriminatorPath(_ option: SyntaxMember) -> PayloadKeyPath? {
        guard let text = option.value.stringValue, !text.isEmpty else {
            diagnostics.append(
                Diagnostic(
                    message:
                        "\"@discriminator\" takes the key path of the value that chooses, not \(option.value.typeName)",
                    location: option.value.location, help: "write \"@discriminator\": \"type\""))
            return nil
        }
        guard let path = keyPath(text, at: option.value.location) else { return nil }
        guard !path.components.isEmpty, path.components.allSatisfy({ if case .key = $0 { true } else { false } })
        else {
            diagnostics.append(
                Diagnostic(
                    message: "\"@discriminator\" is a key path of object keys, such as \"type\" or \"meta.kind\"",
                    location: option.value.location,
                    help:
                        "indexes, \"@first\", \"@last\", \"@count\" and \"@self\" do not name one value of each object")
            )
            return nil
        }
        return path
    }

    /// The case `node` maps with: a context identifier (or a dotted path into one), or an inline
    /// context, whose `@class` must be a member of the union; `value` is the discriminator value
    /// (empty for `@otherwise`).
    private mutating func unionCase(
        _ node: SyntaxNode, value: String, members: [String]?, property: String
    ) -> UnionRule.Case? {
        let what = value.isEmpty ? "\"@otherwise\"" : "the case \"\(value)\""
        let body: SyntaxNode
        let reference = node.stringValue
        switch node.kind {
        case .string(let name):
            if let index = named[name], let definition = inheritance.definition(name) {
                guard let model = memberClass(definition, of: members, what: what, context: name, at: node.location)
                else { return nil }
                return UnionRule.Case(value: value, model: model, context: index)
            }
            let purpose = value.isEmpty ? "\"@otherwise\"" : "\"@cases\""
            guard let found = inheritance.lookup(name, at: node.location, purpose: purpose) else { return nil }
            body = found
        case .object:
            body = node
        default:
            diagnostics.append(
                Diagnostic(
                    message: "\(what) maps with a context identifier or an inline context, not \(node.typeName)",
                    location: node.location, help: "write \"$Circle\", a context whose \"@class\" is the member"))
            return nil
        }
        guard let model = memberClass(body, of: members, what: what, context: reference, at: node.location) else {
            return nil
        }
        guard let rule = inline(body, explicitClass: nil, expected: model, property: property, at: node.location),
            let index = rule.context
        else { return nil }
        return UnionRule.Case(value: value, model: model, context: index)
    }

    /// The `@class` a case's context declares; reports one that declares none, or a class that
    /// is not a member of the union.
    private mutating func memberClass(
        _ definition: SyntaxNode, of members: [String]?, what: String, context: String?, at location: SourceLocation
    ) -> String? {
        let named = context.map { "\"\($0)\"" } ?? "the context"
        guard let model = declaredClass(definition) else {
            diagnostics.append(
                Diagnostic(
                    message: "\(what) maps with \(named), which names no \"@class\"",
                    location: location,
                    help: "add \"@class\" to it: the class says which member of the union it builds"
                        + (members.map { " (\($0.joined(separator: ", ")))" } ?? "")))
            return nil
        }
        if let members, !members.contains(model) {
            diagnostics.append(
                Diagnostic(
                    message:
                        "\(what) maps with \(named), which builds \(model), not a member of \(TypeReference.union(members))",
                    location: location,
                    help: Suggestion.help(for: model, among: members)
                        ?? "add \(model) to the union, or map the case with a context that builds one of \(members.joined(separator: ", "))"
                ))
            return nil
        }
        return model
    }
}
