/// Reads an Avro object container file as it comes (a file, a pipe, in pieces of any size): the
/// header (its schema and codec), then each block, decompressed by avro-c and its datums read
/// into JSON objects (`AvroDatumReader`).
///
/// A block whose sync marker is not the header's, or whose count or size cannot be, is corrupt:
/// its records are one reject naming its byte offset, and reading resumes after the next sync
/// marker found in the bytes. A datum that does not read is a reject naming its record and
/// offset; the block's datums after it cannot be found (they are not delimited), so they are
/// rejected with it. A header that is not one, or an input that ends inside a block, is a
/// `FormatFailure` with the byte offset.
package struct AvroContainerDecoder: RecordDecoder {
    /// The largest block the decoder holds (256 MiB): a bigger size is taken for a corrupt one.
    package static let maximumBlock = 256 << 20

    /// The input's bytes not read yet, from `pending[start]`, which is byte `offset` of the input.
    private var pending: [UInt8] = []
    private var start = 0
    private var offset = 0
    /// The header, once read.
    private var header: AvroContainerHeader?
    /// Records counted so far (rejected ones too).
    private var counted = 0

    package init() {}

    package mutating func decode(
        _ bytes: UnsafeRawBufferPointer, into records: inout DecodedRecords
    ) throws(FormatFailure) {
        AvroPending.append(bytes, to: &pending, start: &start)
        try readAvailable(into: &records, ended: false)
    }

    package mutating func finish(into records: inout DecodedRecords) throws(FormatFailure) {
        try readAvailable(into: &records, ended: true)
        guard header != nil else {
            throw FormatFailure("the input ends before the Avro container's header does", offset: offset)
        }
        guard start == pending.count else {
            throw FormatFailure(
                "the input ends inside a block (\(pending.count - start) bytes of it): the container is cut short",
                offset: offset, record: self.counted + 1)
        }
    }

    /// Reads the header, then every whole block the pending bytes hold.
    private mutating func readAvailable(into records: inout DecodedRecords, ended: Bool) throws(FormatFailure) {
        if header == nil {
            guard let (header, size) = try readHeader() else { return }
            self.header = header
            consume(size)
        }
        while start < pending.count {
            guard let header else { return }
            let step = pending.withUnsafeBytes { raw in
                AvroBlock.read(UnsafeRawBufferPointer(rebasing: raw[start...]), header: header, ended: ended)
            }
            switch step {
            case .incomplete: return
            case .block(let block):
                readDatums(of: block, header: header, into: &records)
                consume(block.size)
            case .corrupt(let message, let skipped):
                // Its records cannot be counted: the reject takes the place of one.
                counted += 1
                let resumes =
                    skipped == pending.count - start
                    ? "nothing follows it" : "reading resumes after the next sync marker, at byte \(offset + skipped)"
                records.reject(
                    FormatReject(
                        "the block is corrupt (\(message)): its records are lost; \(resumes)",
                        at: FormatPosition(offset: offset, record: counted),
                        input: pending[start..<start + min(skipped, FormatReject.inputLimit)]))
                consume(skipped)
            }
        }
    }

    /// The header and its size, `nil` while its bytes have not all come.
    private func readHeader() throws(FormatFailure) -> (AvroContainerHeader, Int)? {
        let result = pending.withUnsafeBytes { raw in
            Result { () throws(FormatFailure) in
                try AvroContainerHeader.read(UnsafeRawBufferPointer(rebasing: raw[start...]))
            }
        }
        return try result.get()
    }

    private mutating func consume(_ count: Int) {
        start += count
        offset += count
    }

    /// Appends the block's records, and a reject for the datum that does not read with the
    /// datums after it (they cannot be found).
    private mutating func readDatums(
        of block: AvroBlock, header: AvroContainerHeader, into records: inout DecodedRecords
    ) {
        let first = self.counted + 1
        self.counted += block.count
        var read = 0
        let failure: AvroDatumError? = pending.withUnsafeBytes { raw in
            let data = UnsafeRawBufferPointer(rebasing: raw[start + block.dataStart..<start + block.end])
            do throws(AvroDatumError) {
                try header.codec.decode(data) { (datums) throws(AvroDatumError) in
                    var position = 0
                    var scratch: [UInt8] = []
                    while read < block.count {
                        scratch.removeAll(keepingCapacity: true)
                        try header.reader.read(datums, at: &position, into: &scratch)
                        records.record { $0.append(contentsOf: scratch) }
                        read += 1
                    }
                    guard position == datums.count else {
                        throw AvroDatumError(
                            message: "the block has \(datums.count - position) bytes after its \(block.count) records",
                            offset: position, path: "$")
                    }
                }
                return nil
            } catch {
                return error
            }
        }
        guard let failure else { return }
        // The block's bytes after its records: one more reject, counted as a record.
        if read == block.count { self.counted += 1 }
        let compressed = header.codec.name != "null"
        let lost = block.count - read - 1
        var message = failure.description
        if compressed { message += " (byte \(failure.offset) of the block decompressed)" }
        if lost > 0 { message += "; the block's \(lost) records after it are lost with it" }
        let at = offset + (compressed ? 0 : block.dataStart + failure.offset)
        records.reject(
            FormatReject(
                message, at: FormatPosition(offset: at, record: first + read),
                input: pending[start + block.dataStart..<start + block.end], lines: max(1, lost + 1)))
    }
}
