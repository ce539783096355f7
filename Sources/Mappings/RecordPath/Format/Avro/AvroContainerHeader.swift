/// A container file's header: its schema (read with its logical types), its codec and its sync
/// marker, which ends every block.
struct AvroContainerHeader {
    let reader: AvroDatumReader
    let codec: AvroCodec
    let sync: [UInt8]

    /// The four bytes a container starts with: `Obj` and 1.
    static let magic: [UInt8] = [0x4F, 0x62, 0x6A, 0x01]

    /// The largest header the decoder waits for (its schema and metadata): 64 MiB.
    static let maximumSize = 64 << 20

    /// Reads the header at the start of `bytes`, returning it and its size; `nil` while its bytes
    /// have not all come. A header that is not one is a `FormatFailure` at its byte.
    static func read(_ bytes: UnsafeRawBufferPointer) throws(FormatFailure) -> (AvroContainerHeader, Int)? {
        guard bytes.prefix(4).elementsEqual(magic.prefix(bytes.count)) else {
            throw FormatFailure(
                "the input is no Avro container file: it does not start with \"Obj\" and the byte 1", offset: 0)
        }
        var scan = AvroScan(bytes: bytes, position: 4)
        var metadata: [String: [UInt8]] = [:]
        let sync: UnsafeRawBufferPointer.SubSequence
        do throws(AvroScan.Stop) {
            while case let count = try scan.count(), count > 0 {
                for _ in 0..<count {
                    let key = String(decoding: try scan.lengthPrefixed(), as: UTF8.self)
                    metadata[key] = Array(try scan.lengthPrefixed())
                }
            }
            sync = try scan.bytes(16)
        } catch {
            switch error {
            case .incomplete:
                guard bytes.count <= maximumSize else {
                    throw FormatFailure("the container's header is longer than \(maximumSize >> 20) MiB", offset: 4)
                }
                return nil
            case .corrupt(let message):
                throw FormatFailure("the container's header is corrupt: \(message)", offset: scan.position)
            }
        }
        return (try header(metadata, sync: Array(sync)), scan.position)
    }

    /// The header of a container whose metadata and sync marker are read.
    private static func header(_ metadata: [String: [UInt8]], sync: [UInt8]) throws(FormatFailure)
        -> AvroContainerHeader
    {
        guard let text = metadata["avro.schema"] else {
            throw FormatFailure("the container's header has no \"avro.schema\"", offset: 4)
        }
        let schema: AvroSchema
        do {
            schema = try AvroSchema(parsing: String(decoding: text, as: UTF8.self))
        } catch {
            throw FormatFailure("the container's schema is invalid: \(error.message)", offset: 4)
        }
        if let refusal = schema.recordRefusal {
            throw FormatFailure("the container's \(refusal)", offset: 4)
        }
        let codec: AvroCodec
        do {
            codec = try AvroCodec(named: metadata["avro.codec"].map { String(decoding: $0, as: UTF8.self) } ?? "null")
        } catch {
            throw FormatFailure(error.message, offset: 4)
        }
        return AvroContainerHeader(reader: AvroDatumReader(schema: schema), codec: codec, sync: sync)
    }
}

extension AvroSchema {
    /// Why datums of this schema are no records the mapper reads (which are JSON objects): `nil`
    /// for a record, or a union of records.
    package var recordRefusal: String? {
        let kinds: [Kind]
        if case .union(let branches) = nodes[root].kind {
            kinds = branches.map { nodes[$0].kind }
        } else {
            kinds = [nodes[root].kind]
        }
        for kind in kinds {
            guard case .record = kind else {
                return
                    "schema's datums are not records (objects to map), but \(kinds.count > 1 ? "a union of" : "of") another type"
            }
        }
        return nil
    }
}

/// Reads the container's framing (its header's metadata, a block's count and size): varints and
/// lengths, telling bytes that have not come yet from bytes that cannot be.
struct AvroScan {
    let bytes: UnsafeRawBufferPointer
    var position: Int

    enum Stop: Error {
        /// The bytes end before what is being read does.
        case incomplete
        case corrupt(String)
    }

    mutating func varint() throws(Stop) -> Int64 {
        var raw: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard position < bytes.count else { throw .incomplete }
            let byte = bytes[position]
            position += 1
            raw |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { break }
            shift += 7
            guard shift < 64 else { throw .corrupt("a number is longer than 64 bits") }
        }
        return Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
    }

    /// The count of a map block's entries (its byte size skipped when it is given).
    mutating func count() throws(Stop) -> Int {
        var count = try varint()
        if count < 0 {
            count = count == .min ? -1 : -count
            _ = try varint()
        }
        guard count >= 0, count <= Int64(AvroContainerHeader.maximumSize) else {
            throw .corrupt("a count of \(count) entries")
        }
        return Int(count)
    }

    mutating func bytes(_ count: Int) throws(Stop) -> UnsafeRawBufferPointer.SubSequence {
        guard count <= bytes.count - position else { throw .incomplete }
        defer { position += count }
        return bytes[position..<position + count]
    }

    mutating func lengthPrefixed() throws(Stop) -> UnsafeRawBufferPointer.SubSequence {
        let length = try varint()
        guard length >= 0, length <= Int64(AvroContainerHeader.maximumSize) else {
            throw .corrupt("a length of \(length)")
        }
        return try bytes(Int(length))
    }
}
