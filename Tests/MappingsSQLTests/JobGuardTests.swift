import Foundation
import Mappings
import MappingsEngine
import MappingsTestSupport
import Testing

@testable import MappingsSQL

/// What keeps a job's records from being written twice or its place from being lost, as a
/// host meets it through `DatabaseSink`: one lock a database whatever its path's name, a
/// compare-and-set on `mappings_offsets` behind the lock, names refused up front, the rejects
/// counted with or without a rejects table, and the identity of the file a job stopped in.
@Suite("Guards of a job's place")
struct JobGuardTests {
    static func sink(_ path: String, job: String, batch: Int = 7, rejectsTable: String? = "rejects") throws
        -> DatabaseSink
    {
        let (_, catalog, context) = try RecordSinkTests.stream()
        var options = RecordSinkTests.options(job: job, batch: batch)
        options.rejectsTable = rejectsTable
        return try DatabaseSink(.sqlite(path: path), context: context, in: catalog, options: options)
    }

    @Test("a link to the database file is the same database: its job's lock is the file's, and let go of at close")
    func lockThroughALink() throws {
        let folder = try RecordSinkTests.folder()
        let database = folder.appendingPathComponent("cc2.db").path
        let link = folder.appendingPathComponent("link.db").path
        let first = try Self.sink(database, job: "daily")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: database)
        let refused = #expect(throws: RecordSinkFailure.self) { try Self.sink(link, job: "daily") }
        #expect(refused?.message.contains(#"the job "daily" is running in another stream"#) == true)
        #expect(refused?.message.contains("cc2.db.daily.lock") == true)
        // Another job of the same database runs beside it.
        let other = try Self.sink(link, job: "weekly")
        other.close()
        first.close()
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".lock") }
        #expect(left == [])
        // Let go of, the job opens again through the link.
        try Self.sink(link, job: "daily").close()
    }

    @Test("a batch is written only while the job stands where the sink found it: a second writer round the lock fails")
    func compareAndSet() throws {
        let lines = RecordSinkTests.lines(400)
        let folder = try RecordSinkTests.folder()
        let database = folder.appendingPathComponent("shop.db").path
        let (stream, _, _) = try RecordSinkTests.stream()
        let first = try Self.sink(database, job: "orders", batch: 50)
        // A second stream gets round the lock (its file removed under the first, as a careless
        // clean-up would), and commits first.
        let lock = try FileManager.default.contentsOfDirectory(atPath: folder.path).first { $0.hasSuffix(".lock") }
        try FileManager.default.removeItem(atPath: folder.appendingPathComponent(try #require(lock)).path)
        let second = try Self.sink(database, job: "orders", batch: 50)
        try stream.map(lines[..<100], into: second, from: RecordPosition(source: "orders.ndjson"))
        let failure = #expect(throws: RecordSinkFailure.self) {
            try stream.map(lines, into: first, from: RecordPosition(source: "orders.ndjson"))
        }
        #expect(failure?.message.contains(#"the job "orders" no longer stands where this stream started it"#) == true)
        #expect(failure?.message.contains("this batch is not written") == true)
        let stored = try SQLiteDatabase(path: database).rows(
            #"SELECT "line", "records" FROM "mappings_offsets" WHERE "job" = 'orders'"#)
        #expect(stored.count == 1)
        #expect(stored.first?.first == "101")
        second.close()
        first.close()
        // A sink opened after that commit stands where it left the job, and goes on.
        let third = try Self.sink(database, job: "orders", batch: 50)
        let place = try #require(try third.storedPosition())
        #expect(place.line == 101)
        try stream.map(lines[100...], into: third, from: place)
        #expect(third.committed?.line == 401)
    }

    @Test(
        "names the database cannot keep, and a database in memory, are refused before anything is written",
        arguments: [
            ("", "--job takes a name, not an empty one"),
            ("a\u{0}b", "holds a control character"),
            ("tab\there", "holds a control character"),
            (String(repeating: "j", count: 201), "201 bytes, more than the 200"),
        ])
    func refusedNames(job: String, message: String) throws {
        #expect(DatabaseSink.refusal(ofJob: job)?.contains(message) == true)
        let folder = try RecordSinkTests.folder()
        let failure = #expect(throws: RecordSinkFailure.self) {
            try Self.sink(folder.appendingPathComponent("x.db").path, job: job)
        }
        #expect(failure?.message.contains(message) == true)
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("x.db").path))
    }

    @Test("a job in a database kept in memory is refused: its place would be gone with the stream")
    func inMemory() throws {
        for path in [":memory:", "file::memory:?cache=shared", "file:x?mode=memory"] {
            let failure = #expect(throws: RecordSinkFailure.self) { try Self.sink(path, job: "daily") }
            #expect(failure?.message.contains("a database in memory") == true)
        }
        #expect(DatabaseSink.refusal(ofJob: "daily-2026_12.v1 é") == nil)
    }

    @Test("mappings_offsets.rejected counts every reject, with a rejects table or without one")
    func rejectedCounted() throws {
        let lines = RecordSinkTests.lines(700)
        let folder = try RecordSinkTests.folder()
        let (stream, _, _) = try RecordSinkTests.stream()
        for table in ["rejects", nil] {
            let path = folder.appendingPathComponent("\(table ?? "none").db").path
            let sink = try Self.sink(path, job: "orders", rejectsTable: table)
            let report = try stream.map(lines, into: sink, from: RecordPosition(source: "orders.ndjson"))
            sink.close()
            #expect(report.rejected == 62)
            let stored = try SQLiteDatabase(path: path).rows(#"SELECT "rejected" FROM "mappings_offsets""#)
            #expect(stored == [["62"]])
        }
    }

    @Test("the identity of the file a job stopped in is kept with its place, and read back")
    func identityKept() throws {
        let lines = RecordSinkTests.lines(100)
        let folder = try RecordSinkTests.folder()
        let path = folder.appendingPathComponent("shop.db").path
        let (stream, _, _) = try RecordSinkTests.stream()
        let sink = try Self.sink(path, job: "orders", batch: 1000)
        let identity = InputIdentity(device: 2049, inode: UInt64.max - 3, digest: "0123456789abcdef")
        try stream.map(lines, into: sink, from: RecordPosition(source: "orders.ndjson"))
        let end = RecordPosition(source: "orders.ndjson", line: 101, offset: RecordSinkTests.size(lines[...]))
        // A position with an identity, as the tool hands one over.
        var place = end
        place.identity = identity
        try sink.finish(at: place)
        sink.close()
        let again = try Self.sink(path, job: "orders")
        #expect(try again.storedPosition() == place)
    }

    @Test("an offsets table made by an earlier version gains the identity's columns")
    func olderOffsetsTable() throws {
        let folder = try RecordSinkTests.folder()
        let path = folder.appendingPathComponent("old.db").path
        try SQLiteDatabase(path: path).execute(
            """
            CREATE TABLE "mappings_offsets" ("job" TEXT PRIMARY KEY, "file" TEXT NOT NULL, "line" INTEGER NOT NULL,
                "byte_offset" INTEGER, "records" INTEGER NOT NULL, "rejected" INTEGER NOT NULL, "updated_at" TEXT NOT NULL);
            INSERT INTO "mappings_offsets" VALUES ('orders', 'orders.ndjson', 3, 120, 2, 0, '2026-01-01T00:00:00Z');
            """)
        let sink = try Self.sink(path, job: "orders")
        #expect(try sink.storedPosition() == RecordPosition(source: "orders.ndjson", line: 3, offset: 120))
        sink.close()
        let columns = try SQLiteDatabase(path: path).rows("SELECT name FROM pragma_table_info('mappings_offsets')")
        #expect(columns.compactMap(\.first).suffix(3) == ["digest", "device", "inode"])
    }

    @Test("PostgreSQL identifiers over 63 bytes are refused, naming the limit; SQLite's are not")
    func longIdentifiers() throws {
        let long = String(repeating: "t", count: 64)
        let (table, _) = try SQLTableTests.table(long)
        let refusal = #expect(throws: SQLTable.Refusal.self) { try table.checkIdentifiers(.postgresql) }
        #expect(refusal?.message.contains("is 64 bytes, and PostgreSQL keeps 63 of an identifier") == true)
        try table.checkIdentifiers(.sqlite)
        let (fits, _) = try SQLTableTests.table(String(repeating: "t", count: 63))
        try fits.checkIdentifiers(.postgresql)
        // Bytes, not characters: 32 two-byte characters are 64 bytes.
        let (wide, _) = try SQLTableTests.table(String(repeating: "é", count: 32))
        #expect(throws: SQLTable.Refusal.self) { try wide.checkIdentifiers(.postgresql) }
    }
}
