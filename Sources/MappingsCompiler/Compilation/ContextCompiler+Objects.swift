import MappingsJSON
import MappingsModel

/// Compiling `@object`s: referenced, inline and dotted-path `@mappings`, and the class each builds.
extension ContextCompiler {
    /// Compiles an entry's `@object`; `nil` (reported) when it is wrong.
    mutating func compileObject(_ member: SyntaxMember, propertyType: TypeReference?, property: String)
        -> ObjectRule?
    {
        guard let options = objectOptions(member) else { return nil }
        if choosesMember(options, propertyType: propertyType) {
            return compileUnion(member, options: options, propertyType: propertyType, property: property)
        }
        var expected: String?
        if let propertyType {
            switch propertyType.innermostElement {
            case .model(let name): expected = name
            case .json: expected = nil
            default:
                diagnostics.append(
                    Diagnostic(
                        message: "\"@object\" builds objects, but \"\(property)\" is \(propertyType)",
                        location: member.keyLocation,
                        help: "declare \"\(property)\" with a model type, or remove \"@object\""))
                return nil
            }
        }
        var explicitClass: (name: String, location: SourceLocation)?
        var mappings: SyntaxMember?
        var valid = true
        for option in options {
            switch option.key {
            case "@class":
                if let name = className(option.value) {
                    explicitClass = (name, option.value.location)
                } else {
                    valid = false
                }
            case "@mappings": mappings = option
            default:
                diagnostics.append(unknownKeyword(option, in: "\"@object\"", allowed: Keywords.object))
                valid = false
            }
        }
        guard valid else { return nil }
        if let explicitClass, let expected, explicitClass.name != expected {
            diagnostics.append(
                Diagnostic(
                    message: "\"\(property)\" holds \(expected), but \"@object\" builds \(explicitClass.name)",
                    location: explicitClass.location))
            return nil
        }
        guard let mappings else {
            return ObjectRule(model: explicitClass?.name ?? expected, context: nil)
        }
        switch mappings.value.kind {
        case .string(let reference):
            if let index = named[reference] {
                let declared = inheritance.definition(reference).flatMap(declaredClass)
                let model = explicitClass?.name ?? declared ?? expected
                if let declared, let required = explicitClass?.name ?? expected, declared != required {
                    diagnostics.append(
                        Diagnostic(
                            message: "\"\(reference)\" builds \(declared), but \"\(property)\" needs \(required)",
                            location: mappings.value.location))
                    return nil
                }
                if declared == model { return ObjectRule(model: model, context: index) }
                return ObjectRule(model: model, context: retarget(reference, model: model))
            }
            guard let node = inheritance.lookup(reference, at: mappings.value.location, purpose: "\"@mappings\"") else {
                return nil
            }
            return inline(
                node, explicitClass: explicitClass?.name, expected: expected, property: property,
                at: mappings.value.location)
        case .object:
            return inline(
                mappings.value, explicitClass: explicitClass?.name, expected: expected, property: property,
                at: mappings.value.location)
        default:
            reportMappingsShape(mappings)
            return nil
        }
    }

    /// Compiles an inline (or dotted-path) context for an `@object`.
    mutating func inline(
        _ node: SyntaxNode, explicitClass: String?, expected: String?, property: String, at location: SourceLocation
    ) -> ObjectRule? {
        let declared = declaredClass(node)
        let model = explicitClass ?? declared ?? expected
        if let declared, let required = explicitClass ?? expected, declared != required {
            diagnostics.append(
                Diagnostic(
                    message: "these mappings build \(declared), but \"\(property)\" needs \(required)",
                    location: location))
            return nil
        }
        let index = contexts.count
        contexts.append(nil)
        contexts[index] = compileBody(node, identifier: nil, index: index, model: model)
        return ObjectRule(model: model, context: index)
    }

    /// The named context compiled again for `model` (it names no `@class` of its own).
    mutating func retarget(_ name: String, model: String?) -> Int? {
        let key = name + "\u{0}" + (model ?? "")
        if let done = retargeted[key] { return done }
        guard let node = inheritance.definition(name) else { return nil }
        let index = contexts.count
        contexts.append(nil)
        retargeted[key] = index
        contexts[index] = compileBody(node, identifier: nil, index: index, model: model)
        return index
    }

}
