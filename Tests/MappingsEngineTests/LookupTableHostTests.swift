import Foundation
import MappingsTestSupport
import Testing

@testable import Mappings
@testable import MappingsCompiler
@testable import MappingsJSON

/// Lookup tables a Swift host gives (`Definitions.table`): rows from memory or a file, over a
/// `@tables` declaration of that name or on their own.
@Suite("lookup tables: given by a host")
struct LookupTableHostTests {
    static let context = #""$C": { "name": { "@keyPath": "cc", "@lookup": "countries.name", "@optional": true } }"#

    static func map(_ payload: String, _ catalog: Catalog) throws -> String {
        let result = try Mapper(catalog: catalog).object(from: try JSONParser.parse(payload), context: "$C")
        return JSONWriter.string(result.value) + result.issues.map { " " + $0.message }.joined()
    }

    @Test("rows from memory: a table no file declares, with its key; the same rows over a declaration's file")
    func rows() throws {
        var definitions = Definitions()
        definitions.table(
            "countries", rows: [["code": "FR", "name": "France"], ["code": "DE", "name": "Germany"]], key: ["code"])
        let alone = try Catalog.load(
            ["main.mappings"], from: .memory(["main.mappings": "{ \(Self.context) }"]), definitions: definitions)
        #expect(try Self.map(#"{"cc": "DE"}"#, alone) == #"{"name":"Germany"}"#)
        #expect(try Self.map(#"{"cc": "ES"}"#, alone) == "{}")
        #expect(alone.tables["countries"]?.file == "<host>")
        // Over a declaration: its key and columns hold, its file is not read (there is none).
        var over = Definitions()
        over.table("countries", rows: [["code": "FR", "name": "France", "population": "67000000"]])
        let declared = try Catalog.load(
            ["main.mappings"],
            from: .memory([
                "main.mappings": """
                { "@tables": { "countries": { "file": "absent.csv", "key": "code", "columns": { "population": "Int" } } },
                  \(Self.context) }
                """
            ]), definitions: over)
        #expect(try Self.map(#"{"cc": "FR"}"#, declared) == #"{"name":"France"}"#)
        #expect(declared.tables["countries"]?.cell(row: 0, column: 2) == .integer(67_000_000))
    }

    @Test("a file the host names, relative to the current directory, with declared column types")
    func file() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("host-\(UUID().uuidString).csv").path
        try Data("code,name,population\nFR,France,67000000\n".utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        var definitions = Definitions()
        definitions.table("countries", file: path, key: ["code"], columns: ["population": "Decimal"])
        let catalog = try Catalog.load(
            ["main.mappings"], from: .memory(["main.mappings": "{ \(Self.context) }"]), definitions: definitions)
        #expect(try Self.map(#"{"cc": "FR"}"#, catalog) == #"{"name":"France"}"#)
        #expect(catalog.tables["countries"]?.file == path)
    }

    @Test("problems are load errors at the host's call: no key, a row that is no object, a key written twice")
    func problems() {
        func failure(_ body: (inout Definitions) -> Void) -> String {
            var definitions = Definitions()
            body(&definitions)
            do {
                _ = try Catalog.load(
                    ["main.mappings"], from: .memory(["main.mappings": "{ \(Self.context) }"]),
                    definitions: definitions)
                return "loaded"
            } catch {
                return error.description
            }
        }
        let line = #line + 1
        let noKey = failure { $0.table("countries", rows: [["code": "FR"]]) }
        #expect(
            noKey.hasPrefix(
                """
                error: the table countries needs a key: no .mappings file declares it in "@tables"
                  --> MappingsEngineTests/LookupTableHostTests.swift:\(line):9
                """), "\(noKey)")
        let notObject = failure { $0.table("countries", rows: [["code": "FR"], "DE"], key: ["code"]) }
        #expect(notObject.hasPrefix("error: row 2 of the table countries is string, not an object"), "\(notObject)")
        let twice = failure { $0.table("countries", rows: [["code": "FR"], ["code": "FR"]], key: ["code"]) }
        #expect(
            twice.hasPrefix(#"error: the key "FR" is written twice in the table countries: rows 1 and 2"#), "\(twice)")
        let type = failure { $0.table("countries", rows: [], key: ["code"], columns: ["n": "[Int]"]) }
        #expect(type.hasPrefix(#"error: the column "n" of the table countries takes a scalar type"#), "\(type)")
    }
}
