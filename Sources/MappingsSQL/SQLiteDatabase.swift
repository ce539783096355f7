internal import CSQLClient
import Foundation

/// A SQLite database file, through the library loaded at run time (`CSQLClient`).
final class SQLiteDatabase {
    private let api: UnsafePointer<mappings_sqlite_api>
    private let handle: OpaquePointer
    let path: String

    /// Opens (creating it when missing) the database at `path`.
    init(path: String) throws(DatabaseError) {
        var error: UnsafePointer<CChar>?
        guard let api = mappings_sqlite_load(&error) else {
            throw DatabaseError(error.map { String(cString: $0) } ?? "SQLite cannot be loaded", unavailable: false)
        }
        self.api = api
        var handle: OpaquePointer?
        let status = api.pointee.open_v2(
            path, &handle,
            Int32(MAPPINGS_SQLITE_OPEN_READWRITE | MAPPINGS_SQLITE_OPEN_CREATE | MAPPINGS_SQLITE_OPEN_NOMUTEX), nil)
        guard status == MAPPINGS_SQLITE_OK, let handle else {
            let message = String(cString: api.pointee.errmsg(handle))
            _ = api.pointee.close_v2(handle)
            throw DatabaseError("cannot open the SQLite database \"\(path)\": \(message)", unavailable: false)
        }
        self.handle = handle
        self.path = path
        // Another writer holding the file (a reader's transaction) is waited for, not an error.
        _ = api.pointee.busy_timeout(handle, 10_000)
    }

    deinit {
        _ = api.pointee.close_v2(handle)
    }

    var message: String { String(cString: api.pointee.errmsg(handle)) }

    /// Runs `sql` (one or more statements, no results).
    func execute(_ sql: String) throws(DatabaseError) {
        var error: UnsafeMutablePointer<CChar>?
        let status = api.pointee.exec(handle, sql, nil, nil, &error)
        guard status == MAPPINGS_SQLITE_OK else {
            let message = error.map { String(cString: $0) } ?? self.message
            api.pointee.free(error)
            throw DatabaseError(message, unavailable: status == MAPPINGS_SQLITE_BUSY)
        }
    }

    func prepare(_ sql: String) throws(DatabaseError) -> Statement {
        var statement: OpaquePointer?
        guard api.pointee.prepare_v2(handle, sql, -1, &statement, nil) == MAPPINGS_SQLITE_OK, let statement else {
            throw DatabaseError(message, unavailable: false)
        }
        return Statement(api: api, handle: statement, database: self)
    }

    /// The rows of a query, each column as text (`nil`: NULL).
    func rows(_ sql: String, _ parameters: [String] = []) throws(DatabaseError) -> [[String?]] {
        let statement = try prepare(sql)
        for (index, parameter) in parameters.enumerated() { statement.bind(index + 1, text: parameter) }
        var rows: [[String?]] = []
        while try statement.step() {
            rows.append(statement.texts())
        }
        return rows
    }

    /// A prepared statement, finalized when released.
    final class Statement {
        let api: UnsafePointer<mappings_sqlite_api>
        let handle: OpaquePointer
        unowned let database: SQLiteDatabase
        init(api: UnsafePointer<mappings_sqlite_api>, handle: OpaquePointer, database: SQLiteDatabase) {
            self.api = api
            self.handle = handle
            self.database = database
        }

        deinit { _ = api.pointee.finalize(handle) }

        func bind(_ index: Int, integer: Int64) { _ = api.pointee.bind_int64(handle, Int32(index), integer) }
        func bind(_ index: Int, double: Double) { _ = api.pointee.bind_double(handle, Int32(index), double) }
        func bindNull(_ index: Int) { _ = api.pointee.bind_null(handle, Int32(index)) }

        /// Binds a copy of `text` (SQLITE_TRANSIENT).
        func bind(_ index: Int, text: String) {
            let transient = UnsafeMutableRawPointer(bitPattern: -1)
            var text = text
            text.withUTF8 { bytes in
                let base = UnsafeRawPointer(bytes.baseAddress ?? UnsafePointer(Self.empty))
                _ = api.pointee.bind_text(
                    handle, Int32(index), base.assumingMemoryBound(to: CChar.self), Int32(bytes.count), transient)
            }
        }

        /// Binds `bytes` without a copy: they must stay where they are until the statement is stepped.
        func bind(_ index: Int, bytes: UnsafeRawBufferPointer) {
            // SQLite takes a null pointer as NULL: an empty text needs an address.
            let base = bytes.baseAddress ?? UnsafeRawPointer(Self.empty)
            _ = api.pointee.bind_text(
                handle, Int32(index), base.assumingMemoryBound(to: CChar.self), Int32(bytes.count), nil)
        }

        nonisolated(unsafe) private static let empty: UnsafeMutablePointer<UInt8> = {
            let byte = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
            byte.initialize(to: 0)
            return byte
        }()

        /// Steps once: `true` for a row, `false` when done.
        func step() throws(DatabaseError) -> Bool {
            let status = api.pointee.step(handle)
            if status == MAPPINGS_SQLITE_ROW { return true }
            _ = api.pointee.reset(handle)
            guard status == MAPPINGS_SQLITE_DONE else {
                throw DatabaseError(database.message, unavailable: status == MAPPINGS_SQLITE_BUSY)
            }
            return false
        }

        func texts() -> [String?] {
            (0..<api.pointee.column_count(handle)).map { column in
                guard api.pointee.column_type(handle, column) != MAPPINGS_SQLITE_NULL,
                    let text = api.pointee.column_text(handle, column)
                else { return nil }
                return String(cString: text)
            }
        }
    }
}

/// What a database said when it refused, or could not be reached.
struct DatabaseError: Error {
    var message: String
    /// Whether trying again later may work (the server went away, a lock held too long).
    var unavailable: Bool

    init(_ message: String, unavailable: Bool) {
        self.message = message
        self.unavailable = unavailable
    }
}
