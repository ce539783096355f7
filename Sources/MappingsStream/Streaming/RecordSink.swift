package import Mappings

/// Where a stream writes its records instead of standard output (`stream --to`): the lanes
/// encode each record's output with `encoding`; the writer hands the encoded records over in
/// input order, says how far the input is handled, and the sink commits batches of them with
/// that position, so that a stream stopped anyhow starts again after the last committed record.
package protocol RecordSink: AnyObject {
    /// What the lanes turn each record's output into: what `add` receives.
    var encoding: any RecordEncoding { get }
    /// Whether rejects go into the destination with the records (`--rejects-table`).
    var takesRejects: Bool { get }
    /// The records' encodings, in input order.
    func add(_ records: ArraySlice<UInt8>)
    /// A reject, when `takesRejects`.
    func reject(file: String?, line: Int, input: [UInt8], issues: [JSONValue])
    /// Every record before `position` (the first line not handled) was added or rejected: the
    /// sink commits when a batch is due. Throws when the destination cannot take it (after
    /// its retries).
    func reached(_ position: StreamRun.Resume) throws(SinkFailure)
    /// Commits what is left, with `position` as where a next run starts.
    func finish(at position: StreamRun.Resume) throws(SinkFailure)
    /// Where the last commit left the input: what a next run resumes from.
    var committed: StreamRun.Resume? { get }
    /// The records committed so far.
    var committedRecords: Int { get }
}

/// Why a sink stopped taking records.
package struct SinkFailure: Error, Sendable {
    package var message: String
    /// Whether the destination could not be reached (the stream exits with its own status),
    /// rather than refused what it was given.
    package var unavailable: Bool

    package init(_ message: String, unavailable: Bool) {
        self.message = message
        self.unavailable = unavailable
    }
}
