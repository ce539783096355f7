import MappingsJSON

extension Value {
    /// The value as compact JSON text by the output rules: a model object with every property in
    /// declaration order (`null` where unset), dates in ISO 8601 UTC, decimals with their digits.
    public var jsonText: String { JSONWriter.string(self) }

    /// The value as compact JSON text by the output rules; with `omittingNulls`, unset properties
    /// of model objects are left out instead of written as `null` (null members of arrays and
    /// dictionaries are values, and stay):
    /// `{"name":"Ann"}` rather than `{"name":"Ann","imageUrl":null}` (`--omit-nulls`).
    public func jsonText(omittingNulls: Bool) -> String { JSONWriter.string(self, omittingNulls: omittingNulls) }
}
