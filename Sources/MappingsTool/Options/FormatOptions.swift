import ArgumentParser
import Foundation
import Mappings
import MappingsStream

/// `--from-format` and `--to-format`: the formats `map` and `stream` read and write records in
/// (docs/formats.md). Without them, an input's format is its file's (`RecordFormat.detect`), and
/// the output is JSON lines.
struct FormatOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The inputs' format: json, csv, avro or protobuf (default: by each file's extension — .csv, .avro, .pb — or first bytes, else json; stdin is json).",
            valueName: "format"))
    var fromFormat: RecordFormat?

    @Option(
        help: ArgumentHelp(
            "The output's format: json (the default), csv (a header of the context's output properties, then a row per record) or avro (an object container file); rejects stay JSON lines.",
            valueName: "format"))
    var toFormat: RecordFormat?

    @Option(
        help: ArgumentHelp(
            "An Avro schema file: the writer schema of single-object messages, or of Confluent-framed ones with ID= (their schema registry id); with --to-format avro, the schema to write by (default: the context's, as 'mappings schema --format avro' prints it).",
            valueName: "[ID=]file"))
    var avroSchema: [String] = []

    @Option(
        help: ArgumentHelp(
            "With --to-format avro: the container's codec, deflate (the default), null, snappy or lzma (avro-c's own).",
            valueName: "codec"))
    var avroCodec: String?

    /// What the formats' decoders and encoders are made with.
    var settings: FormatSettings { FormatSettings(avroSchemas: avroSchema, avroCodec: avroCodec) }

    func validate() throws {
        if avroCodec != nil, toFormat != .avro {
            throw ValidationError("--avro-codec is the codec of --to-format avro")
        }
    }

    /// The format of the input `path` (`nil`: standard input) open at `descriptor`: `--from-format`,
    /// else its name's, else its first bytes' (read without moving the descriptor), else JSON lines.
    func format(of path: String?, descriptor: Int32) -> RecordFormat {
        if let fromFormat { return fromFormat }
        guard path != nil else { return .json }
        var head = [UInt8](repeating: 0, count: 4)
        let count = head.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress!, 4, 0) }
        return RecordFormat.detect(path: path, head: Array(head.prefix(max(0, count)))) ?? .json
    }

    /// The decoder of `format` (`nil` for JSON lines), or exit 2 saying why there is none.
    func decoder(_ format: RecordFormat, for path: String?, command: String) throws -> (any RecordDecoder)? {
        do {
            return try format.decoder(settings)
        } catch {
            Terminal.error("error: mappings \(command): \(path ?? "<stdin>"): \(error.message)")
            throw ToolFailure(status: .loadFailure)
        }
    }

    /// `--to-format`'s encoder of what `context` maps to (`nil` for JSON lines), or exit 2.
    func encoder(for context: CompiledContext, in catalog: Catalog, command: String) throws -> (any RecordEncoder)? {
        guard let toFormat else { return nil }
        do {
            return try toFormat.encoder(for: context, in: catalog, settings)
        } catch {
            Terminal.error("error: mappings \(command) --to-format \(toFormat.rawValue): \(error.message)")
            throw ToolFailure(status: .loadFailure)
        }
    }

    /// An input its format could not read on: exit 2 naming the input and the byte.
    static func unreadable(_ failure: FormatFailure, format: RecordFormat, path: String?, command: String)
        -> ToolFailure
    {
        Terminal.error(
            "error: mappings \(command): \(path ?? "<stdin>") is not \(format.rawValue) past byte \(failure.offset): \(failure.message)"
        )
        return ToolFailure(status: .loadFailure)
    }
}

extension RecordFormat: ExpressibleByArgument {}
