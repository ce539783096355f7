package import MappingsCompiler
import MappingsEngine

/// What a format's decoder or encoder is made with besides the bytes: the options its command
/// line gave (`--from-format`, `--to-format` and the format's own).
package struct FormatSettings: Sendable {
    /// A schema file the format reads or writes records by (a `.proto`).
    package var schemaFile: String?
    /// A message type of the schema (Protobuf's `pkg.Type`).
    package var message: String?
    /// Avro's schema files (`--avro-schema`), as given: `FILE` or `ID=FILE` (`AvroFormat`).
    package var avroSchemas: [String]
    /// The codec of the Avro container written (`--avro-codec`); `nil`: `AvroFormat.defaultCodec`.
    package var avroCodec: String?

    package init(
        schemaFile: String? = nil, message: String? = nil, avroSchemas: [String] = [], avroCodec: String? = nil
    ) {
        self.schemaFile = schemaFile
        self.message = message
        self.avroSchemas = avroSchemas
        self.avroCodec = avroCodec
    }
}

/// Why a format cannot read or write at all (before any record): a format not built into this
/// tool, a schema missing or that the model does not fit.
package struct FormatRefusal: Error, Sendable {
    package var message: String

    package init(_ message: String) {
        self.message = message
    }
}

extension RecordFormat {
    /// The decoder of this format's records; `nil` for JSON lines, which the record path reads
    /// as they are. The one place a format's decoder is made: a new format adds its case here.
    package func decoder(_ settings: FormatSettings) throws(FormatRefusal) -> (any RecordDecoder)? {
        switch self {
        case .json: return nil
        case .csv: return CSVDecoder()
        case .avro: return try AvroFormat.decoder(schemas: settings.avroSchemas)
        case .protobuf: throw FormatRefusal("reading \(rawValue) is not built into this mappings yet")
        }
    }

    /// The encoder of what `context` maps to in this format; `nil` for JSON lines (the mapper's
    /// own output). The one place a format's encoder is made: a new format adds its case here.
    /// - Parameters:
    ///   - context: the context records are mapped with: its output's properties (`OutputShape`)
    ///     are what a schema (a CSV header, an Avro schema) is derived from.
    ///   - catalog: the catalog `context` is of.
    ///   - settings: the format's options.
    package func encoder(
        for context: CompiledContext, in catalog: Catalog, _ settings: FormatSettings
    ) throws(FormatRefusal) -> (any RecordEncoder)? {
        switch self {
        case .json: return nil
        case .csv: return CSVEncoder(columns: OutputShape.fields(of: context, catalog: catalog).map(\.name))
        case .avro:
            return try AvroFormat.encoder(
                for: context, in: catalog, schemas: settings.avroSchemas, codec: settings.avroCodec)
        case .protobuf: throw FormatRefusal("writing \(rawValue) is not built into this mappings yet")
        }
    }
}
