package import MappingsCompiler
import MappingsEngine
import MappingsJSON
import MappingsModel

extension AvroSchema {
    /// The Avro schema of what `context` maps to (`mappings schema --format avro`, and the schema
    /// `--to-format avro` writes when it is given none), read off its output shape: a record of
    /// the context's fields, in their order; a field that may be `null` or left out is a union
    /// with `null` first (default `null`).
    ///
    /// Types: `String` and `URL` strings, `Int` a long, `Double` a double, `Bool` a boolean,
    /// `Date` a long of `timestamp-micros` (a date keeps microseconds), `UUID` a string of
    /// `uuid`, `Decimal` a string of its exact digits (a decimal's scale varies, Avro's does not),
    /// an enum an Avro enum (a string when a value is no Avro name), `JSON` a string of its JSON
    /// text, models and built objects records, arrays and sets arrays, dictionaries maps.
    /// - Parameters:
    ///   - context: the context whose output the schema describes.
    ///   - catalog: the catalog the context is of.
    /// - Throws: a `FormatRefusal` when a field's name is no Avro name.
    package static func derived(for context: CompiledContext, in catalog: Catalog) throws(FormatRefusal) -> AvroSchema {
        var deriver = AvroSchemaDeriver(catalog: catalog)
        let name = context.modelDefinition?.name ?? context.identifier ?? "Record"
        let json = try deriver.record(name: name, fields: OutputShape.fields(of: context, catalog: catalog))
        let text = JSONWriter.string(json)
        do {
            return try AvroSchema(parsing: text)
        } catch {
            throw FormatRefusal("the derived Avro schema is invalid (\(error.message)): \(text)")
        }
    }

    /// Whether `name` is an Avro name: a letter or `_`, then letters, digits and `_`.
    package static func isName(_ name: String) -> Bool {
        guard let first = name.utf8.first, first == UInt8(ascii: "_") || isLetter(first) else { return false }
        return name.utf8.allSatisfy { $0 == UInt8(ascii: "_") || isLetter($0) || (48...57).contains($0) }
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (65...90).contains(byte) || (97...122).contains(byte)
    }
}
