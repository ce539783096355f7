import Foundation
import MappingsTestSupport
import Testing

@testable import Mappings
@testable import MappingsCompiler
@testable import MappingsJSON

/// What lookup tables take in memory: a compact store (about the file's size), counted against
/// the catalog's cap, and a table past the cap is an error naming it, its file and its size.
@Suite("lookup tables: memory")
struct LookupTableMemoryTests {
    /// A CSV table of `rows` rows shaped like a country table: a code, a name, a number, a word.
    static func csv(rows: Int) -> String {
        var text = "code,name,population,continent\n"
        let continents = ["Europe", "Asia", "Africa", "Oceania", "Americas"]
        for row in 0..<rows {
            text += "K\(1_000_000 + row),Name \(row),\(row * 7919 % 100_000_000),\(continents[row % 5])\n"
        }
        return text
    }

    static let mappings = """
        { "@tables": { "big": { "file": "big.csv", "key": "code" }, "small": { "file": "small.csv", "key": "code" } },
          "$A": { "name": { "@keyPath": "c", "@lookup": "big.name" } } }
        """

    static func files(rows: Int) -> [String: String] {
        ["main.mappings": mappings, "big.csv": csv(rows: rows), "small.csv": csv(rows: 3)]
    }

    static func load(_ files: [String: String], cap: Int) throws(MappingsError) -> Catalog {
        try Catalog.load(["main.mappings"], from: .memory(files), maxTableMemory: cap)
    }

    @Test("100,000 rows take less than twice their file's bytes, and every key finds its row")
    func compact() throws {
        let files = Self.files(rows: 100_000)
        let table = try #require(try Self.load(files, cap: 1 << 30).tables["big"])
        let size = files["big.csv", default: ""].utf8.count
        #expect(table.memory < 2 * size, "\(table.memory) bytes for a file of \(size)")
        #expect(table.rowCount == 100_000)
        for row in stride(from: 0, to: 100_000, by: 997) {
            #expect(table.row(forKeyText: "K\(1_000_000 + row)") == row)
            #expect(table.cell(row: row, column: 1) == .string("Name \(row)"))
            #expect(table.cell(row: row, column: 2) == .integer(Int64(row * 7919 % 100_000_000)))
        }
        #expect(table.row(forKeyText: "K999999") == nil)
        #expect(table.row(forKeyText: "K1000000\u{1F}") == nil)
    }

    @Test("a table past the cap is an error naming it, its file, its rows and its size, and the tables before it")
    func cap() throws {
        let files = Self.files(rows: 2000)
        let catalog = try Self.load(files, cap: 1 << 30)
        let big = try #require(catalog.tables["big"]).memory
        let small = try #require(catalog.tables["small"]).memory
        #expect(try Self.load(files, cap: big + small).tables.count == 2)
        do {
            _ = try Self.load(files, cap: big + small - 1)
            Issue.record("the load succeeded past the cap")
        } catch {
            let (total, bigText) = (LookupTable.memoryText(big + small - 1), LookupTable.memoryText(big))
            // The tables load in the order they are declared: `small` is the one past the cap.
            #expect(
                error.description == """
                    error: the table small (small.csv, 3 rows) takes \(LookupTable.memoryText(small)) in memory: past the tables' cap of \(total), with the \(bigText) of the tables before it (--max-table-memory)
                     --> main.mappings:1:61
                      |
                    1 | { "@tables": { "big": { "file": "big.csv", "key": "code" }, "small": { "file": "small.csv", "key": "code" } },
                      |                                                             ^^^^^^^
                      = help: raise the cap (--max-table-memory MIB; a host: Catalog.load(maxTableMemory:)), or give the table fewer rows
                    """)
        }
    }

    @Test("sizes in words", arguments: [(300, "300 bytes"), (1536, "1.5 KiB"), (61 << 20 | 1 << 19, "61.5 MiB")])
    func sizes(bytes: Int, text: String) {
        #expect(LookupTable.memoryText(bytes) == text)
    }
}
