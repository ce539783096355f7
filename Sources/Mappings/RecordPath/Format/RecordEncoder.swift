/// What a format implements to be written: each mapped record — the JSON object the tool writes
/// as a line today — encoded into the format's bytes, after what the output starts with and
/// before what it ends with. Rejects are not encoded: they stay JSON lines with their issues.
package protocol RecordEncoder {
    /// What the output starts with (a CSV header, a container's header): written before the
    /// first record, and when no record comes.
    mutating func start(into output: inout [UInt8]) throws(FormatFailure)

    /// Appends `record` (the JSON text of one object, as the mapper wrote it) encoded.
    /// A record the format cannot hold throws, naming why (`offset` is the record's, in the
    /// output written so far; `record` its number in the output).
    mutating func encode(_ record: UnsafeRawBufferPointer, into output: inout [UInt8]) throws(FormatFailure)

    /// The output ends: what the format closes it with (a container's last block).
    mutating func finish(into output: inout [UInt8]) throws(FormatFailure)
}
