import MappingsJSON
import MappingsModel

/// The declared models with the models bound to Swift types added, and where they disagree.
///
/// A file may declare the same model as a Swift type, as long as it declares the same
/// properties with the same types; otherwise the load fails:
/// ```
/// error: the model "UserModel" does not match the Swift type User: "imageUrl" is String here, URL? in Swift; "age" is not bound by the Swift type
/// ```
struct TypedModelMerge {
    /// Every model, by name; a Swift type's model replaces a file's of the same name.
    private(set) var models: [String: Model]
    private(set) var diagnostics: [Diagnostic] = []

    /// Adds the models bound to Swift types to the `declared` ones; the Swift type's model is
    /// the one used (its property order is the order its key paths bind in). Reports a typed
    /// model a file declares differently, and a typed property of a model nobody declares.
    ///
    /// A Swift enum property (`Enumeration(Status.self)`) must list the same values as a file's
    /// enum of the same name:
    /// ```
    /// error: the enum "Status" of the property "status" of Account lists "active", "deleted" in Swift, "active", "suspended" here
    /// ```
    init(_ typed: [RegisteredModel], into declared: [String: Model], enumerations: [String: Enumeration] = [:]) {
        models = declared
        for registered in typed {
            let model = registered.model
            if let file = declared[model.name] {
                let mine = Dictionary(model.properties.map { ($0.name, $0.type) }, uniquingKeysWith: { a, _ in a })
                let theirs = Dictionary(file.properties.map { ($0.name, $0.type) }, uniquingKeysWith: { a, _ in a })
                if mine != theirs {
                    var differences: [String] = []
                    for property in file.properties {
                        switch mine[property.name] {
                        case nil: differences.append("\"\(property.name)\" is not bound by the Swift type")
                        case let type? where type != property.type:
                            differences.append("\"\(property.name)\" is \(property.type) here, \(type) in Swift")
                        default: break
                        }
                    }
                    for property in model.properties where theirs[property.name] == nil {
                        differences.append(
                            "\"\(property.name)\" (\(property.type)) is bound in Swift but not declared here")
                    }
                    diagnostics.append(
                        Diagnostic(
                            message:
                                "the model \"\(model.name)\" does not match the Swift type \(registered.swiftType): "
                                + differences.joined(separator: "; "),
                            location: file.location,
                            notes: [
                                Diagnostic.Note(message: "the Swift type is bound here", location: registered.location)
                            ],
                            help: "declare the same properties and types as the Swift type, or remove this declaration")
                    )
                }
            }
            models[model.name] = model
        }
        for registered in typed {
            for property in registered.model.properties {
                if case .enumeration(let swift) = property.type.elementType, let file = enumerations[swift.name],
                    file.values != swift.values
                {
                    diagnostics.append(
                        Diagnostic(
                            message:
                                "the enum \"\(swift.name)\" of the property \"\(property.name)\" of \(registered.swiftType) lists \(swift.listed) in Swift, \(file.listed) here",
                            location: property.location,
                            help: "declare the same values, in the same order, in Swift and in \"@models\""))
                }
                for name in property.type.modelNames where models[name] == nil {
                    diagnostics.append(
                        Diagnostic(
                            message:
                                "the property \"\(property.name)\" of \(registered.swiftType) is of the unknown model \"\(name)\"",
                            location: property.location,
                            help: Suggestion.help(for: name, among: models.keys)
                                ?? "declare the model \"\(name)\", or register its Swift type"))
                }
            }
        }
    }
}
