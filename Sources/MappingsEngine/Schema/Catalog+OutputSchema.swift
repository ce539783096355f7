public import MappingsCompiler
public import MappingsJSON

extension Catalog {
    /// The shape of what mapping with `context` writes, as a JSON Schema.
    ///
    /// The schema describes the JSON text `mappings map` and `mappings stream` write (and
    /// `Value.jsonText`) for a record that maps without an error: a model object has every
    /// declared property, `null` where nothing is certain to set it; a context without a model
    /// has the keys its entries set, required where an entry is required or has a default.
    /// Dates are ISO 8601 text in UTC (`"format": "date-time"`), URLs and UUIDs strings,
    /// decimals JSON numbers, enums their values (`"enum"`), dictionaries objects
    /// (`additionalProperties`).
    /// ```swift
    /// let schema = catalog.outputSchema(of: try mapper.context("$TweetModel"), as: .jsonSchema)
    /// print(schema.jsonText)   // {"$schema":"https://json-schema.org/draft/2020-12/schema","title":"$TweetModel",…}
    /// ```
    /// - Parameters:
    ///   - context: a context of this catalog.
    ///   - format: the schema language.
    /// - Returns: the schema as a JSON document.
    public func outputSchema(of context: CompiledContext, as format: SchemaFormat) -> JSONValue {
        switch format {
        case .jsonSchema:
            var writer = JSONSchemaWriter(catalog: self, root: context.index)
            return writer.document()
        }
    }
}
