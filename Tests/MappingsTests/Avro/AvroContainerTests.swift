import Mappings
import MappingsJSON
import MappingsTestSupport
import Testing

/// Avro object container files: written with each of avro-c's codecs and read back as they came
/// (in pieces of any size, a block cut anywhere); corrupt, cut and flipped bytes read as what
/// can be read and a reject or a failure with the byte offset for the rest — never a crash.
@Suite("Avro container files")
struct AvroContainerTests {
    static let schema = """
        {"type": "record", "name": "Row", "fields": [
          {"name": "id", "type": "long"}, {"name": "name", "type": ["null", "string"]},
          {"name": "tags", "type": {"type": "array", "items": "string"}},
          {"name": "price", "type": {"type": "bytes", "logicalType": "decimal", "precision": 12, "scale": 3}}]}
        """

    static func lines(_ count: Int) -> [String] {
        (0..<count).map { index in
            let name = index % 4 == 0 ? "null" : "\"n\(index) é\""
            let tags = (0..<index % 3).map { "\"t\($0)\"" }.joined(separator: ",")
            return
                #"{"id":\#(index * 7_919 - 50_000),"name":\#(name),"tags":[\#(tags)],"price":\#(index).\#(index % 10)50}"#
        }
    }

    /// A container of `lines` written with `codec`, in blocks of about 4 KiB.
    static func container(_ lines: [String], codec: String) throws -> [UInt8] {
        var encoder = try AvroContainerEncoder(schema: try AvroSchema(parsing: schema), codec: codec, blockSize: 4096)
        var output: [UInt8] = []
        try encoder.start(into: &output)
        for line in lines {
            try Array(line.utf8).withUnsafeBytes { raw in
                Result { () throws(FormatFailure) in try encoder.encode(raw, into: &output) }
            }.get()
        }
        try encoder.finish(into: &output)
        return output
    }

    /// What a decoder makes of `bytes` fed in pieces of `piece` bytes.
    static func decode(_ bytes: [UInt8], piece: Int) throws(FormatFailure) -> DecodedRecords {
        var decoder = AvroDecoder()
        var records = DecodedRecords()
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + piece)
            let piece = Array(bytes[start..<end])
            try piece.withUnsafeBytes { raw in
                Result { () throws(FormatFailure) in try decoder.decode(raw, into: &records) }
            }.get()
            start = end
        }
        try decoder.finish(into: &records)
        return records
    }

    static func text(_ records: DecodedRecords) -> [String] {
        String(decoding: records.text, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    @Test(
        "each codec writes what reads back as the same records, however the bytes come", arguments: AvroCodecNames.all)
    func roundTrip(codec: String) throws {
        let lines = Self.lines(3000)
        let bytes = try Self.container(lines, codec: codec)
        #expect(bytes.starts(with: [0x4F, 0x62, 0x6A, 0x01]))
        for piece in [1, 7, 4096, bytes.count] where piece > 1 || codec == "null" {
            let records = try Self.decode(bytes, piece: piece)
            #expect(records.rejects.isEmpty)
            #expect(Self.text(records) == lines)
        }
    }

    @Test("a block whose size is corrupt is one reject with its offset; the blocks after it read")
    func corruptBlock() throws {
        let lines = Self.lines(3000)
        var bytes = try Self.container(lines, codec: "null")
        let blocks = Self.blockOffsets(bytes)
        try #require(blocks.count >= 3)
        // The second block's size, one byte after its count (which is two bytes: more than 63 records).
        bytes[blocks[1] + 2] ^= 0x10
        let records = try Self.decode(bytes, piece: 1000)
        #expect(records.rejects.count == 1)
        let message = records.rejects.first?.reject.issueMessage ?? ""
        #expect(message.hasPrefix("the block is corrupt (its sync marker is not the header's): its records are lost"))
        #expect(records.rejects.first?.reject.position.offset == blocks[1])
        let read = Self.text(records)
        #expect(read.count < lines.count && read.count > lines.count / 2)
        #expect(read.allSatisfy { lines.contains($0) })
    }

    @Test("a container cut anywhere reads its whole blocks, and says where it ends")
    func truncated() throws {
        let bytes = try Self.container(Self.lines(200), codec: "deflate")
        var random = SeededGenerator(seed: 66)
        for _ in 0..<200 {
            let cut = Int.random(in: 0..<bytes.count, using: &random)
            do {
                let records = try Self.decode(Array(bytes[..<cut]), piece: 512)
                #expect(records.rejects.count <= 1)
                if let reject = records.rejects.first?.reject {
                    #expect(reject.issueMessage.contains("the input ends inside"))
                }
            } catch {
                #expect(
                    error.message.hasPrefix("the input ends before the Avro container's header does"),
                    "\(error.description)")
            }
        }
    }

    @Test("flipped bytes never crash the decoder", arguments: AvroCodecNames.all)
    func flipped(codec: String) throws {
        let bytes = try Self.container(Self.lines(150), codec: codec)
        var random = SeededGenerator(seed: UInt64(codec.utf8.count))
        for round in 0..<400 {
            var damaged = bytes
            for _ in 0...(round % 5) {
                damaged[Int.random(in: 0..<damaged.count, using: &random)] ^= UInt8(
                    1 << Int.random(in: 0..<8, using: &random))
            }
            // Every outcome is fine but a crash: records, rejects, or a failure at a byte.
            _ = try? Self.decode(damaged, piece: 333)
        }
    }

    @Test("an input that is no container is a failure at byte 0")
    func notAvro() {
        #expect(
            throws: FormatFailure(
                "the input is no Avro: an object container file starts with \"Obj\" and the byte 1, a single-object message with C3 01, a Confluent one with 00",
                offset: 0)
        ) { try Self.decode(Array("{\"a\": 1}\n".utf8), piece: 10) }
    }

    /// Where each block starts: after the header (its map of metadata read here on its own)
    /// and after each sync marker.
    static func blockOffsets(_ bytes: [UInt8]) -> [Int] {
        var index = 4
        func varint() -> Int {
            var raw = 0
            var shift = 0
            while bytes[index] & 0x80 != 0 {
                raw |= Int(bytes[index] & 0x7F) << shift
                shift += 7
                index += 1
            }
            raw |= Int(bytes[index]) << shift
            index += 1
            return (raw >> 1) ^ -(raw & 1)
        }
        for _ in 0..<varint() * 2 { index += varint() }
        #expect(varint() == 0)
        let sync = Array(bytes[index..<index + 16])
        index += 16
        var offsets = [index]
        while index + 16 < bytes.count {
            if Array(bytes[index..<index + 16]) == sync { offsets.append(index + 16) }
            index += 1
        }
        return offsets
    }
}

/// The codecs the tests write and read.
enum AvroCodecNames {
    static let all = ["null", "deflate", "snappy", "lzma"]
}
