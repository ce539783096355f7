import MappingsJSON

extension Value {
    /// The value as compact JSON text by the output rules: a model object with every property in
    /// declaration order (`null` where unset), dates in ISO 8601 UTC, decimals with their digits.
    public var jsonText: String { JSONWriter.string(self) }
}
