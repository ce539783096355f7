import Foundation
import Mappings
import MappingsEngine
import MappingsSQL
import MappingsTestSupport
import Testing

/// The tables of contexts (`schema --format sql`, `stream --to`): columns, keys, DDL, and the
/// rows the lanes encode for SQLite and for PostgreSQL's COPY.
@Suite("SQL tables of contexts")
struct SQLTableTests {
    static let source = """
        {
          "@models": {
            "Money": {"amount": "Decimal", "currency": "String"},
            "Order": {"orderId": "Int", "placedAt": "Date?", "total": "Money?", "lines": "[Money]",
                      "extra": "JSON?", "paid": "Bool", "note": "String?", "weight": "Double?"}
          },
          "$Order": {
            "@class": "Order",
            "@identity": "orderId",
            "orderId": "id", "placedAt": {"@keyPath": "placed_at", "@optional": true},
            "total": {"@keyPath": "total", "@optional": true, "@object": {"@mappings": "$Money"}},
            "lines": {"@keyPath": "lines", "@object": {"@mappings": "$Money"}},
            "extra": {"@keyPath": "extra", "@optional": true}, "paid": "paid",
            "note": {"@keyPath": "note", "@optional": true}, "weight": {"@keyPath": "weight", "@optional": true}
          },
          "$Money": {"@class": "Money", "amount": "amount", "currency": "currency"}
        }
        """

    static func table(_ name: String? = nil) throws -> (SQLTable, RecordMapper) {
        let catalog = try load(source)
        let mapper = Mapper(catalog: catalog)
        let compiled = try mapper.context("$Order")
        return (try SQLTable.of(compiled, in: catalog, named: name), RecordMapper(mapper: mapper, context: compiled))
    }

    @Test(
        "property names become snake_case columns",
        arguments: [
            ("createdAt", "created_at"), ("HTTPStatus", "http_status"), ("user_id", "user_id"), ("id", "id"),
            ("userID", "user_id"), ("x2Y", "x2_y"),
        ])
    func snakeCase(name: String, column: String) {
        #expect(SQLTable.snakeCase(name) == column)
    }

    @Test("the DDL of each dialect: a column a property, the identity as the primary key")
    func ddl() throws {
        let (table, _) = try Self.table()
        #expect(table.name == "order")
        #expect(
            table.createStatement(.postgresql) == """
                CREATE TABLE IF NOT EXISTS "order" (
                    "order_id" bigint NOT NULL,
                    "placed_at" timestamptz,
                    "total" jsonb,
                    "lines" jsonb NOT NULL,
                    "extra" jsonb,
                    "paid" boolean NOT NULL,
                    "note" text,
                    "weight" double precision,
                    PRIMARY KEY ("order_id")
                );
                """)
        #expect(
            table.createStatement(.sqlite) == """
                CREATE TABLE IF NOT EXISTS "order" (
                    "order_id" INTEGER NOT NULL,
                    "placed_at" TEXT,
                    "total" TEXT,
                    "lines" TEXT NOT NULL,
                    "extra" TEXT,
                    "paid" INTEGER NOT NULL,
                    "note" TEXT,
                    "weight" REAL,
                    PRIMARY KEY ("order_id")
                );
                """)
        #expect(
            table.conflictClause(.postgresql).hasPrefix(
                #" ON CONFLICT ("order_id") DO UPDATE SET "placed_at" = excluded."placed_at", "#))
        let (named, _) = try Self.table("We \"ird\"")
        #expect(named.createStatement(.sqlite).hasPrefix(#"CREATE TABLE IF NOT EXISTS "We ""ird""" ("#))
    }

    static func encode(_ payload: String, _ dialect: SQLDialect) throws -> (RecordOutcome, [UInt8]) {
        let (table, mapper) = try Self.table()
        let encoding = mapper.encoding(SQLRowEncoder(table: table, dialect: dialect))
        var out: [UInt8] = []
        let outcome = encoding.map(Array(payload.utf8), into: &out)
        return (outcome, out)
    }

    @Test("PostgreSQL rows are COPY text: tabs between columns, \\N for null, escapes, JSON text as written")
    func copyRows() throws {
        let (outcome, out) = try Self.encode(
            #"{"id": 7, "placed_at": "2024-02-29T23:59:59.123456Z", "lines": [{"amount": 1.10, "currency": "E\tU\\R"}], "paid": true, "note": "a\nb\\c", "weight": -0.0, "extra": {"n": 123456789012345678901234567890}}"#,
            .postgresql)
        #expect(outcome.kind == .clean, "\(outcome.issues)")
        #expect(
            String(decoding: out, as: UTF8.self)
                == "7\t2024-02-29T23:59:59.123456Z\t\\N\t[{\"amount\":1.10,\"currency\":\"E\\\\tU\\\\\\\\R\"}]\t{\"n\":123456789012345678901234567890}\tt\ta\\nb\\\\c\t-0.0"
        )
    }

    static let prices = """
        {
          "@models": {"Price": {"id": "Int", "amount": "Decimal"}},
          "$Price": {"@class": "Price", "@identity": "id", "id": "id", "amount": "amount"}
        }
        """

    /// The row of `{"id": 1, "amount": <amount>}` in a table of one decimal column.
    static func priceRow(_ amount: String, _ dialect: SQLDialect) throws -> (RecordOutcome, [UInt8]) {
        let catalog = try load(prices)
        let mapper = Mapper(catalog: catalog)
        let compiled = try mapper.context("$Price")
        let records = RecordMapper(mapper: mapper, context: compiled)
        let table = try SQLTable.of(compiled, in: catalog, named: nil)
        var out: [UInt8] = []
        let outcome = records.encoding(SQLRowEncoder(table: table, dialect: dialect))
            .map(Array(#"{"id": 1, "amount": \#(amount)}"#.utf8), into: &out)
        return (outcome, out)
    }

    @Test(
        "a decimal column receives the digits and scale as written: SQLite TEXT, PostgreSQL numeric",
        arguments: [
            ("1.10", "1.10"), ("0.000", "0.000"), ("-0.500", "-0.500"), ("100", "100"), ("1.0E+2", "100"),
            ("123456789012345678.90", "123456789012345678.90"), (#""1.10""#, "1.10"), ("-0.0", "-0.0"),
        ])
    func decimalColumns(amount: String, written: String) throws {
        let (sqlite, cells) = try Self.priceRow(amount, .sqlite)
        #expect(sqlite.kind == .clean, "\(sqlite.issues)")
        var expected: [UInt8] = [1] + withUnsafeBytes(of: Int64(1).littleEndian, Array.init)
        expected += [3] + withUnsafeBytes(of: UInt32(written.utf8.count).littleEndian, Array.init) + Array(written.utf8)
        #expect(Array(cells.dropFirst(4)) == expected)
        let (postgres, copy) = try Self.priceRow(amount, .postgresql)
        guard written != "-0.0" else {
            // numeric has no negative zero.
            #expect(postgres.kind == .withErrors)
            #expect(
                postgres.issues.map(\.message).first?.contains(
                    "$.amount: expected a decimal numeric keeps (it reads -0.0 back as 0.0), found -0.0") == true,
                "\(postgres.issues)")
            return
        }
        #expect(postgres.kind == .clean, "\(postgres.issues)")
        #expect(String(decoding: copy, as: UTF8.self) == "1\t\(written)")
    }

    @Test("SQLite rows are cells: a length, then a tag and a value a column")
    func sqliteCells() throws {
        let (outcome, out) = try Self.encode(#"{"id": 7, "lines": [], "paid": false, "note": "é"}"#, .sqlite)
        #expect(outcome.kind == .clean, "\(outcome.issues)")
        var expected: [UInt8] = []
        expected += [1] + withUnsafeBytes(of: Int64(7).littleEndian, Array.init)  // order_id
        expected += [0, 0]  // placed_at, total
        expected += [3, 2, 0, 0, 0] + Array("[]".utf8)  // lines
        expected += [0]  // extra
        expected += [1] + withUnsafeBytes(of: Int64(0).littleEndian, Array.init)  // paid
        expected += [3, 2, 0, 0, 0] + Array("é".utf8)  // note
        expected += [0]  // weight
        #expect(Array(out.dropFirst(4)) == expected)
        #expect(out.prefix(4).elementsEqual(withUnsafeBytes(of: UInt32(expected.count).littleEndian, Array.init)))
    }

    @Test("a value the column would change fails the record, naming the property and why")
    func refusals() throws {
        let (sqlite, _) = try Self.encode(#"{"id": 7, "lines": [], "paid": true, "weight": -0.0}"#, .sqlite)
        #expect(sqlite.kind == .withErrors)
        #expect(
            sqlite.issues.first?.message.contains(
                "$.weight: expected a number SQLite's REAL keeps (it reads -0.0 back as 0.0), found -0.0") == true,
            "\(sqlite.issues)")
        let (text, _) = try Self.encode(#"{"id": 7, "lines": [], "paid": true, "note": "a\u0000"}"#, .postgresql)
        #expect(text.issues.first?.message.contains("$.note: PostgreSQL text cannot hold the character U+0000") == true)
        let (json, _) = try Self.encode(#"{"id": 7, "lines": [], "paid": true, "extra": ["\u0000"]}"#, .postgresql)
        #expect(
            json.issues.first?.message.contains("$.extra: PostgreSQL jsonb cannot hold the character U+0000") == true)
        // An escaped backslash before `u0000` is text, which jsonb holds.
        let (escaped, _) = try Self.encode(#"{"id": 7, "lines": [], "paid": true, "extra": ["\\u0000"]}"#, .postgresql)
        #expect(escaped.kind == .clean, "\(escaped.issues)")
    }

    @Test("a context's @identity names scalar properties of its model, or says what is wrong where")
    func identityDiagnostics() {
        let unknown = failure(
            """
            {"@models": {"A": {"id": "Int", "b": "[Int]"}},
             "$A": {"@class": "A", "@identity": "idd", "id": "id", "b": "b"}}
            """)
        #expect(unknown.contains("main.mappings:2:37"), "\(unknown)")
        #expect(unknown.contains("\"@identity\" names \"idd\", but A has no such property"), "\(unknown)")
        #expect(unknown.contains("did you mean \"id\""), "\(unknown)")
        let collection = failure(
            """
            {"@models": {"A": {"id": "Int", "b": "[Int]"}},
             "$A": {"@class": "A", "@identity": ["id", "b"], "id": "id", "b": "b"}}
            """)
        #expect(collection.contains("\"@identity\" compares values, but A.b is [Int]"), "\(collection)")
        let modelless = failure(#"{"$A": {"@identity": "id", "id": "id"}}"#)
        #expect(modelless.contains("this context builds none"), "\(modelless)")
    }

    @Test("a context inherits its parent's @identity")
    func inheritedIdentity() throws {
        let catalog = try load(
            """
            {"@models": {"A": {"id": "Int", "n": "String"}},
             "$Base": {"@class": "A", "id": "id", "n": "n"},
             "$Keyed": {"@class": "A", "@inherits": "$Base", "@identity": "id"}}
            """)
        let mapper = Mapper(catalog: catalog)
        #expect(try SQLTable.of(mapper.context("$Keyed"), in: catalog, named: nil).key == [0])
        #expect(try SQLTable.of(mapper.context("$Base"), in: catalog, named: nil).key.isEmpty)
    }
}
