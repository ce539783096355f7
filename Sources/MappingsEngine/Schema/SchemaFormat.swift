/// The schema languages `Catalog.outputSchema(of:as:)` writes a context's output shape in.
public enum SchemaFormat: String, Sendable, CaseIterable {
    /// JSON Schema, draft 2020-12: what a validator checks each mapped record against.
    case jsonSchema = "json-schema"
    /// A Spark `StructType` as JSON, as `StructType.fromJson` (PySpark) and `DataType.fromJson`
    /// (Scala) read it: the type of a DataFrame of mapped records.
    case spark
}
