/// The bytes a decoder holds between calls, read from `start` on: what both Avro decoders keep
/// of an input that comes in pieces.
enum AvroPending {
    /// Appends `bytes` to `pending`, first dropping the bytes before `start` (read already) when
    /// they are half of it or more, so that the held bytes stay within twice the unread ones.
    static func append(_ bytes: UnsafeRawBufferPointer, to pending: inout [UInt8], start: inout Int) {
        if start > 0, start >= pending.count / 2 {
            pending.removeFirst(start)
            start = 0
        }
        pending.append(contentsOf: bytes)
    }
}
