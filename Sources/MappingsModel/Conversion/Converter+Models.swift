import MappingsJSON

/// Converting an object to a model by property name, as a context would map it.
extension Converter {
    /// Converts each property the model declares from the member of the same name; a missing
    /// non-optional property is a failure when `requiresValues`, and the rest still convert.
    func convertModel(
        _ value: JSONValue, named name: String, path: () -> String, failures: inout [ConversionFailure]
    ) -> Value {
        guard let model = models[name] else {
            return Self.fail("the model \"\(name)\" is not declared", at: path, &failures)
        }
        guard case .object(let object) = value else {
            return Self.fail(Self.mismatch(value, .model(name)), at: path, &failures)
        }
        var instance = ModelObject(model: model)
        for (slot, property) in model.properties.enumerated() {
            // By property name, as a context would be: a non-optional property needs a value.
            guard let member = object[property.name], member != .null else {
                if !requiresValues { continue }
                if case .optional = property.type { continue }
                failures.append(
                    ConversionFailure(
                        relativePath: path() + "." + property.name,
                        message: Self.missingValue(
                            for: "\(model.name).\(property.name)", isNull: object[property.name] != nil),
                        isMissingValue: true))
                continue
            }
            instance.slots[slot] = convert(
                member, to: property.type, dateFormat: nil,
                path: { path() + "." + property.name }, failures: &failures)
        }
        return .object(instance)
    }

    /// `missing required value for U.name`; `…: the payload has null there` when the key is
    /// present with `null` (which counts as missing), so that a report tells the two apart.
    package static func missingValue(for property: String, isNull: Bool) -> String {
        "missing required value for \(property)" + (isNull ? ": the payload has null there" : "")
    }
}
