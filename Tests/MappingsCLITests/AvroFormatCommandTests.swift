import Foundation
import MappingsTestSupport
import Testing

/// `--from-format avro` and `--to-format avro` through the tool: a container fastavro wrote
/// (Examples/formats/events.avro) mapped exactly, from a file and from standard input; a
/// container written and read back; `schema --format avro`; refusals and corrupt input.
@Suite("Avro in and out, through the tool")
struct AvroFormatCommandTests {
    static let examples = ToolRunner.packageRoot.appendingPathComponent("Examples/formats")

    static let expected = """
        {"id":9007199254740993,"kind":"ORDER","amount":19.90,"at":"2024-03-01T09:30:00.123456Z","customer":"Ada","email":"ada@example.com","items":["book","pen"]}
        {"id":9007199254740994,"kind":"REFUND","amount":-5.00,"at":"2024-03-02T17:05:59.000001Z","customer":"Grace","email":null,"items":[]}

        """

    static func events() throws -> URL {
        try ToolRunner.directory(with: [
            "events.mappings": try String(
                contentsOf: examples.appendingPathComponent("events.mappings"), encoding: .utf8)
        ])
    }

    /// Runs the tool through the shell (for binary standard input and output).
    static func shell(_ command: String, in directory: URL) throws -> ToolRunner.Result {
        try ToolRunner.runProgram(
            URL(fileURLWithPath: "/bin/sh"), ["-c", command], in: directory,
            environment: ["MAPPINGS": ToolRunner.executable.path])
    }

    @Test(
        "a container fastavro wrote maps exactly: every digit of a long, a decimal's scale, a timestamp's microseconds")
    func readsFastavroContainer() throws {
        let directory = try Self.events()
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.copyItem(
            at: Self.examples.appendingPathComponent("events.avro"), to: directory.appendingPathComponent("events.avro")
        )
        let file = try ToolRunner.run(["stream", "--mappings", "events.mappings", "events.avro"], in: directory)
        #expect(file.status == 0, "\(file.stderr)")
        #expect(file.stdout == Self.expected)
        // Standard input is read as its bytes come: the same records.
        let piped = try Self.shell(
            "\"$MAPPINGS\" stream --mappings events.mappings --from-format avro < events.avro", in: directory)
        #expect(piped.stdout == Self.expected, "\(piped.stderr)")
        // By its first bytes too, whatever its name.
        try FileManager.default.moveItem(
            at: directory.appendingPathComponent("events.avro"), to: directory.appendingPathComponent("events.bin"))
        let named = try ToolRunner.run(["stream", "--mappings", "events.mappings", "events.bin"], in: directory)
        #expect(named.stdout == Self.expected)
    }

    @Test(
        "--to-format avro writes a container that reads back as the records mapped",
        arguments: ["deflate", "null", "snappy", "lzma"])
    func writesContainer(codec: String) throws {
        let directory = try Self.events()
        defer { try? FileManager.default.removeItem(at: directory) }
        let copy = #"{ "$Copy": { "all": "@self" } }"#
        try Data(copy.utf8).write(to: directory.appendingPathComponent("copy.mappings"))
        try FileManager.default.copyItem(
            at: Self.examples.appendingPathComponent("events.avro"), to: directory.appendingPathComponent("events.avro")
        )
        // Avro in, mapped, Avro out: the mapped records, as the derived schema holds them.
        let written = try Self.shell(
            "\"$MAPPINGS\" stream --mappings events.mappings --to-format avro --avro-codec \(codec) events.avro > out.avro",
            in: directory)
        #expect(written.status == 0, "\(written.stderr)")
        let read = try ToolRunner.run(["stream", "--mappings", "copy.mappings", "out.avro"], in: directory)
        #expect(read.status == 0, "\(read.stderr)")
        // A Decimal is written as a string of its digits (its scale varies; an Avro decimal's does not).
        let decimalsAsText = Self.expected.replacingOccurrences(of: #""amount":19.90"#, with: #""amount":"19.90""#)
            .replacingOccurrences(of: #""amount":-5.00"#, with: #""amount":"-5.00""#)
        #expect(read.stdout == decimalsAsText.split(separator: "\n").map { #"{"all":\#($0)}"# + "\n" }.joined())
    }

    @Test("schema --format avro: the record --to-format avro writes by")
    func schema() throws {
        let directory = try Self.events()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try ToolRunner.run(["schema", "--mappings", "events.mappings", "--format", "avro"], in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout
                == #"{"type":"record","name":"Event","fields":[{"name":"id","type":"long"},{"name":"kind","type":{"type":"enum","name":"Kind","symbols":["ORDER","REFUND"]}},{"name":"amount","type":"string"},{"name":"at","type":{"type":"long","logicalType":"timestamp-micros"}},{"name":"customer","type":"string"},{"name":"email","type":["null","string"],"default":null},{"name":"items","type":{"type":"array","items":"string"}}]}"#
                + "\n")
    }

    @Test("a schema the output does not fit is refused before the first record")
    func misfit() throws {
        let directory = try Self.events()
        defer { try? FileManager.default.removeItem(at: directory) }
        let schema =
            #"{"type": "record", "name": "E", "fields": [{"name": "id", "type": "long"}, {"name": "kind", "type": "string"}]}"#
        try Data(schema.utf8).write(to: directory.appendingPathComponent("e.avsc"))
        let result = try ToolRunner.run(
            ["stream", "--mappings", "events.mappings", "--to-format", "avro", "--avro-schema", "e.avsc"],
            in: directory,
            input: Self.expected)
        #expect(result.status == 2)
        #expect(
            result.stderr
                == "error: mappings stream --to-format avro: what $Event maps to does not fit the Avro schema e.avsc: $: the schema's record \"E\" has no field \"amount\", which the output has\n"
        )
    }

    @Test("a corrupt block is a reject naming its byte; a file that is no Avro is an error at byte 0")
    func corrupt() throws {
        let directory = try Self.events()
        defer { try? FileManager.default.removeItem(at: directory) }
        var bytes = try [UInt8](Data(contentsOf: Self.examples.appendingPathComponent("events.avro")))
        // The block's sync marker: its last 16 bytes.
        bytes[bytes.count - 3] ^= 0xFF
        try Data(bytes).write(to: directory.appendingPathComponent("bad.avro"))
        let result = try ToolRunner.run(["stream", "--mappings", "events.mappings", "bad.avro"], in: directory)
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(
            result.stderr.contains(
                "rejected: unreadable record: the block is corrupt (its sync marker is not the header's): its records are lost; nothing follows it"
            ), "\(result.stderr)")
        try Data("{\"id\": 1}\n".utf8).write(to: directory.appendingPathComponent("plain.avro"))
        let plain = try ToolRunner.run(["stream", "--mappings", "events.mappings", "plain.avro"], in: directory)
        #expect(plain.status == 2)
        #expect(plain.stderr.contains("plain.avro is not avro past byte 0: the input is no Avro"), "\(plain.stderr)")
    }
}
