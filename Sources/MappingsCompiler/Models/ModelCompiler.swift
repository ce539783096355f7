import Foundation
import MappingsJSON
import MappingsModel

/// Turns `@models` declarations into `Model`s and `Enumeration`s, checking names and types.
///
/// A declaration whose value is an array of strings is an enum (`"Status": ["active",
/// "deleted"]`); the enums are read first, so that a property may name one wherever it is
/// declared.
struct ModelCompiler {
    private(set) var models: [String: Model] = [:]
    private(set) var enumerations: [String: Enumeration] = [:]
    private(set) var diagnostics: [Diagnostic] = []

    /// - Parameter external: models declared elsewhere (bound to Swift types) that declarations may name.
    /// - Parameter incomplete: whether a file did not parse; a type no declaration has is then
    ///   not reported (the broken file may declare it).
    init(declarations: [Declaration], order: [String], external: [String] = [], incomplete: Bool = false) {
        var pending: [(Model, [(Property, SourceLocation, String)])] = []
        let ordered = order.compactMap { name in declarations.first(where: { $0.name == name }) }
        for declaration in ordered {
            if case .array(let elements) = declaration.node.kind {
                compileEnumeration(declaration, elements: elements, external: external)
            }
        }
        for declaration in ordered {
            if case .array = declaration.node.kind { continue }
            if let model = compile(declaration) { pending.append(model) }
        }
        for (model, _) in pending { models[model.name] = model }
        let known = Array(TypeReference.scalars.keys) + Array(models.keys) + Array(enumerations.keys) + external
        for (_, properties) in pending {
            for (property, typeLocation, text) in properties {
                for name in property.type.modelNames
                where models[name] == nil && !external.contains(name) && (!incomplete || enumerations[name] != nil) {
                    var at = typeLocation
                    if let range = text.range(of: name) {
                        at.column += 1 + text.distance(from: text.startIndex, to: range.lowerBound)
                        at.length = name.count
                    }
                    if enumerations[name] != nil {
                        diagnostics.append(
                            Diagnostic(
                                message: "a union's members are models, but \"\(name)\" is an enum", location: at,
                                help: "list models only, such as Circle | Rect"))
                        continue
                    }
                    diagnostics.append(
                        Diagnostic(
                            message: "unknown type \"\(name)\"", location: at,
                            help: Suggestion.help(for: name, among: known)
                                ?? "types are String, Int, Double, Bool, Decimal, URL, Date, UUID, JSON, a declared model or enum, [T], [String: T] and T?"
                        ))
                }
            }
        }
    }

    private mutating func compile(_ declaration: Declaration) -> (Model, [(Property, SourceLocation, String)])? {
        guard Self.isIdentifier(declaration.name) else {
            diagnostics.append(
                Diagnostic(
                    message: "\"\(declaration.name)\" is not a valid model name", location: declaration.nameLocation,
                    help: "a model name is a letter or '_' followed by letters, digits or '_'"))
            return nil
        }
        if TypeReference.scalars[declaration.name] != nil {
            diagnostics.append(
                Diagnostic(
                    message: "\"\(declaration.name)\" is a built-in type and cannot be declared as a model",
                    location: declaration.nameLocation))
            return nil
        }
        guard let members = declaration.node.members else {
            diagnostics.append(
                Diagnostic(
                    message:
                        "the model \"\(declaration.name)\" is declared by an object of properties (or an enum by an array of strings), not \(declaration.node.typeName)",
                    location: declaration.node.location,
                    help:
                        "write \"\(declaration.name)\": { \"name\": \"String\" } or \"\(declaration.name)\": [\"a\", \"b\"]"
                ))
            return nil
        }
        var properties: [(Property, SourceLocation, String)] = []
        for member in members {
            if member.key.hasPrefix("@") {
                diagnostics.append(
                    Diagnostic(
                        message: "\"\(member.key)\" has no meaning in a model declaration",
                        location: member.keyLocation,
                        help: "a model lists properties and their types, such as \"name\": \"String\""))
                continue
            }
            guard Self.isIdentifier(member.key) else {
                diagnostics.append(
                    Diagnostic(
                        message: "\"\(member.key)\" is not a valid property name", location: member.keyLocation,
                        help: "a property name is a letter or '_' followed by letters, digits or '_'"))
                continue
            }
            guard let text = member.value.stringValue else {
                diagnostics.append(
                    Diagnostic(
                        message: "the type of \"\(member.key)\" is written as a string, not \(member.value.typeName)",
                        location: member.value.location, help: "write \"\(member.key)\": \"String\""))
                continue
            }
            do {
                let type = try TypeParser.parse(text).resolvingEnumerations(enumerations)
                if let problem = type.setProblem {
                    diagnostics.append(
                        Diagnostic(
                            message: "in the type of \"\(member.key)\": \(problem)", location: member.value.location,
                            help: "use an array, [T], for models, unions and collections"))
                    continue
                }
                properties.append(
                    (Property(name: member.key, type: type, location: member.keyLocation), member.value.location, text))
            } catch {
                var at = member.value.location
                at.column += 1 + error.offset
                at.length = error.length
                diagnostics.append(
                    Diagnostic(
                        message: "in the type of \"\(member.key)\": \(error.message)", location: at,
                        help: error.help))
            }
        }
        let model = Model(name: declaration.name, properties: properties.map(\.0), location: declaration.nameLocation)
        return (model, properties)
    }

    /// Reads an enum declaration: a non-empty array of distinct strings, named like a model.
    private mutating func compileEnumeration(_ declaration: Declaration, elements: [SyntaxNode], external: [String]) {
        let name = declaration.name
        guard Self.isIdentifier(name) else {
            diagnostics.append(
                Diagnostic(
                    message: "\"\(name)\" is not a valid enum name", location: declaration.nameLocation,
                    help: "an enum name is a letter or '_' followed by letters, digits or '_'"))
            return
        }
        if TypeReference.scalars[name] != nil {
            diagnostics.append(
                Diagnostic(
                    message: "\"\(name)\" is a built-in type and cannot be declared as an enum",
                    location: declaration.nameLocation, help: "name the enum otherwise, such as \"\(name)Kind\""))
            return
        }
        if external.contains(name) {
            diagnostics.append(
                Diagnostic(
                    message: "\"\(name)\" is declared as an enum here and as a model by a Swift type",
                    location: declaration.nameLocation, help: "a type name is either a model or an enum"))
            return
        }
        if elements.isEmpty {
            diagnostics.append(
                Diagnostic(
                    message: "the enum \"\(name)\" has no values", location: declaration.node.location,
                    help: "list its values: \"\(name)\": [\"active\", \"deleted\"]"))
        }
        var values: [String] = []
        var seen: [CodePointKey: SourceLocation] = [:]
        for element in elements {
            guard let value = element.stringValue else {
                diagnostics.append(
                    Diagnostic(
                        message: "the values of the enum \"\(name)\" are strings, not \(element.typeName)",
                        location: element.location, help: "write it as a string: \"\(element.jsonValue.jsonText)\""))
                continue
            }
            if let first = seen[CodePointKey(value)] {
                diagnostics.append(
                    Diagnostic(
                        message: "the enum \"\(name)\" lists \"\(value)\" twice", location: element.location,
                        notes: [Diagnostic.Note(message: "first listed here", location: first)],
                        help: "remove one of them"))
                continue
            }
            seen[CodePointKey(value)] = element.location
            values.append(value)
        }
        // Declared even when a value was reported: the load fails anyway, and properties of the
        // type are not reported again as of an unknown type.
        enumerations[name] = Enumeration(name: name, values: values)
    }

    static func isIdentifier(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, first.properties.isAlphabetic || first == "_" else { return false }
        return text.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" }
    }
}
