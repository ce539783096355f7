/// The frames `mappings stream --spark-frames` writes on stdout for `mappings_spark`, one per
/// record in input order, then one with the stats: the payload's length (4 bytes, big-endian),
/// the frame's kind (1 byte), the payload, and a line feed.
package enum SparkFrame: UInt8, Sendable {
    /// A mapped record: its `UnsafeRow` (`SparkRowEncoder`).
    case record = 0x6D  // m
    /// A rejected record: its reject as JSON (`{"line", "input", "issues"}`).
    case reject = 0x72  // r
    /// A record the context's `@filter` dropped: no payload.
    case filtered = 0x66  // f
    /// The last frame: the `--stats` document.
    case stats = 0x73  // s

    /// Appends a frame whose payload `body` appends (the line feed is the caller's: a lane
    /// ends every record's output with one).
    package static func append<Failure: Error>(
        _ kind: SparkFrame, into out: inout [UInt8], _ body: (inout [UInt8]) throws(Failure) -> Void
    ) throws(Failure) {
        let start = out.count
        out.append(contentsOf: [0, 0, 0, 0, kind.rawValue])
        try body(&out)
        setLength(of: &out, frameStart: start)
    }

    /// Puts the length of the payload after the header at `frameStart` in the header.
    package static func setLength(of out: inout [UInt8], frameStart start: Int) {
        let length = UInt32(out.count - start - 5)
        out[start] = UInt8(truncatingIfNeeded: length >> 24)
        out[start + 1] = UInt8(truncatingIfNeeded: length >> 16)
        out[start + 2] = UInt8(truncatingIfNeeded: length >> 8)
        out[start + 3] = UInt8(truncatingIfNeeded: length)
    }

    /// A whole frame with `payload`, line feed included.
    package static func bytes(_ kind: SparkFrame, _ payload: some Collection<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(payload.count + 6)
        append(kind, into: &out) { out in out.append(contentsOf: payload) }
        out.append(0x0A)
        return out
    }
}
