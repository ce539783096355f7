import MappingsJSON
import MappingsModel

/// Compiling `@identity`, `@onElementError`, `@onError` and `@null` once the entry's type and
/// `@object` are known, each checked against them with a suggestion.
extension ContextCompiler {
    /// The policies the entry's options write; reports each that is wrong and clears `valid`.
    mutating func policies(
        _ options: EntryOptions, type: TypeReference?, object: ObjectRule?, property: String, valid: inout Bool
    ) -> EntryPolicies {
        var policies = EntryPolicies()
        for option in options.policies {
            switch option.key {
            case "@identity":
                guard let identity = identity(option, type: type, object: object, property: property) else {
                    valid = false
                    continue
                }
                policies.identity = identity
            case "@onElementError":
                guard let policy = choice(option, EntryPolicies.ElementErrors.self) else {
                    valid = false
                    continue
                }
                if let type, type.holdsCollections {
                    report(
                        option, "\"@onElementError\" applies to [T] and [String: T], but \"\(property)\" is \(type)",
                        help: "remove it: it chooses for the elements of one collection, and here they are collections")
                    valid = false
                } else if let type, !type.isCollection, !Self.isDictionary(type), type.unwrapped != .json {
                    report(
                        option, "\"@onElementError\" applies to collections, but \"\(property)\" is \(type)",
                        help: "remove it, or use \"@onError\" for what a value that fails becomes")
                    valid = false
                }
                policies.onElementError = policy
            case "@onError":
                guard let policy = choice(option, EntryPolicies.ValueErrors.self) else {
                    valid = false
                    continue
                }
                if policy == .default, options.defaultValue == nil {
                    report(
                        option, "\"@onError\": \"default\" uses the entry's default, but \"\(property)\" has none",
                        help: "add \"@defaultValue\" beside it")
                    valid = false
                } else if policy == .default, object != nil {
                    report(
                        option,
                        "\"@onError\": \"default\" replaces a value that does not convert, but \"\(property)\" is built by \"@object\", whose failures are reported inside it",
                        help:
                            "put \"@onError\" on the entries of the nested context, or \"@onElementError\" on a collection"
                    )
                    valid = false
                }
                policies.onError = policy
            default:
                guard let policy = choice(option, EntryPolicies.Nulls.self) else {
                    valid = false
                    continue
                }
                if policy == .clear, let type, !Self.isNullable(type) {
                    report(
                        option, "\"@null\": \"clear\" sets \"\(property)\" to nil, but it is \(type), not optional",
                        help: "declare it \"\(type)?\" in its model")
                    valid = false
                }
                policies.null = policy
            }
        }
        return policies
    }

    /// `"@identity": "id"` or `["owner", "number"]` on a collection of models built by
    /// `@object`, or `"@key"` on a `[String: Model]` dictionary.
    private mutating func identity(
        _ option: SyntaxMember, type: TypeReference?, object: ObjectRule?, property: String
    ) -> IdentityRule? {
        let provenance = provenance(option.keyLocation, option.value)
        if let type, type.holdsCollections {
            report(
                option,
                "\"@identity\" matches the elements of [Model] or [String: Model], but \"\(property)\" is \(type)")
            return nil
        }
        if let type, Self.isDictionary(type) {
            guard option.value.stringValue == IdentityRule.key else {
                report(
                    option, "the elements of the dictionary \"\(property)\" are identified by their key",
                    help: "write \"@identity\": \"\(IdentityRule.key)\"", at: option.value.location)
                return nil
            }
            guard object != nil else {
                report(option, "\"@identity\" matches the objects \"@object\" builds, but \"\(property)\" has none")
                return nil
            }
            return IdentityRule(properties: [], models: [], provenance: provenance)
        }
        if let type, !type.isCollection {
            report(
                option, "\"@identity\" matches the elements of a collection, but \"\(property)\" is \(type)",
                help: "use it on a [Model] or [String: Model] entry")
            return nil
        }
        let elementModels: [String]
        if let union = object?.union {
            // Every member an element may be, even one no case builds yet.
            elementModels =
                Self.unionMembers(of: type)
                ?? (union.cases.map(\.model) + (union.otherwise.map { [$0.model] } ?? [])).reduce(into: []) {
                    if !$0.contains($1) { $0.append($1) }
                }
        } else if let modelName = object?.model, models[modelName] != nil {
            elementModels = [modelName]
        } else {
            report(
                option, "\"@identity\" names properties of the elements' model, but \"\(property)\" builds none",
                help: "add \"@object\": { \"@class\": …, \"@mappings\": … }")
            return nil
        }
        return identityRule(option.value, of: elementModels, provenance: provenance)
    }

    /// A context's own `"@identity"`: the properties of its model that identify the record it
    /// maps, which a database destination keys its table by (`stream --to`, docs/operations.md).
    mutating func contextIdentity(_ member: SyntaxMember, model: String?) -> IdentityRule? {
        guard let model, models[model] != nil else {
            report(
                member, "\"@identity\" names properties of the context's model, but this context builds none",
                help: "add \"@class\" with the model it builds")
            return nil
        }
        return identityRule(member.value, of: [model], provenance: provenance(member.keyLocation, member.value))
    }

    /// The identity properties `value` names (one name or a list of them) in `elementModels`.
    private mutating func identityRule(_ value: SyntaxNode, of elementModels: [String], provenance: Provenance)
        -> IdentityRule?
    {
        let nodes: [SyntaxNode]
        if case .array(let elements) = value.kind, !elements.isEmpty {
            nodes = elements
        } else {
            nodes = [value]
        }
        var names: [String] = []
        var slots = [[Int]](repeating: [], count: elementModels.count)
        for node in nodes {
            guard let name = node.stringValue, !name.isEmpty else {
                diagnostics.append(
                    Diagnostic(
                        message: "\"@identity\" takes a property name or a list of them, not \(node.typeName)",
                        location: node.location, help: "for example \"id\" or [\"owner\", \"number\"]"))
                return nil
            }
            guard !names.contains(name) else {
                diagnostics.append(
                    Diagnostic(
                        message: "\"@identity\" names \"\(name)\" twice", location: node.location,
                        help: "remove one of them"))
                return nil
            }
            guard let found = identitySlots(of: name, in: elementModels, at: node.location) else { return nil }
            for position in slots.indices { slots[position].append(found[position]) }
            names.append(name)
        }
        return IdentityRule(
            properties: names, models: zip(elementModels, slots).map { IdentityRule.Slots(model: $0, slots: $1) },
            provenance: provenance)
    }

    /// The slot of the identity property `name` in each of `elementModels` (one model, or the
    /// members of a union); `nil` after reporting a model that lacks it, a property that is
    /// no single value, or members that declare it with different types.
    private mutating func identitySlots(of name: String, in elementModels: [String], at location: SourceLocation)
        -> [Int]?
    {
        let union = elementModels.count > 1 ? elementModels.joined(separator: " | ") : nil
        var found: [Int] = []
        var first: (model: String, type: TypeReference)?
        for modelName in elementModels {
            guard let model = models[modelName] else { return nil }
            guard let slot = model.slot(of: name) else {
                diagnostics.append(
                    Diagnostic(
                        message: "\"@identity\" names \"\(name)\", but \(modelName)"
                            + (union.map { ", a member of \($0)," } ?? "") + " has no such property",
                        location: location,
                        help: Suggestion.help(for: name, among: model.properties.map(\.name))
                            ?? "its properties are " + model.properties.map { "\"\($0.name)\"" }.joined(separator: ", ")
                    ))
                return nil
            }
            let type = model.properties[slot].type
            switch type.unwrapped {
            case .model, .union, .array, .dictionary, .set, .json:
                diagnostics.append(
                    Diagnostic(
                        message: "\"@identity\" compares values, but \(modelName).\(name) is \(type)",
                        location: location, help: "name a property of a scalar type, such as String or Int"))
                return nil
            default: break
            }
            if let first, first.type.unwrapped != type.unwrapped {
                diagnostics.append(
                    Diagnostic(
                        message:
                            "\"@identity\" compares \"\(name)\" across \(union ?? modelName), but \(first.model).\(name) is \(first.type) and \(modelName).\(name) is \(type)",
                        location: location,
                        help: "declare \"\(name)\" with the same type in every member, or identify by another property")
                )
                return nil
            }
            if first == nil { first = (modelName, type) }
            found.append(slot)
        }
        return found
    }

    /// The policy `option` names among `Choice`'s values; `nil` after reporting another value.
    private mutating func choice<Choice: RawRepresentable & CaseIterable>(_ option: SyntaxMember, _: Choice.Type)
        -> Choice? where Choice.RawValue == String
    {
        if let text = option.value.stringValue, let choice = Choice(rawValue: text) { return choice }
        let names = Choice.allCases.map(\.rawValue)
        let found = option.value.stringValue.map { "\"\($0)\"" } ?? option.value.typeName
        let listed = names.dropLast().map { "\"\($0)\"" }.joined(separator: ", ") + " or \"\(names.last ?? "")\""
        diagnostics.append(
            Diagnostic(
                message: "\"\(option.key)\" is \(listed), not \(found)", location: option.value.location,
                help: option.value.stringValue.flatMap { Suggestion.help(for: $0, among: names) }))
        return nil
    }

    private mutating func report(
        _ option: SyntaxMember, _ message: String, help: String? = nil, at location: SourceLocation? = nil
    ) {
        diagnostics.append(Diagnostic(message: message, location: location ?? option.keyLocation, help: help))
    }

    private static func isDictionary(_ type: TypeReference) -> Bool {
        if case .dictionary = type.unwrapped { return true }
        return false
    }

    /// Whether a property of `type` may hold nil: an optional, or JSON (which holds `null`).
    private static func isNullable(_ type: TypeReference) -> Bool {
        if case .optional = type { return true }
        return type == .json
    }
}
