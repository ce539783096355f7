import Foundation
public import Mappings

/// Records into a table of SQLite or PostgreSQL (`mappings stream --to`, or a host's
/// `MappingStream.map(_:into:from:reported:)`), in transactions of a batch, each of which also
/// writes where the input stands to `mappings_offsets` under the job's name, so that the job
/// started again resumes after its last committed record, whatever stopped it.
///
/// ```swift
/// var options = DatabaseSink.Options()
/// options.createTables = true
/// options.job = "orders"
/// let sink = try DatabaseSink(.sqlite(path: "orders.db"), context: context, in: catalog, options: options)
/// let start = try sink.storedPosition() ?? RecordPosition(source: "orders.ndjson")
/// // read the input from start.offset, then:
/// let report = try stream.map(lines, into: sink, from: start)
/// ```
///
/// The columns are the context's properties in snake_case (`mappings schema --format sql`
/// prints the table); a context with `@identity` upserts by it. docs/operations.md, "Into a
/// database", has the types, the checks and what each stop leaves.
public final class DatabaseSink: RecordSink, EncodingRecordSink {
    /// Where records go.
    public enum Destination: Sendable, Equatable {
        /// A SQLite database file, created when missing.
        case sqlite(path: String)
        /// A PostgreSQL server, by a URI libpq reads (`postgresql://USER@HOST:PORT/DB?sslmode=…`).
        case postgresql(uri: String)

        /// `sqlite:PATH`, or a PostgreSQL URI (`postgresql://…`, `postgres://…`); `nil` otherwise.
        public init?(_ text: String) {
            if text.hasPrefix("sqlite:") {
                let path = String(text.dropFirst("sqlite:".count))
                guard !path.isEmpty else { return nil }
                self = .sqlite(path: path)
            } else if text.hasPrefix("postgresql://") || text.hasPrefix("postgres://") {
                self = .postgresql(uri: text)
            } else {
                return nil
            }
        }

        package var dialect: SQLDialect {
            switch self {
            case .sqlite: .sqlite
            case .postgresql: .postgresql
            }
        }
    }

    /// How the sink writes: `stream --to`'s options.
    public struct Options: Sendable {
        /// The table (`--table`); `nil`: the context's model's name in snake_case.
        public var table: String?
        /// Creates the table, `mappings_offsets` and the rejects table when missing
        /// (`--create-tables`); else they must exist and fit.
        public var createTables = false
        /// The name positions are kept under (`--job`); `nil`: none kept.
        public var job: String?
        /// A transaction commits when this many records and rejects are held (`--batch`), or
        /// `batchInterval` after the last one (`--batch-seconds`), whichever comes first.
        public var batchRecords = 5000
        public var batchInterval: Duration = .seconds(1)
        /// How long a database that cannot be reached is tried again before the sink gives up
        /// (`--retry-for`).
        public var retryFor: Duration = .seconds(60)
        /// The table rejects go into, in the records' transactions (`--rejects-table`).
        public var rejectsTable: String?
        /// Where the sink says it tries again (default: standard error).
        public var log: @Sendable (String) -> Void = { message in
            FileHandle.standardError.write(Data((message + "\n").utf8))
        }

        public init() {}
    }

    /// `nil` once closed.
    private var writer: (any TableWriter)?
    private let encoder: SQLRowEncoder
    private let options: Options
    package var encoding: any RecordEncoding { encoder }
    public var takesRejects: Bool { options.rejectsTable != nil }

    /// The batch being gathered: the records' encodings, how many, the rejects.
    private var rows: [UInt8] = []
    private var rowCount = 0
    private var rejects: [RejectRow] = []
    /// Rejects that went elsewhere (no `--rejects-table`), counted in the batch's `rejected`.
    private var rejectedElsewhereCount = 0
    private var position: RecordPosition?
    private var lastCommit = ContinuousClock.now
    /// The job's stored position when the sink opened, then after each of its commits: what
    /// `mappings_offsets` must still hold for the next commit to be written (compare-and-set),
    /// so that no second stream of the same job, whatever way round its lock, writes a record
    /// twice. `nil`: no row yet.
    private var expected: RecordPosition?
    public private(set) var committed: RecordPosition?
    public private(set) var committedRecords = 0

    /// Opens the destination and readies `table` in it: created when asked and missing, else
    /// checked to take every column as the records write it. Throws what does not fit, before
    /// any row.
    private init(_ destination: Destination, table: SQLTable, options: Options) throws(RecordSinkFailure) {
        self.options = options
        encoder = SQLRowEncoder(table: table, dialect: destination.dialect)
        if let job = options.job {
            if let refusal = Self.refusal(ofJob: job) { throw RecordSinkFailure(refusal, unavailable: false) }
            if case .sqlite(let path) = destination, SQLiteTableWriter.isInMemory(path) {
                throw RecordSinkFailure(
                    "--job keeps the job's position in the database, and \"\(path)\" is a database in memory, gone with the stream: name a file",
                    unavailable: false)
            }
        }
        do throws(SQLTable.Refusal) {
            try table.checkIdentifiers(destination.dialect)
            if let rejects = options.rejectsTable {
                try SQLTable.checkIdentifier(rejects, what: "the rejects table's name", destination.dialect)
            }
        } catch {
            throw RecordSinkFailure(error.message, unavailable: false)
        }
        do {
            let writer: any TableWriter
            switch destination {
            case .sqlite(let path): writer = try SQLiteTableWriter(path: path, table: table, options: options)
            case .postgresql(let uri): writer = try PostgresTableWriter(uri: uri, table: table, options: options)
            }
            self.writer = writer
            if let job = options.job { expected = try writer.position(of: job) }
        } catch {
            throw RecordSinkFailure(error.message, unavailable: error.unavailable)
        }
    }

    /// Why `job` cannot name a job (`--job`), or `nil` when it can: a name is kept in a text
    /// column and in the lock's name, so it is not empty, holds no control character (PostgreSQL
    /// stores no NUL) and is at most 200 bytes.
    public static func refusal(ofJob job: String) -> String? {
        if job.isEmpty { return "--job takes a name, not an empty one" }
        if job.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return "--job \(JSONWriter.string(.string(job))) holds a control character, which a job's name may not"
        }
        if job.utf8.count > 200 {
            return "--job's name is \(job.utf8.count) bytes, more than the 200 a job's name may have"
        }
        return nil
    }

    /// Opens the destination and readies the table of `context`'s records in it (named
    /// `options.table`, or after its model): created when asked and missing, else checked to
    /// take every column as the records write it. Throws what does not fit, before any row.
    public convenience init(
        _ destination: Destination, context: CompiledContext, in catalog: Catalog, options: Options = Options()
    ) throws(RecordSinkFailure) {
        let table: SQLTable
        do {
            table = try SQLTable.of(context, in: catalog, named: options.table)
        } catch {
            throw RecordSinkFailure(
                "\(context.identifier ?? "the context") has no table: \(error.message)", unavailable: false)
        }
        try self.init(destination, table: table, options: options)
    }

    /// Where the job stopped last (`mappings_offsets`), as the sink found it when it opened:
    /// where its next run starts (with the identity of the file it stopped in, when known);
    /// `nil` when it has not run, or the options name no job.
    public func storedPosition() throws(RecordSinkFailure) -> RecordPosition? {
        guard options.job != nil else { return nil }
        guard writer != nil else { throw RecordSinkFailure("the sink is closed", unavailable: false) }
        return expected
    }

    /// Closes the connection and lets go of the job (another sink may then run it). What was
    /// added since the last commit is not written: `finish` first to keep it.
    public func close() {
        writer = nil
        discard()
    }

    /// Drops what was added since the last commit: the sink stands where `committed` says, and
    /// a stream from there adds those records again (what `MappingStream` does when a mapping
    /// into the sink fails, and the sink itself when a batch cannot be written).
    public func discard() {
        rows.removeAll(keepingCapacity: true)
        rowCount = 0
        rejects.removeAll()
        rejectedElsewhereCount = 0
        position = committed
    }

    private func open() throws(DatabaseError) -> any TableWriter {
        guard let writer else { throw DatabaseError("the sink is closed", unavailable: false) }
        return writer
    }

    public func add(_ records: ArraySlice<UInt8>) {
        guard !records.isEmpty else { return }
        rows += records
        rowCount += encoder.dialect == .postgresql ? Self.lines(in: records) : Self.lengthPrefixed(in: records)
    }

    private static func lines(in bytes: ArraySlice<UInt8>) -> Int {
        bytes.withUnsafeBufferPointer { buffer in
            var count = 0
            for byte in buffer where byte == 0x0A { count += 1 }
            return count
        }
    }

    private static func lengthPrefixed(in bytes: ArraySlice<UInt8>) -> Int {
        var count = 0
        var offset = bytes.startIndex
        while offset + 4 <= bytes.endIndex {
            let length =
                Int(bytes[offset]) | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2]) << 16
                | Int(bytes[offset + 3]) << 24
            offset += 4 + length + 1
            count += 1
        }
        return count
    }

    public func reject(source: String?, line: Int, input: [UInt8], issues: [MappingIssue]) {
        rejects.append(
            RejectRow(
                file: source ?? "-", line: line, input: String(decoding: input, as: UTF8.self),
                issues: JSONWriter.string(.array(issues.map(\.json)))))
    }

    public func rejectedElsewhere() {
        rejectedElsewhereCount += 1
    }

    public func reached(_ position: RecordPosition) throws(RecordSinkFailure) {
        self.position = position
        let due =
            rowCount + rejects.count >= options.batchRecords || rows.count >= 64 << 20
            || ContinuousClock.now - lastCommit >= options.batchInterval
        if due { try commit() }
    }

    public func finish(at position: RecordPosition) throws(RecordSinkFailure) {
        self.position = position
        try commit()
    }

    /// Writes the batch and the position in one transaction; while the destination cannot be
    /// reached, tries again (waiting twice as long each time, up to 5 s) for `retryFor`.
    private func commit() throws(RecordSinkFailure) {
        guard let position, rowCount > 0 || !rejects.isEmpty || rejectedElsewhereCount > 0 || position != committed
        else { return }
        let gaveUp = ContinuousClock.now + options.retryFor
        var delay: Duration = .milliseconds(100)
        while true {
            do {
                try open().write(
                    Batch(
                        rows: rows, count: rowCount, rejects: rejects, rejected: rejects.count + rejectedElsewhereCount,
                        position: position, expected: expected), job: options.job)
                break
            } catch {
                guard error.unavailable else {
                    let refused = rowCount
                    discard()
                    throw RecordSinkFailure(
                        "the database refused a batch of \(refused) records (none of them is written): \(error.message)",
                        unavailable: false)
                }
                guard ContinuousClock.now + delay < gaveUp else {
                    discard()
                    throw RecordSinkFailure(
                        "the database cannot be reached (\(error.message)); gave up after \(Self.text(options.retryFor)) (--retry-for)",
                        unavailable: true)
                }
                options.log(
                    "mappings stream: the database cannot be reached (\(error.message)); trying again in \(Self.text(delay))"
                )
                Thread.sleep(forTimeInterval: Self.seconds(delay))
                delay = min(delay * 2, .seconds(5))
                writer?.reconnect()
            }
        }
        committed = position
        expected = position
        committedRecords += rowCount
        rows.removeAll(keepingCapacity: true)
        rowCount = 0
        rejects.removeAll()
        rejectedElsewhereCount = 0
        lastCommit = ContinuousClock.now
    }
}

extension DatabaseSink {
    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// `2 seconds`, `0.4 seconds`.
    static func text(_ duration: Duration) -> String {
        let seconds = seconds(duration)
        let number = seconds == seconds.rounded() ? String(Int(seconds)) : String(format: "%.1f", seconds)
        return number + (seconds == 1 ? " second" : " seconds")
    }
}

/// A reject kept in `--rejects-table`.
struct RejectRow {
    var file: String
    var line: Int
    var input: String
    var issues: String
}

/// One transaction's worth: the records' encodings, the rejects, where the input then stands.
struct Batch {
    var rows: [UInt8]
    var count: Int
    /// The rejects kept in the rejects table.
    var rejects: [RejectRow]
    /// Every reject of the batch, kept in the table or not (`mappings_offsets.rejected`).
    var rejected: Int
    var position: RecordPosition
    /// What the job's row holds before this batch (`nil`: no row): the batch is written only
    /// while it still does.
    var expected: RecordPosition?
}

/// What writes batches into one kind of database.
protocol TableWriter: AnyObject {
    /// Writes `batch` and, under `job`, its position, in one transaction; nothing on failure.
    func write(_ batch: Batch, job: String?) throws(DatabaseError)
    /// The position stored for `job`.
    func position(of job: String) throws(DatabaseError) -> RecordPosition?
    /// Connects again after the connection was lost (a failure is found by the next write).
    func reconnect()
}

extension TableWriter {
    /// The query of a job's stored position, `parameter` its placeholder.
    static func positionQuery(_ parameter: String) -> String {
        "SELECT \"file\", \"line\", \"byte_offset\", \"digest\", \"device\", \"inode\" FROM \"mappings_offsets\" WHERE \"job\" = \(parameter)"
    }

    /// A row of that query as a place to resume.
    static func position(stored row: [String?]) -> RecordPosition? {
        guard let file = row[0], let line = row[1].flatMap({ Int($0) }) else { return nil }
        var identity: InputIdentity?
        if let digest = row[3], let device = row[4].flatMap({ Int64($0) }), let inode = row[5].flatMap({ Int64($0) }) {
            identity = InputIdentity(
                device: UInt64(bitPattern: device), inode: UInt64(bitPattern: inode), digest: digest)
        }
        return RecordPosition(
            source: file == "-" ? nil : file, line: line, offset: row[2].flatMap { Int($0) }, identity: identity)
    }

    /// The upsert of a job's position, in either dialect, written only while the row still
    /// holds the position the batch started from (`Batch.expected`; no row when that is
    /// `nil`): it returns the job's name when it wrote, no row when another stream moved the
    /// job. Parameters: job, file, line, byte_offset, records, rejected, digest, device, inode,
    /// then the expected file, line and byte_offset (`now` the value of `updated_at`).
    static func saveOffsetSQL(_ dialect: SQLDialect, now: String) -> String {
        let p = (1...12).map { dialect == .sqlite ? "?\($0)" : "$\($0)" }
        let same = dialect == .sqlite ? "IS" : "IS NOT DISTINCT FROM"
        let cast =
            dialect == .sqlite ? { (p: String, _: String) in p } : { (p: String, type: String) in "\(p)::\(type)" }
        return """
            INSERT INTO "mappings_offsets" ("job", "file", "line", "byte_offset", "records", "rejected", "updated_at", "digest", "device", "inode")
            VALUES (\(p[0]), \(p[1]), \(p[2]), \(p[3]), \(p[4]), \(p[5]), \(now), \(p[6]), \(p[7]), \(p[8]))
            ON CONFLICT ("job") DO UPDATE SET "file" = excluded."file", "line" = excluded."line",
                "byte_offset" = excluded."byte_offset", "records" = "mappings_offsets"."records" + excluded."records",
                "rejected" = "mappings_offsets"."rejected" + excluded."rejected", "updated_at" = excluded."updated_at",
                "digest" = excluded."digest", "device" = excluded."device", "inode" = excluded."inode"
            WHERE "mappings_offsets"."file" \(same) \(cast(p[9], "text")) AND "mappings_offsets"."line" \(same) \(cast(p[10], "bigint"))
                AND "mappings_offsets"."byte_offset" \(same) \(cast(p[11], "bigint"))
            RETURNING "job"
            """
    }

    /// The parameters of `saveOffsetSQL` for `batch` under `job`, as text (`nil`: NULL).
    static func saveOffsetParameters(_ batch: Batch, job: String) -> [String?] {
        let position = batch.position
        let identity = position.identity
        return [
            job, position.source ?? "-", String(position.line), position.offset.map { String($0) },
            String(batch.count), String(batch.rejected), identity?.digest,
            identity.map { String(Int64(bitPattern: $0.device)) }, identity.map { String(Int64(bitPattern: $0.inode)) },
            batch.expected.map { $0.source ?? "-" }, batch.expected.map { String($0.line) },
            batch.expected?.offset.map { String($0) },
        ]
    }

    /// The refusal of a batch whose job moved under it (`saveOffsetSQL` wrote nothing).
    static func jobMoved(_ job: String, expected: RecordPosition?) -> DatabaseError {
        DatabaseError(
            "the job \"\(job)\" no longer stands where this stream started it (\(expected.map { "at \($0)" } ?? "not yet run")): another stream runs it or ran it meanwhile; this batch is not written",
            unavailable: false)
    }

    /// Checks that the table's columns, as the database describes them (name, declared type,
    /// nullable, whether it has a default), take what the records write: each column is
    /// there, of a type that holds its values as written; the others may be left out.
    static func check(
        _ table: SQLTable, dialect: SQLDialect,
        existing: [(name: String, type: String, nullable: Bool, hasDefault: Bool)]
    ) throws(DatabaseError) {
        guard !existing.isEmpty else {
            throw DatabaseError(
                "the table \"\(table.name)\" does not exist: add --create-tables, or create it with what `mappings schema --format sql --dialect \(dialect.rawValue)` prints",
                unavailable: false)
        }
        var problems: [String] = []
        for column in table.columns {
            guard let found = existing.first(where: { $0.name == column.name }) else {
                problems.append("it has no column \"\(column.name)\" (for \(column.property))")
                continue
            }
            if !SQLTable.fits(column.kind, declared: found.type, dialect) {
                problems.append(
                    "its column \"\(column.name)\" is \(found.type.isEmpty ? "untyped" : found.type), which does not hold \(column.property)'s values as written (\(SQLTable.type(column.kind, dialect)) does)"
                )
            }
            if !found.nullable, column.nullable {
                problems.append(
                    "its column \"\(column.name)\" is NOT NULL, but \(column.property) may be null in a record")
            }
        }
        for column in existing
        where !column.nullable && !column.hasDefault && !table.columns.contains(where: { $0.name == column.name }) {
            problems.append("its column \"\(column.name)\" is NOT NULL without a default, and no property fills it")
        }
        guard problems.isEmpty else {
            throw DatabaseError(
                "the table \"\(table.name)\" does not fit the context: " + problems.joined(separator: "; "),
                unavailable: false)
        }
    }
}
