import Foundation
import Mappings

/// Batches into a SQLite file: one `BEGIN IMMEDIATE … COMMIT` a batch, a prepared
/// `INSERT` (with `ON CONFLICT … DO UPDATE` for a context with `@identity`) stepped a record at
/// a time with the cells the lanes encoded, bound without a copy.
final class SQLiteTableWriter: TableWriter {
    private let database: SQLiteDatabase
    private let table: SQLTable
    /// The insert of one row, and of `rowsAStatement` rows (in their order: the last of an
    /// identity wins within one statement too).
    private let insert: SQLiteDatabase.Statement
    private let insertMany: SQLiteDatabase.Statement
    private let rowsAStatement: Int
    private let saveOffset: SQLiteDatabase.Statement?
    private let insertReject: SQLiteDatabase.Statement?

    /// The lock file of the job, held while the stream runs (and let go of when an `init` that
    /// took it fails after: an object of its own, released with whatever was set).
    private let lock: JobLock?

    init(path: String, table: SQLTable, options: DatabaseSink.Options) throws(DatabaseError) {
        lock = try options.job.map { job throws(DatabaseError) in JobLock(try Self.lock(job, of: path)) }
        database = try SQLiteDatabase(path: path)
        self.table = table
        // WAL: a commit appends to the log instead of rewriting pages, and readers never block
        // the stream. A process killed at any point loses nothing committed.
        _ = try database.rows("PRAGMA journal_mode = WAL")
        try database.execute("PRAGMA synchronous = NORMAL")
        if options.createTables { try database.execute(table.createStatement(.sqlite)) }
        let described = try database.rows(
            "SELECT name, type, \"notnull\", dflt_value, pk FROM pragma_table_info(?)",
            [
                table.name
            ])
        try Self.check(
            table, dialect: .sqlite,
            existing: described.map {
                (name: $0[0] ?? "", type: $0[1] ?? "", nullable: $0[2] == "0" && $0[4] == "0", hasDefault: $0[3] != nil)
            })
        let row = "(" + Array(repeating: "?", count: table.columns.count).joined(separator: ", ") + ")"
        // Rows a statement: SQLite's cost is per statement stepped as much as per row; the
        // variables stay under SQLite's limit (32,766).
        rowsAStatement = max(1, min(64, 32_766 / table.columns.count))
        let prefix = "INSERT INTO \(SQLDialect.sqlite.quote(table.name)) (\(table.columnList(.sqlite))) VALUES "
        do {
            insert = try database.prepare(prefix + row + table.conflictClause(.sqlite))
            insertMany = try database.prepare(
                prefix + Array(repeating: row, count: rowsAStatement).joined(separator: ", ")
                    + table.conflictClause(.sqlite))
        } catch {
            throw DatabaseError(
                "the table \"\(table.name)\" cannot take the records: \(error.message)"
                    + (table.key.isEmpty ? "" : " (an @identity needs a PRIMARY KEY or UNIQUE index on its columns)"),
                unavailable: false)
        }
        if options.job != nil {
            try database.execute(SQLTable.offsetsStatement(.sqlite))
            saveOffset = try database.prepare(PostgresTableWriter.saveOffsetSQL(.sqlite, now: "?7"))
        } else {
            saveOffset = nil
        }
        if let rejects = options.rejectsTable {
            try database.execute(SQLTable.rejectsStatement(rejects, .sqlite))
            insertReject = try database.prepare(
                "INSERT INTO \(SQLDialect.sqlite.quote(rejects)) (\"job\", \"file\", \"line\", \"input\", \"issues\", \"rejected_at\") VALUES (?, ?, ?, ?, ?, ?)"
            )
        } else {
            insertReject = nil
        }
    }

    /// An open lock file, closed (its lock let go of) when the last reference goes.
    final class JobLock {
        let descriptor: Int32
        init(_ descriptor: Int32) { self.descriptor = descriptor }
        deinit { close(descriptor) }
    }

    /// One stream a job: a second one would write what the first one writes. The lock is a
    /// file beside the database (`PATH.JOB.lock`), released by the system however the stream ends.
    private static func lock(_ job: String, of path: String) throws(DatabaseError) -> Int32 {
        let name = job.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? String($0) : "_" }.joined()
        let file = "\(path).\(name).lock"
        let descriptor = open(file, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw DatabaseError(
                "cannot open the lock file of the job \"\(job)\", \(file): \(String(cString: strerror(errno)))",
                unavailable: false)
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            throw DatabaseError(
                "the job \"\(job)\" is running in another stream (which holds \(file))", unavailable: false)
        }
        return descriptor
    }

    func reconnect() {}

    func position(of job: String) throws(DatabaseError) -> RecordPosition? {
        try database.execute(SQLTable.offsetsStatement(.sqlite))
        let rows = try database.rows(
            Self.positionQuery("?"), [job])
        return rows.first.flatMap(Self.position(stored:))
    }

    func write(_ batch: Batch, job: String?) throws(DatabaseError) {
        try database.execute("BEGIN IMMEDIATE")
        do throws(DatabaseError) {
            try insertRows(batch.rows)
            let now = ISO8601DateFormatter().string(from: Date())
            if let insertReject {
                for reject in batch.rejects {
                    if let job { insertReject.bind(1, text: job) } else { insertReject.bindNull(1) }
                    insertReject.bind(2, text: reject.file)
                    insertReject.bind(3, integer: Int64(reject.line))
                    insertReject.bind(4, text: reject.input)
                    insertReject.bind(5, text: reject.issues)
                    insertReject.bind(6, text: now)
                    _ = try insertReject.step()
                }
            }
            if let job, let saveOffset {
                saveOffset.bind(1, text: job)
                saveOffset.bind(2, text: batch.position.source ?? "-")
                saveOffset.bind(3, integer: Int64(batch.position.line))
                if let offset = batch.position.offset {
                    saveOffset.bind(4, integer: Int64(offset))
                } else {
                    saveOffset.bindNull(4)
                }
                saveOffset.bind(5, integer: Int64(batch.count))
                saveOffset.bind(6, integer: Int64(batch.rejects.count))
                saveOffset.bind(7, text: now)
                _ = try saveOffset.step()
            }
            try database.execute("COMMIT")
        } catch {
            try? database.execute("ROLLBACK")
            throw error
        }
    }

    /// Binds each record's cells (`SQLCell`), `rowsAStatement` records a statement (the last
    /// ones one at a time), and steps it. The texts are bound where they are in `rows`.
    private func insertRows(_ rows: [UInt8]) throws(DatabaseError) {
        let columns = table.columns.count
        let failure: DatabaseError? = rows.withUnsafeBytes { bytes -> DatabaseError? in
            func read32(_ at: Int) -> Int {
                Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self)))
            }
            // Where each record starts.
            var starts: [Int] = []
            var offset = 0
            while offset + 4 <= bytes.count {
                starts.append(offset)
                offset += 4 + read32(offset) + 1
            }
            var index = 0
            while index < starts.count {
                let many = starts.count - index >= rowsAStatement
                let statement = many ? insertMany : insert
                for slot in 0..<(many ? rowsAStatement : 1) {
                    var cursor = starts[index + slot] + 4
                    let base = slot * columns
                    for column in 1...columns {
                        let tag = bytes[cursor]
                        cursor += 1
                        switch tag {
                        case SQLCell.integer.rawValue:
                            statement.bind(
                                base + column,
                                integer: Int64(
                                    littleEndian: bytes.loadUnaligned(fromByteOffset: cursor, as: Int64.self)))
                            cursor += 8
                        case SQLCell.double.rawValue:
                            let bits = UInt64(
                                littleEndian: bytes.loadUnaligned(fromByteOffset: cursor, as: UInt64.self))
                            statement.bind(base + column, double: Double(bitPattern: bits))
                            cursor += 8
                        case SQLCell.text.rawValue:
                            let length = read32(cursor)
                            statement.bind(
                                base + column,
                                bytes: UnsafeRawBufferPointer(rebasing: bytes[(cursor + 4)..<(cursor + 4 + length)]))
                            cursor += 4 + length
                        default:
                            statement.bindNull(base + column)
                        }
                    }
                }
                do throws(DatabaseError) {
                    _ = try statement.step()
                } catch {
                    return error
                }
                index += many ? rowsAStatement : 1
            }
            return nil
        }
        if let failure { throw failure }
    }
}
