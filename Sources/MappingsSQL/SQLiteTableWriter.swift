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
        lock = try options.job.map { job throws(DatabaseError) in try JobLock(job, of: path) }
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
            try Self.readyOffsets(database)
            saveOffset = try database.prepare(Self.saveOffsetSQL(.sqlite, now: "?13"))
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

    /// Whether `path` names a database SQLite keeps in memory (`:memory:`, `file::memory:`,
    /// `file:…?mode=memory`), which nothing outlives the connection of.
    static func isInMemory(_ path: String) -> Bool {
        path == ":memory:" || path.hasPrefix("file::memory:")
            || (path.hasPrefix("file:") && path.contains("mode=memory"))
    }

    /// `mappings_offsets`, created when missing, with the columns an older version did not make.
    private static func readyOffsets(_ database: SQLiteDatabase) throws(DatabaseError) {
        try database.execute(SQLTable.offsetsStatement(.sqlite))
        let has = Set(try database.rows("SELECT name FROM pragma_table_info('mappings_offsets')").compactMap { $0[0] })
        for column in SQLTable.offsetsColumnsAdded(.sqlite) where !has.contains(column.name) {
            try database.execute("ALTER TABLE \"mappings_offsets\" ADD COLUMN \"\(column.name)\" \(column.type)")
        }
    }

    func reconnect() {}

    func position(of job: String) throws(DatabaseError) -> RecordPosition? {
        try Self.readyOffsets(database)
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
                let integers: Set<Int> = [3, 4, 5, 6, 8, 9, 11, 12]
                for (index, parameter) in Self.saveOffsetParameters(batch, job: job).enumerated() {
                    if let parameter, integers.contains(index + 1), let value = Int64(parameter) {
                        saveOffset.bind(index + 1, integer: value)
                    } else if let parameter {
                        saveOffset.bind(index + 1, text: parameter)
                    } else {
                        saveOffset.bindNull(index + 1)
                    }
                }
                saveOffset.bind(13, text: now)
                guard try saveOffset.step() else { throw Self.jobMoved(job, expected: batch.expected) }
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
