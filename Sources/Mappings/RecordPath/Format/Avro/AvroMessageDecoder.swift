/// Reads Avro messages back to back, each a framing prefix and one datum of the writer schema
/// the prefix names: single-object encoding (`C3 01` and the schema's 8-byte fingerprint) or
/// Confluent's wire format (`00` and a 4-byte big-endian schema registry id). The schemas come
/// from `--avro-schema` (docs/formats.md, "Avro messages").
///
/// A datum knows where it ends, so messages need no other delimiter. A message whose datum does
/// not read is a reject naming its offset; reading resumes at the next prefix of a known schema.
/// A prefix of no known schema is a `FormatFailure`: its datum's end cannot be found.
package struct AvroMessageDecoder: RecordDecoder {
    /// How messages name their schema.
    package enum Framing: Sendable {
        /// `C3 01`, then the schema's CRC-64-AVRO fingerprint, little-endian.
        case singleObject
        /// `00`, then the schema's id in a registry, big-endian.
        case confluent
    }

    private let framing: Framing
    /// The reader of each schema, by fingerprint or id.
    private let readers: [UInt64: AvroDatumReader]
    /// The reader of a Confluent message whose id no schema was given for (`--avro-schema FILE`).
    private let fallback: AvroDatumReader?
    private var pending: [UInt8] = []
    private var start = 0
    private var offset = 0
    private var counted = 0

    /// A decoder of messages framed by `framing`, whose datums are of `schemas`.
    /// - Parameters:
    ///   - framing: single-object or Confluent framing.
    ///   - schemas: the writer schemas, each with the registry id it was given with (Confluent),
    ///     or none (a single-object message names its schema by fingerprint; a Confluent one of
    ///     an id not given uses it).
    package init(framing: Framing, schemas: [(id: UInt32?, schema: AvroSchema)]) {
        self.framing = framing
        var readers: [UInt64: AvroDatumReader] = [:]
        var fallback: AvroDatumReader?
        for (id, schema) in schemas {
            let reader = AvroDatumReader(schema: schema)
            switch (framing, id) {
            case (.singleObject, _): readers[schema.fingerprint] = reader
            case (.confluent, let id?): readers[UInt64(id)] = reader
            case (.confluent, nil): fallback = reader
            }
        }
        self.readers = readers
        self.fallback = fallback
    }

    /// The prefix's length: 10 bytes or 5.
    private var prefixLength: Int { framing == .singleObject ? 10 : 5 }

    package mutating func decode(_ bytes: UnsafeRawBufferPointer, into records: inout DecodedRecords)
        throws(FormatFailure)
    {
        AvroPending.append(bytes, to: &pending, start: &start)
        try readAvailable(into: &records, ended: false)
    }

    package mutating func finish(into records: inout DecodedRecords) throws(FormatFailure) {
        try readAvailable(into: &records, ended: true)
    }

    private mutating func readAvailable(into records: inout DecodedRecords, ended: Bool) throws(FormatFailure) {
        while start < pending.count {
            guard pending.count - start >= prefixLength else {
                guard ended else { return }
                throw FormatFailure("the input ends inside a message's prefix", offset: offset, record: counted + 1)
            }
            let reader = try self.reader(at: start)
            var position = start + prefixLength
            var output: [UInt8] = []
            let failure: AvroDatumError? = pending.withUnsafeBytes { raw in
                do throws(AvroDatumError) {
                    try reader.read(raw, at: &position, into: &output)
                    return nil
                } catch {
                    return error
                }
            }
            guard let failure else {
                counted += 1
                records.record { $0.append(contentsOf: output) }
                consume(position - start)
                continue
            }
            if failure.truncated, !ended, pending.count - start <= JSONLines.maximumLine { return }
            let skipped = nextPrefix(after: start) ?? (ended ? pending.count : nil)
            guard let skipped else { return }
            counted += 1
            records.reject(
                FormatReject(
                    "\(failure.description) (byte \(failure.offset - start) of the message)",
                    at: FormatPosition(offset: offset, record: counted),
                    input: pending[start..<skipped]))
            consume(skipped - start)
        }
    }

    /// The reader the prefix at `index` names.
    private func reader(at index: Int) throws(FormatFailure) -> AvroDatumReader {
        let key = prefixKey(at: index)
        let marker: [UInt8] = framing == .singleObject ? [0xC3, 0x01] : [0x00]
        guard pending[index..<index + marker.count].elementsEqual(marker), let key else {
            throw FormatFailure(
                "no \(framing == .singleObject ? "single-object (C3 01)" : "Confluent (00)") message starts here",
                offset: offset + index - start, record: counted + 1)
        }
        if let reader = readers[key] ?? (framing == .confluent ? fallback : nil) { return reader }
        let named =
            framing == .singleObject ? "the schema of fingerprint \(String(key, radix: 16))" : "the schema id \(key)"
        throw FormatFailure(
            "the message names \(named), which no --avro-schema gives", offset: offset + index - start,
            record: counted + 1)
    }

    /// The fingerprint or id of the prefix at `index`.
    private func prefixKey(at index: Int) -> UInt64? {
        switch framing {
        case .singleObject:
            return pending[index + 2..<index + 10].reversed().reduce(0) { $0 << 8 | UInt64($1) }
        case .confluent:
            return pending[index + 1..<index + 5].reduce(0) { $0 << 8 | UInt64($1) }
        }
    }

    /// Where the next prefix of a known schema starts after `index`.
    private func nextPrefix(after index: Int) -> Int? {
        var candidate = index + 1
        while candidate + prefixLength <= pending.count {
            let first = pending[candidate]
            let known = readers[prefixKey(at: candidate) ?? 0] != nil || (framing == .confluent && fallback != nil)
            if first == (framing == .singleObject ? 0xC3 : 0x00), known,
                framing == .confluent || pending[candidate + 1] == 0x01
            {
                return candidate
            }
            candidate += 1
        }
        return nil
    }

    private mutating func consume(_ count: Int) {
        start += count
        offset += count
    }
}
