/// What a format implements to be read: its records out of an input's bytes, each as the JSON
/// text of one object that the JSON lines path maps (keys are the record's fields; numbers keep
/// their exact text, never a `Double`'s).
///
/// A decoder is fed the input's bytes as they come — a pipe's, a growing file's, in pieces of any
/// size, a record cut anywhere — and appends each record it completes to a `DecodedRecords`,
/// keeping the start of one whose end has not come for the next call. A record it cannot read is
/// a `FormatReject` (and reading goes on after it); a fault it cannot read past is a thrown
/// `FormatFailure` naming the byte offset (the input ends there). Never a crash, never a record
/// dropped in silence. docs/formats.md, "Adding a format", says the rest.
package protocol RecordDecoder {
    /// Reads `bytes`, the input's next bytes (they follow those of the previous call).
    mutating func decode(_ bytes: UnsafeRawBufferPointer, into records: inout DecodedRecords) throws(FormatFailure)

    /// The input ended: what the decoder kept is read as the last record (or rejected, or a
    /// failure: a record cut short).
    mutating func finish(into records: inout DecodedRecords) throws(FormatFailure)
}

extension RecordDecoder {
    /// Decodes `bytes` whole, then finishes: a payload held in memory (`map`, tests).
    package mutating func decodeAll(_ bytes: [UInt8]) throws(FormatFailure) -> DecodedRecords {
        var records = DecodedRecords()
        try bytes.withUnsafeBytes { raw in Result { () throws(FormatFailure) in try decode(raw, into: &records) } }
            .get()
        try finish(into: &records)
        return records
    }
}
