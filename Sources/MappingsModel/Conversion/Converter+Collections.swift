import MappingsJSON

/// Converting to arrays and dictionaries, element by element; a failing element fails at its
/// index (`[3]`) or key (`.name`), and the rest still convert.
extension Converter {
    /// - Parameter type: the array type itself, for the message when `value` is no array.
    func convertArray(
        _ value: JSONValue, of element: TypeReference, as type: TypeReference, dateFormat: DateFormats?,
        path: () -> String, failures: inout [ConversionFailure]
    ) -> Value {
        // An empty Lua table a script left unmarked has no kind: it is the empty array.
        if case .object(let object) = value, object.isKindlessEmpty { return .array([]) }
        guard case .array(let elements) = value else {
            return Self.fail(Self.mismatch(value, type), at: path, &failures)
        }
        return .array(
            elements.enumerated().map { index, item in
                convert(item, to: element, dateFormat: dateFormat, path: { path() + "[\(index)]" }, failures: &failures)
            })
    }

    /// - Parameter type: the dictionary type itself, for the message when `value` is no object.
    func convertDictionary(
        _ value: JSONValue, of element: TypeReference, as type: TypeReference, dateFormat: DateFormats?,
        path: () -> String, failures: inout [ConversionFailure]
    ) -> Value {
        guard case .object(let object) = value else {
            return Self.fail(Self.mismatch(value, type), at: path, &failures)
        }
        return .dictionary(
            ValueDictionary(
                object.members.map { member in
                    (
                        member.key,
                        convert(
                            member.value, to: element, dateFormat: dateFormat,
                            path: { path() + "." + member.key }, failures: &failures)
                    )
                }))
    }
}
