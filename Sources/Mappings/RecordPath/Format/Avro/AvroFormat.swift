import Foundation
package import MappingsCompiler

/// The Avro format's decoder and encoder as the command line asks for them (`--avro-schema`,
/// `--avro-codec`; docs/formats.md, "Avro").
package enum AvroFormat {
    /// The codec a container is written with when none is asked for: deflate, which the
    /// specification requires every implementation to read.
    package static let defaultCodec = "deflate"

    /// The writer schemas `--avro-schema` gives: `FILE`, or `ID=FILE` for Confluent-framed
    /// messages that name the schema registry id `ID`.
    /// - Parameter given: each `--avro-schema` as written.
    package static func schemas(_ given: [String]) throws(FormatRefusal) -> [(id: UInt32?, schema: AvroSchema)] {
        var schemas: [(id: UInt32?, schema: AvroSchema)] = []
        for argument in given {
            var id: UInt32?
            var path = argument
            if let equals = argument.firstIndex(of: "="), let number = UInt32(argument[..<equals]) {
                id = number
                path = String(argument[argument.index(after: equals)...])
            }
            schemas.append((id, try schema(at: path)))
        }
        return schemas
    }

    /// The schema in the file at `path`.
    package static func schema(at path: String) throws(FormatRefusal) -> AvroSchema {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw FormatRefusal("the Avro schema \(path) cannot be read")
        }
        do {
            return try AvroSchema(parsing: String(decoding: data, as: UTF8.self))
        } catch {
            throw FormatRefusal("the Avro schema \(path) is invalid: \(error.message)")
        }
    }

    /// The decoder of Avro input: containers carry their schema; messages need `schemas`.
    /// - Parameter schemas: each `--avro-schema` as written.
    package static func decoder(schemas: [String]) throws(FormatRefusal) -> AvroDecoder {
        try requireCodecs()
        return AvroDecoder(schemas: try Self.schemas(schemas))
    }

    /// The encoder of what `context` maps to as a container: of the schema given (which the
    /// context's output must fit: checked now, before any record), else of the derived one.
    /// - Parameters:
    ///   - context: the context records are mapped with.
    ///   - catalog: the catalog `context` is of.
    ///   - schemas: `--avro-schema`: none, or the one file to write by.
    ///   - codec: `--avro-codec`, else `defaultCodec`.
    package static func encoder(
        for context: CompiledContext, in catalog: Catalog, schemas: [String], codec: String?
    ) throws(FormatRefusal) -> AvroContainerEncoder {
        try requireCodecs()
        let derived = try AvroSchema.derived(for: context, in: catalog)
        var schema = derived
        if let path = schemas.first {
            let given = try Self.schemas(schemas)
            guard given.count == 1, given[0].id == nil else {
                throw FormatRefusal(
                    "--to-format avro writes by one schema: give --avro-schema FILE once, without an id")
            }
            schema = given[0].schema
            if let refusal = schema.recordRefusal { throw FormatRefusal("\(path): the \(refusal)") }
            if let misfit = schema.misfit(of: derived) {
                throw FormatRefusal(
                    "what \(context.identifier ?? "the context") maps to does not fit the Avro schema \(path): \(misfit)"
                )
            }
        }
        return try AvroContainerEncoder(schema: schema, codec: codec ?? defaultCodec)
    }

    /// avro-c is there, or why not (the package to install).
    private static func requireCodecs() throws(FormatRefusal) {
        if let error = AvroCodec.unavailability { throw FormatRefusal(error) }
    }
}
