internal import CSQLClient
import Foundation

/// A PostgreSQL connection through libpq, loaded at run time (`CSQLClient`).
final class PostgresDatabase {
    private let api: UnsafePointer<mappings_pq_api>
    private let connection: OpaquePointer

    /// Connects to `uri` (`postgresql://user@host:port/db?sslmode=…`, as libpq reads it).
    init(uri: String) throws(DatabaseError) {
        var error: UnsafePointer<CChar>?
        guard let api = mappings_pq_load(&error) else {
            throw DatabaseError(error.map { String(cString: $0) } ?? "libpq cannot be loaded", unavailable: false)
        }
        self.api = api
        guard let connection = api.pointee.connectdb(uri) else {
            throw DatabaseError("cannot connect to PostgreSQL: out of memory", unavailable: true)
        }
        guard api.pointee.status(connection) == MAPPINGS_PG_CONNECTION_OK else {
            let message = Self.trimmed(String(cString: api.pointee.error_message(connection)))
            api.pointee.finish(connection)
            throw DatabaseError("cannot connect to PostgreSQL: \(message)", unavailable: true)
        }
        self.connection = connection
        // The notices of `CREATE … IF NOT EXISTS`, and the server's warning as it shuts down,
        // are no news to an operator: what matters comes back as an error.
        try execute("SET client_min_messages = error")
    }

    deinit { api.pointee.finish(connection) }

    /// Whether the connection still stands.
    var isOpen: Bool { api.pointee.status(connection) == MAPPINGS_PG_CONNECTION_OK }

    /// libpq's message on one line.
    private static func trimmed(_ text: String) -> String {
        text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// The error of a result (or of the connection, when there is no result).
    private func failure(_ result: OpaquePointer?) -> DatabaseError {
        var message = Self.trimmed(String(cString: api.pointee.result_error_message(result)))
        if message.isEmpty { message = Self.trimmed(String(cString: api.pointee.error_message(connection))) }
        let state = result.flatMap { api.pointee.result_error_field($0, Int32(MAPPINGS_PG_DIAG_SQLSTATE)) }
            .map { String(cString: $0) }
        // Class 08 (connection exception), 57P01–57P03 (the server shutting down or starting),
        // 53 (out of resources), or no connection left: trying again later may work.
        let transient =
            !isOpen || state.map { $0.hasPrefix("08") || $0.hasPrefix("57P") || $0.hasPrefix("53") } ?? true
        return DatabaseError(message.isEmpty ? "the server closed the connection" : message, unavailable: transient)
    }

    /// Runs `sql` (statements without results, or whose rows are not needed).
    func execute(_ sql: String) throws(DatabaseError) {
        let result = api.pointee.exec(connection, sql)
        defer { api.pointee.clear(result) }
        let status = api.pointee.result_status(result)
        guard result != nil, status == MAPPINGS_PGRES_COMMAND_OK || status == MAPPINGS_PGRES_TUPLES_OK else {
            throw failure(result)
        }
    }

    /// The rows of a query with text parameters, each column as text (`nil`: NULL).
    func rows(_ sql: String, _ parameters: [String?] = []) throws(DatabaseError) -> [[String?]] {
        let copies = parameters.map { $0.map { strdup($0) } ?? nil }
        defer { copies.forEach { free($0) } }
        let result: OpaquePointer? = copies.map { UnsafePointer($0) }.withUnsafeBufferPointer { values in
            api.pointee.exec_params(connection, sql, Int32(parameters.count), nil, values.baseAddress, nil, nil, 0)
        }
        defer { api.pointee.clear(result) }
        guard let result,
            api.pointee.result_status(result) == MAPPINGS_PGRES_TUPLES_OK
                || api.pointee.result_status(result) == MAPPINGS_PGRES_COMMAND_OK
        else { throw failure(result) }
        let columns = api.pointee.nfields(result)
        return (0..<api.pointee.ntuples(result)).map { row in
            (0..<columns).map { column in
                api.pointee.getisnull(result, row, column) != 0
                    ? nil : String(cString: api.pointee.getvalue(result, row, column))
            }
        }
    }

    /// `COPY … FROM STDIN` of `data` (rows in COPY's text format).
    func copy(_ sql: String, _ data: ArraySlice<UInt8>) throws(DatabaseError) {
        let started = api.pointee.exec(connection, sql)
        let status = api.pointee.result_status(started)
        guard started != nil, status == MAPPINGS_PGRES_COPY_IN else {
            defer { api.pointee.clear(started) }
            throw failure(started)
        }
        api.pointee.clear(started)
        let sent: Bool = data.withUnsafeBytes { bytes in
            var offset = 0
            // In pieces of 1 MiB: libpq buffers what it sends.
            while offset < bytes.count {
                let count = min(1 << 20, bytes.count - offset)
                let base = bytes.baseAddress!.advanced(by: offset).assumingMemoryBound(to: CChar.self)
                guard api.pointee.put_copy_data(connection, base, Int32(count)) == 1 else { return false }
                offset += count
            }
            return true
        }
        guard api.pointee.put_copy_end(connection, sent ? nil : "the client could not send its rows") == 1 else {
            throw failure(nil)
        }
        var failed: DatabaseError?
        while let result = api.pointee.get_result(connection) {
            if api.pointee.result_status(result) != MAPPINGS_PGRES_COMMAND_OK, failed == nil {
                failed = failure(result)
            }
            api.pointee.clear(result)
        }
        if let failed { throw failed }
        guard sent else { throw failure(nil) }
    }
}
