import SwiftSyntax

/// What the macro can tell of a property's type from its spelling alone. Types it cannot judge
/// (the host's own) are left to the compiler, which requires `MappableValue` in the expansion.
enum TypeCheck {
    struct Problem {
        var node: Syntax
        var reason: String
        /// The mapping type to use instead, for a fix-it.
        var replacement: String?
    }

    /// Standard types with no mapping type, and the one to use instead.
    private static let insteadOf: [String: String] = [
        "Int8": "Int", "Int16": "Int", "Int32": "Int", "Int64": "Int",
        "UInt": "Int", "UInt8": "Int", "UInt16": "Int", "UInt32": "Int", "UInt64": "Int",
        "Float": "Double", "Float16": "Double", "Float80": "Double", "CGFloat": "Double",
        "Character": "String", "Substring": "String", "NSString": "String",
        "NSNumber": "Double", "NSDecimalNumber": "Decimal", "NSURL": "URL", "NSDate": "Date",
        "Any": "JSONValue", "AnyObject": "JSONValue",
    ]

    /// Why a property of `type` cannot be bound, or `nil` when its spelling does not tell.
    static func problem(of type: TypeSyntax) -> Problem? {
        if let attributed = type.as(AttributedTypeSyntax.self) { return problem(of: attributed.baseType) }
        if let optional = type.as(OptionalTypeSyntax.self) { return problem(of: optional.wrappedType) }
        if let unwrapped = type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) {
            return problem(of: unwrapped.wrappedType)
        }
        if let array = type.as(ArrayTypeSyntax.self) { return problem(of: array.element) }
        if let dictionary = type.as(DictionaryTypeSyntax.self) {
            return keyProblem(dictionary.key) ?? problem(of: dictionary.value)
        }
        if let tuple = type.as(TupleTypeSyntax.self) {
            if tuple.elements.count == 1, let only = tuple.elements.first, only.firstName == nil {
                return problem(of: only.type)
            }
            return Problem(node: Syntax(type), reason: "a tuple has no mapping type; declare a @MappedModel for it")
        }
        if type.is(FunctionTypeSyntax.self) {
            return Problem(node: Syntax(type), reason: "a function has no mapping type")
        }
        if let existential = type.as(SomeOrAnyTypeSyntax.self) {
            let word = existential.someOrAnySpecifier.text == "some" ? "an opaque type" : "an existential"
            return Problem(node: Syntax(type), reason: "\(word) has no mapping type")
        }
        if type.is(MetatypeTypeSyntax.self) {
            return Problem(node: Syntax(type), reason: "a metatype has no mapping type")
        }
        if type.is(CompositionTypeSyntax.self) {
            return Problem(node: Syntax(type), reason: "a protocol composition has no mapping type")
        }
        if let identifier = type.as(IdentifierTypeSyntax.self) {
            let name = identifier.name.text
            if let arguments = identifier.genericArgumentClause?.arguments {
                let types = arguments.compactMap { $0.argument.as(TypeSyntax.self) }
                if name == "Dictionary", types.count == 2 {
                    return keyProblem(types[0]) ?? problem(of: types[1])
                }
                if ["Optional", "Array", "Set"].contains(name), let element = types.first {
                    return problem(of: element)
                }
                return nil
            }
            if let replacement = insteadOf[name] {
                return Problem(
                    node: Syntax(type), reason: "`\(name)` has no mapping type; use `\(replacement)`",
                    replacement: replacement)
            }
        }
        if let member = type.as(MemberTypeSyntax.self), member.baseType.trimmedDescription == "Swift",
            let replacement = insteadOf[member.name.text]
        {
            return Problem(
                node: Syntax(type), reason: "`\(member.name.text)` has no mapping type; use `\(replacement)`",
                replacement: replacement)
        }
        return nil
    }

    /// A dictionary maps from a JSON object, whose keys are strings.
    private static func keyProblem(_ key: TypeSyntax) -> Problem? {
        let name = key.trimmedDescription
        guard name != "String" && name != "Swift.String" else { return nil }
        return Problem(
            node: Syntax(key), reason: "a dictionary maps from a JSON object, whose keys are `String`, not `\(name)`",
            replacement: "String")
    }

    /// The empty value of a type whose spelling tells one (`""`, `0`, `false`, `[]`, `[:]`), for
    /// the fix-it that gives a property its initial value.
    static func emptyValue(of type: TypeSyntax) -> String? {
        if type.is(ArrayTypeSyntax.self) { return "[]" }
        if type.is(DictionaryTypeSyntax.self) { return "[:]" }
        guard let identifier = type.as(IdentifierTypeSyntax.self) else { return nil }
        if let arguments = identifier.genericArgumentClause?.arguments {
            switch (identifier.name.text, arguments.count) {
            case ("Array", 1), ("Set", 1): return "[]"
            case ("Dictionary", 2): return "[:]"
            default: return nil
            }
        }
        switch identifier.name.text {
        case "String": return "\"\""
        case "Int", "Double", "Decimal": return "0"
        case "Bool": return "false"
        default: return nil
        }
    }
}
