import Foundation
import Mappings

/// Batches into PostgreSQL: one transaction a batch, the records sent with `COPY … FROM STDIN`
/// in its text format (the lines the lanes wrote): straight into the table when the context
/// has no `@identity`; with one, into a temporary staging table, then `INSERT … SELECT DISTINCT
/// ON (key) … ORDER BY key, seq DESC ON CONFLICT (key) DO UPDATE` (the last record of an
/// identity in the batch wins, as it would one batch at a time).
final class PostgresTableWriter: TableWriter {
    private let uri: String
    private let table: SQLTable
    private let options: DatabaseSink.Options
    private var connection: PostgresDatabase?

    init(uri: String, table: SQLTable, options: DatabaseSink.Options) throws(DatabaseError) {
        self.uri = uri
        self.table = table
        self.options = options
        let connection = try PostgresDatabase(uri: uri)
        self.connection = connection
        if options.createTables { try connection.execute(table.createStatement(.postgresql)) }
        let described = try connection.rows(
            """
            SELECT column_name, data_type, is_nullable, column_default IS NOT NULL OR is_identity = 'YES'
            FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1
            ORDER BY ordinal_position
            """, [table.name])
        try Self.check(
            table, dialect: .postgresql,
            existing: described.map {
                (name: $0[0] ?? "", type: $0[1] ?? "", nullable: $0[2] == "YES", hasDefault: $0[3] == "t")
            })
        if options.job != nil { try Self.readyOffsets(connection) }
        if let rejects = options.rejectsTable {
            try connection.execute(SQLTable.rejectsStatement(rejects, .postgresql))
        }
        try prepare(connection)
    }

    /// The job's lock (held by the connection), the staging table of an upsert, and a check
    /// that the table has the unique key `ON CONFLICT` needs: all before any row.
    private func prepare(_ connection: PostgresDatabase) throws(DatabaseError) {
        if let job = options.job {
            // One stream a job: a second one would write what the first one writes.
            let locked = try connection.rows("SELECT pg_try_advisory_lock(hashtextextended($1, 0))", [job])
            guard locked.first?.first == "t" else {
                throw DatabaseError(
                    "the job \"\(job)\" is running in another stream (which holds its lock in this database)",
                    unavailable: false)
            }
        }
        guard !table.key.isEmpty else { return }
        let dialect = SQLDialect.postgresql
        try connection.execute(
            """
            CREATE TEMPORARY TABLE IF NOT EXISTS "mappings_staging" AS SELECT \(table.columnList(dialect)) FROM \(dialect.quote(table.name)) WITH NO DATA;
            ALTER TABLE "mappings_staging" ADD COLUMN IF NOT EXISTS "mappings_seq" bigserial
            """)
        do {
            try connection.execute("EXPLAIN " + upsertSQL)
        } catch {
            throw DatabaseError(
                "the table \"\(table.name)\" cannot take upserts by @identity: \(error.message) (it needs a PRIMARY KEY or UNIQUE constraint on its columns)",
                unavailable: false)
        }
    }

    private var upsertSQL: String {
        let dialect = SQLDialect.postgresql
        let keys = table.key.map { dialect.quote(table.columns[$0].name) }.joined(separator: ", ")
        return
            "INSERT INTO \(dialect.quote(table.name)) (\(table.columnList(dialect))) SELECT \(table.columnList(dialect)) FROM (SELECT DISTINCT ON (\(keys)) * FROM \"mappings_staging\" ORDER BY \(keys), \"mappings_seq\" DESC) AS latest"
            + table.conflictClause(dialect)
    }

    /// `mappings_offsets`, created when missing, with the columns an older version did not make.
    private static func readyOffsets(_ connection: PostgresDatabase) throws(DatabaseError) {
        try connection.execute(SQLTable.offsetsStatement(.postgresql))
        // Altered only when a column is missing: ALTER TABLE waits for every transaction on the table.
        let has = Set(
            try connection.rows(
                "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'mappings_offsets'"
            ).compactMap { $0[0] })
        for column in SQLTable.offsetsColumnsAdded(.postgresql) where !has.contains(column.name) {
            try connection.execute(
                "ALTER TABLE \"mappings_offsets\" ADD COLUMN IF NOT EXISTS \"\(column.name)\" \(column.type)")
        }
    }

    func reconnect() {
        connection = nil
        do {
            let connection = try PostgresDatabase(uri: uri)
            try prepare(connection)
            self.connection = connection
            reconnectFailure = nil
        } catch {
            reconnectFailure = error
        }
    }

    /// Why the last reconnection failed: what the next write says.
    private var reconnectFailure: DatabaseError?

    private func open() throws(DatabaseError) -> PostgresDatabase {
        if let connection, connection.isOpen { return connection }
        throw reconnectFailure ?? DatabaseError("the connection to PostgreSQL is closed", unavailable: true)
    }

    func position(of job: String) throws(DatabaseError) -> RecordPosition? {
        let connection = try open()
        try Self.readyOffsets(connection)
        let rows = try connection.rows(
            Self.positionQuery("$1"), [job])
        return rows.first.flatMap(Self.position(stored:))
    }

    func write(_ batch: Batch, job: String?) throws(DatabaseError) {
        let connection = try open()
        let dialect = SQLDialect.postgresql
        try connection.execute("BEGIN")
        do throws(DatabaseError) {
            if batch.count > 0 {
                if table.key.isEmpty {
                    try connection.copy(
                        "COPY \(dialect.quote(table.name)) (\(table.columnList(dialect))) FROM STDIN", batch.rows[...])
                } else {
                    try connection.copy(
                        "COPY \"mappings_staging\" (\(table.columnList(dialect))) FROM STDIN", batch.rows[...])
                    try connection.execute(upsertSQL)
                    try connection.execute("TRUNCATE \"mappings_staging\"")
                }
            }
            if let rejects = options.rejectsTable {
                for reject in batch.rejects {
                    _ = try connection.rows(
                        "INSERT INTO \(dialect.quote(rejects)) (\"job\", \"file\", \"line\", \"input\", \"issues\", \"rejected_at\") VALUES ($1, $2, $3, $4, $5, now())",
                        [job, reject.file, String(reject.line), reject.input, reject.issues])
                }
            }
            if let job {
                let wrote = try connection.rows(
                    Self.saveOffsetSQL(.postgresql, now: "now()"), Self.saveOffsetParameters(batch, job: job))
                guard !wrote.isEmpty else { throw Self.jobMoved(job, expected: batch.expected) }
            }
            try connection.execute("COMMIT")
        } catch {
            if connection.isOpen { try? connection.execute("ROLLBACK") }
            throw error
        }
    }
}
