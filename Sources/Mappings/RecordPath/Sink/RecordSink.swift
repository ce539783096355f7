/// Where a `MappingStream` writes records instead of giving them to a closure: a destination
/// that commits them in batches together with where the input then stands, so that a stream
/// stopped anyhow starts again after the last committed record and no record is written twice.
/// `mappings stream --to` writes into one (MappingsSQL's `DatabaseSink`); a host writes into it
/// with `MappingStream.map(_:into:from:reported:)`, or implements one for its own destination.
///
/// The stream calls a sink on the thread that called `map`, in input order: `add` with the
/// outputs of records, `reject` with records that are not written (when `takesRejects`), then
/// `reached` with the position of the first line not yet handled, after every block, and
/// `finish` once at the end. A sink commits when it chooses, always at a position the stream
/// gave it, and says where its last commit left the input (`committed`).
public protocol RecordSink: AnyObject {
    /// Whether records that are not written (errors, not JSON) go into the sink too.
    var takesRejects: Bool { get }
    /// Records' outputs, in input order: each one's JSON followed by a line feed. (A sink of
    /// this library may have the records encoded otherwise on the lanes.)
    func add(_ records: ArraySlice<UInt8>)
    /// A record that is not written, when `takesRejects`: where it is, its line's text, why.
    func reject(source: String?, line: Int, input: [UInt8], issues: [MappingIssue])
    /// A record that is not written and went elsewhere (the sink does not take rejects): a
    /// sink that keeps counts counts it with the batch it falls in.
    func rejectedElsewhere()
    /// Every record before `position` was added or rejected: the sink may commit. Throws when
    /// the destination cannot take what it holds, after whatever retries it makes; the stream
    /// then stops, and `committed` is where a next run starts.
    func reached(_ position: RecordPosition) throws(RecordSinkFailure)
    /// Commits what is left, with `position` as where a next run starts.
    func finish(at position: RecordPosition) throws(RecordSinkFailure)
    /// Drops what was added or rejected since the last commit, so that the sink stands at
    /// `committed` again: a stream into it that fails calls this before it throws.
    func discard()
    /// Where the last commit left the input; `nil` before any commit.
    var committed: RecordPosition? { get }
    /// The records committed so far.
    var committedRecords: Int { get }
}

extension RecordSink {
    /// Nothing to drop: a sink that commits at every `reached`.
    public func discard() {}

    /// Counts nothing.
    public func rejectedElsewhere() {}
}

/// A sink of this library whose records the lanes encode as it stores them (`add` then
/// receives those encodings, not JSON lines).
package protocol EncodingRecordSink: RecordSink {
    var encoding: any RecordEncoding { get }
}

/// A place in a stream's input: the first line not yet handled.
public struct RecordPosition: Sendable, Hashable, CustomStringConvertible {
    /// The input's name (a file's path as given); `nil` for an unnamed input (standard input).
    public var source: String?
    /// The line, from 1, counting every line of the input (blank ones too).
    public var line: Int
    /// Where that line starts in the input, in bytes; `nil` when not known.
    public var offset: Int?
    /// What tells the input read from any other of the same name (a file rotated, replaced or
    /// truncated since): `nil` when not known (standard input, a host's lines).
    public var identity: InputIdentity?

    public init(source: String? = nil, line: Int = 1, offset: Int? = 0, identity: InputIdentity? = nil) {
        self.source = source
        self.line = line
        self.offset = offset
        self.identity = identity
    }

    /// `orders.ndjson:1201 (byte 98304)`.
    public var description: String {
        "\(source ?? "-"):\(line)" + (offset.map { " (byte \($0))" } ?? "")
    }
}

/// The file a position is in, and what it held before the position: the file system's device
/// and inode numbers, and a checksum of the bytes before the offset (16 hex digits, the one
/// `mappings stream --stats` records). A job started again reads on only from a file whose
/// bytes before the position have that checksum: one rotated, replaced or truncated since is
/// refused, or found again among the inputs by its identity.
public struct InputIdentity: Sendable, Hashable {
    public var device: UInt64
    public var inode: UInt64
    /// The checksum of the file's bytes before the position's offset.
    public var digest: String

    public init(device: UInt64, inode: UInt64, digest: String) {
        self.device = device
        self.inode = inode
        self.digest = digest
    }
}

/// Why a sink stopped taking records.
public struct RecordSinkFailure: Error, Sendable, CustomStringConvertible {
    public var message: String
    /// Whether the destination could not be reached (the tool exits 69, EX_UNAVAILABLE), rather
    /// than refused what it was given (its own constraint, a table that does not fit).
    public var unavailable: Bool

    public init(_ message: String, unavailable: Bool) {
        self.message = message
        self.unavailable = unavailable
    }

    public var description: String { message }
}

/// What `MappingStream.map(_:into:from:reported:)` did.
public struct RecordSinkReport: Sendable, Hashable {
    /// Records read (blank lines are none), and of them those added to the sink, those not
    /// written because of their issues or not JSON, and those a `@filter` dropped.
    public var records = 0
    public var written = 0
    public var rejected = 0
    public var filtered = 0
    /// Where the input ended: what the sink was finished at.
    public var end = RecordPosition()

    public init() {}
}
