import MappingsJSON

/// Mapped records as an Avro object container file: the header (the schema's text, the codec, a
/// random sync marker), then blocks of datums (`AvroDatumWriter`) of about `blockSize` bytes each,
/// compressed by avro-c's codec.
///
/// A record the schema cannot hold is a `FormatFailure` naming the record and the field; the
/// block being gathered is left as it was, so the records before it stay whole.
package struct AvroContainerEncoder: RecordEncoder {
    /// The bytes of datums a block gathers before it is written (64 KiB, as Avro's Java writer).
    package static let blockSize = 64 << 10

    private let blockSize: Int
    private let writer: AvroDatumWriter
    private let codec: AvroCodec
    private let sync: [UInt8]
    /// The datums of the block being gathered, and how many.
    private var block: [UInt8] = []
    private var count = 0
    /// Records encoded so far.
    private var records = 0

    /// An encoder of records into datums of `schema`, in blocks compressed with `codec`.
    /// - Parameters:
    ///   - schema: the schema the records must fit (its text is the header's).
    ///   - codec: "null", "deflate", "snappy" or "lzma" (avro-c's own, raw LZMA2).
    ///   - blockSize: the bytes of datums a block gathers before it is written.
    package init(schema: AvroSchema, codec: String, blockSize: Int = AvroContainerEncoder.blockSize)
        throws(FormatRefusal)
    {
        self.blockSize = blockSize
        do {
            self.codec = try AvroCodec(named: codec)
        } catch {
            throw FormatRefusal(error.message)
        }
        writer = AvroDatumWriter(schema: schema)
        var random = SystemRandomNumberGenerator()
        sync = (0..<16).map { _ in UInt8.random(in: 0...255, using: &random) }
    }

    package mutating func start(into output: inout [UInt8]) throws(FormatFailure) {
        output.append(contentsOf: AvroContainerHeader.magic)
        AvroDatumWriter.appendVarint(2, to: &output)
        AvroDatumWriter.appendString("avro.schema", to: &output)
        AvroDatumWriter.appendString(writer.schema.text, to: &output)
        AvroDatumWriter.appendString("avro.codec", to: &output)
        AvroDatumWriter.appendString(codec.name, to: &output)
        output.append(0)
        output.append(contentsOf: sync)
    }

    package mutating func encode(_ record: UnsafeRawBufferPointer, into output: inout [UInt8]) throws(FormatFailure) {
        records += 1
        let value: JSONValue
        do {
            value = try JSONParser.parse(record.assumingMemoryBound(to: UInt8.self), demand: .everything)
        } catch {
            throw FormatFailure(
                "record \(records) of the output is not JSON: \(error.message)", offset: output.count, record: records)
        }
        do {
            try writer.write(value, into: &block)
        } catch {
            throw FormatFailure(
                "record \(records) of the output does not fit the Avro schema: \(error.description)",
                offset: output.count,
                record: records)
        }
        count += 1
        if block.count >= blockSize { try flush(into: &output) }
    }

    package mutating func finish(into output: inout [UInt8]) throws(FormatFailure) {
        try flush(into: &output)
    }

    /// Writes the block gathered: its count, its size, its datums compressed, the sync marker.
    private mutating func flush(into output: inout [UInt8]) throws(FormatFailure) {
        guard count > 0 else { return }
        let compressed: [UInt8]
        do {
            compressed = try codec.encode(block)
        } catch {
            throw FormatFailure(error.message, offset: output.count, record: records)
        }
        AvroDatumWriter.appendVarint(Int64(count), to: &output)
        AvroDatumWriter.appendVarint(Int64(compressed.count), to: &output)
        output.append(contentsOf: compressed)
        output.append(contentsOf: sync)
        block.removeAll(keepingCapacity: true)
        count = 0
    }
}
