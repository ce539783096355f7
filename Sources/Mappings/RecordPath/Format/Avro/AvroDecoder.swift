/// Avro input, its kind told by its first bytes: an object container file (`Obj` and 1), or
/// messages back to back, single-object (`C3 01`) or Confluent-framed (`00`), whose writer
/// schemas `--avro-schema` gives.
package struct AvroDecoder: RecordDecoder {
    private enum State {
        /// Fewer bytes than tell the kind have come.
        case undecided([UInt8])
        case container(AvroContainerDecoder)
        case messages(AvroMessageDecoder)
    }

    private var state = State.undecided([])
    private let schemas: [(id: UInt32?, schema: AvroSchema)]

    /// A decoder of Avro input.
    /// - Parameter schemas: the writer schemas of messages, each with its registry id or none
    ///   (`AvroMessageDecoder`); a container carries its own.
    package init(schemas: [(id: UInt32?, schema: AvroSchema)] = []) {
        self.schemas = schemas
    }

    package mutating func decode(_ bytes: UnsafeRawBufferPointer, into records: inout DecodedRecords)
        throws(FormatFailure)
    {
        switch state {
        case .undecided(var head):
            head.append(contentsOf: bytes)
            guard let decided = try decide(head, ended: false) else {
                state = .undecided(head)
                return
            }
            state = decided
            try decodeHead(head, into: &records)
        case .container(var decoder):
            try decoder.decode(bytes, into: &records)
            state = .container(decoder)
        case .messages(var decoder):
            try decoder.decode(bytes, into: &records)
            state = .messages(decoder)
        }
    }

    package mutating func finish(into records: inout DecodedRecords) throws(FormatFailure) {
        if case .undecided(let head) = state {
            guard !head.isEmpty, let decided = try decide(head, ended: true) else { return }
            state = decided
            try decodeHead(head, into: &records)
        }
        switch state {
        case .undecided: return
        case .container(var decoder): try decoder.finish(into: &records)
        case .messages(var decoder): try decoder.finish(into: &records)
        }
    }

    /// Decodes the bytes kept while the kind was undecided.
    private mutating func decodeHead(_ head: [UInt8], into records: inout DecodedRecords) throws(FormatFailure) {
        let result = head.withUnsafeBytes { raw in
            Result { () throws(FormatFailure) in try decode(raw, into: &records) }
        }
        try result.get()
    }

    /// The decoder the first bytes call for; `nil` while too few have come.
    private func decide(_ head: [UInt8], ended: Bool) throws(FormatFailure) -> State? {
        if head.first == 0xC3 || head.first == 0x00, !schemas.isEmpty {
            return .messages(
                AvroMessageDecoder(framing: head.first == 0xC3 ? .singleObject : .confluent, schemas: schemas))
        }
        let magic = AvroContainerHeader.magic
        if head.count < magic.count, head.elementsEqual(magic.prefix(head.count)) {
            guard ended else { return nil }
            throw FormatFailure("the input ends before the Avro container's header does", offset: head.count)
        }
        if head.starts(with: magic) { return .container(AvroContainerDecoder()) }
        let messages = head.first == 0xC3 || head.first == 0x00
        throw FormatFailure(
            messages
                ? "the input is Avro messages (\(head.first == 0xC3 ? "single-object, C3 01" : "Confluent, 00")): their writer schema is needed, with --avro-schema"
                : "the input is no Avro: an object container file starts with \"Obj\" and the byte 1, a single-object message with C3 01, a Confluent one with 00",
            offset: 0)
    }
}
