import Foundation
import MappingsJSON
import MappingsModel

/// Turns `@models` declarations into `Model`s, checking names and types.
struct ModelCompiler {
    private(set) var models: [String: Model] = [:]
    private(set) var diagnostics: [Diagnostic] = []

    /// - Parameter external: models declared elsewhere (bound to Swift types) that declarations may name.
    init(declarations: [Declaration], order: [String], external: [String] = []) {
        var pending: [(Model, [(Property, SourceLocation, String)])] = []
        for name in order {
            guard let declaration = declarations.first(where: { $0.name == name }) else { continue }
            if let model = compile(declaration) { pending.append(model) }
        }
        for (model, _) in pending { models[model.name] = model }
        let known = Array(TypeReference.scalars.keys) + Array(models.keys) + external
        for (_, properties) in pending {
            for (property, typeLocation, text) in properties {
                for name in property.type.modelNames where models[name] == nil && !external.contains(name) {
                    var at = typeLocation
                    if let range = text.range(of: name) {
                        at.column += 1 + text.distance(from: text.startIndex, to: range.lowerBound)
                        at.length = name.count
                    }
                    diagnostics.append(
                        Diagnostic(
                            message: "unknown type \"\(name)\"", location: at,
                            help: Suggestion.help(for: name, among: known)
                                ?? "types are String, Int, Double, Bool, Decimal, URL, Date, UUID, JSON, a declared model, [T], [String: T] and T?"
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
                        "the model \"\(declaration.name)\" is declared by an object of properties, not \(declaration.node.typeName)",
                    location: declaration.node.location,
                    help: "write \"\(declaration.name)\": { \"name\": \"String\" }"))
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
                let type = try TypeParser.parse(text)
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

    static func isIdentifier(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, first.properties.isAlphabetic || first == "_" else { return false }
        return text.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" }
    }
}
