package import MappingsJSON
import Synchronization

/// An entry's `@lookup`, resolved when the catalog compiled: the table, and the column whose
/// cell the entry takes (`nil`: the whole row, as a JSON object of its columns).
package struct TableLookup: Sendable {
    package let table: LookupTable
    /// The column's index in `table.columns`; `nil` for the row.
    package let column: Int?
    /// `@lookup` as written: `countries` or `countries.name`.
    package let text: String

    package init(table: LookupTable, column: Int?, text: String) {
        self.table = table
        self.column = column
        self.text = text
    }

    /// Tables that stand in for the tables of their names while a context's test that names
    /// them runs (its `"tables"`: `withFixtures(_:_:)`).
    @TaskLocal private static var fixtures: [String: LookupTable] = [:]
    /// How many such tests run now: lookups read `fixtures` only then (a relaxed load otherwise).
    private static let fixturesInUse = Atomic<Int>(0)

    /// Runs `body` with `tables` in place of the tables of their names, for the lookups this
    /// thread (or task) makes: what a test's fixture tables are.
    package static func withFixtures<R>(_ tables: [String: LookupTable], _ body: () -> R) -> R {
        guard !tables.isEmpty else { return body() }
        fixturesInUse.add(1, ordering: .relaxed)
        defer { fixturesInUse.subtract(1, ordering: .relaxed) }
        return $fixtures.withValue(tables, operation: body)
    }

    /// The tables that stand in for the tables of their names for this thread (or task) now:
    /// empty but while a test that gives tables runs (`withFixtures(_:_:)`); what a script's
    /// `tables` reads then too.
    package static var fixtureTables: [String: LookupTable] {
        fixturesInUse.load(ordering: .relaxed) > 0 ? fixtures : [:]
    }

    /// Whether a test's fixture tables stand in for tables now (on any thread): a reader of
    /// `table`'s bytes then leaves the lookup to `value(for:)`, which reads `current`.
    package static var fixturesInPlace: Bool { fixturesInUse.load(ordering: .relaxed) > 0 }

    /// The table this lookup reads now: its own, or the fixture a running test gives for its name.
    package var current: LookupTable {
        guard Self.fixturesInUse.load(ordering: .relaxed) > 0, let fixture = Self.fixtures[table.name] else {
            return table
        }
        return fixture
    }

    /// What the lookup of `key` gives: the cell or the row, `.noRow` when no row has that key,
    /// or `.invalidKey` when the value cannot be a key of the table.
    package func value(for key: JSONValue) -> Outcome {
        let table = current
        switch table.row(for: key) {
        case .failure(let failure): return .invalidKey(failure.message)
        case .success(nil): return .noRow
        case .success(let row?):
            guard let column else { return .found(table.object(ofRow: row), row: row) }
            return .found(table.cell(row: row, column: column), row: row)
        }
    }

    package enum Outcome {
        /// The cell (`null` when empty) or the row's object, and the row's index.
        case found(JSONValue, row: Int)
        case noRow
        case invalidKey(String)
    }

    /// `no row of countries has the key "XX"`, for reports.
    package func noRowMessage(for key: JSONValue) -> String {
        "no row of the table \(table.name) has the key \(JSONWriter.safeText(key))"
    }
}
