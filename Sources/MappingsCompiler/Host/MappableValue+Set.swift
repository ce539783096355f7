public import MappingsModel

/// A Swift `Set` is a `{T}` property: the engine hands it the set's distinct values, and
/// writes it back in the set's canonical order (strings by code points, numbers by value).
extension Set: MappableValue where Element: MappableValue {
    public static var mappingType: TypeReference { .set(Element.mappingType) }
    public static func mapped(from value: Value, failures: inout [ConversionFailure]) -> Set<Element>? {
        guard let elements = [Element].mapped(from: value, failures: &failures) else { return nil }
        return Set(elements)
    }
    public var mappingValue: Value { .array(SetOrder.sorted(map(\.mappingValue))) }
    public static func registerModels(in definitions: inout Definitions) { Element.registerModels(in: &definitions) }
}
