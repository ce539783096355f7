/// The schema languages `Catalog.outputSchema(of:as:)` writes a context's output shape in. (A
/// Spark `StructType` is the Spark integration's: `mappings schema --format spark`.)
public enum SchemaFormat: String, Sendable, CaseIterable {
    /// JSON Schema, draft 2020-12: what a validator checks each mapped record against.
    case jsonSchema = "json-schema"
}
