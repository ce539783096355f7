import Mappings

extension StreamRun {
    /// What the counts say at the end: `read == written + rejected + filtered + unprocessed`.
    package struct Counts {
        var read = 0
        var written = 0
        package var rejected = 0
        /// Dropped by the context's `@filter`: neither written nor rejected.
        var filtered = 0
        /// Read, but never mapped: the stream stopped first (a signal, or --on-issue fail).
        var unprocessed = 0
        /// Rejected because the stream stopped while they were being mapped, a part of `rejected`.
        var interrupted = 0
        /// Records written with issues (`--on-issue emit`), a part of `written`.
        package var withIssues = 0
        /// Rejected because the line was not JSON (or too long, or cut off), a part of `rejected`.
        var invalid = 0

        func json(stopReason: StopReason?) -> JSONValue {
            .object(
                JSONObject([
                    ("read", .integer(Int64(read))), ("written", .integer(Int64(written))),
                    ("rejected", .integer(Int64(rejected))), ("filtered", .integer(Int64(filtered))),
                    ("withIssues", .integer(Int64(withIssues))),
                    ("invalid", .integer(Int64(invalid))), ("unprocessed", .integer(Int64(unprocessed))),
                    ("interrupted", .integer(Int64(interrupted))),
                    ("stopped", .string(stopReason?.description ?? "end of input")),
                ]))
        }
    }
}

extension StreamBoard {
    /// Publishes a stream's counts, for `--metrics-listen`'s endpoint.
    func publish(_ counts: StreamRun.Counts, version: Int) {
        publish(
            read: counts.read, written: counts.written, rejected: counts.rejected, filtered: counts.filtered,
            version: version)
    }
}
