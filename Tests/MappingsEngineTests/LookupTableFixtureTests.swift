import Foundation
import MappingsTestSupport
import Testing

@testable import Mappings
@testable import MappingsCompiler
@testable import MappingsJSON

/// `@tests` that give tables (`"tables"`): fixtures beside the tests, or rows, in place of the
/// tables of their names while the test maps.
@Suite("lookup tables: a test's fixture tables")
struct LookupTableFixtureTests {
    static func files(tests: String, fixture: String = "code,name,n\nFR,Fixture France,3\n") -> [String: String] {
        [
            "dir/main.mappings": """
            { "@tables": { "countries": { "file": "tables/countries.csv", "key": "code", "columns": { "n": "Int" } } },
              "$C": { "name": { "@keyPath": "cc", "@lookup": "countries.name" },
                      "@tests": \(tests) } }
            """,
            "dir/tables/countries.csv": "code,name,n\nFR,France,1\n",
            "dir/fixtures/countries.csv": fixture,
        ]
    }

    static func results(_ files: [String: String]) throws -> [String] {
        let catalog = try Catalog.load(["dir/main.mappings"], from: .memory(files))
        return ContextTestRunner.run(catalog).map { ($0.passed ? "passed" : "failed") + $0.failures.joined() }
    }

    @Test("a fixture file beside the tests, rows, and a test without tables that reads the table")
    func fixtures() throws {
        let tests = """
            [ { "tables": { "countries": "fixtures/countries.csv" },
                "input": { "cc": "FR" }, "output": { "name": "Fixture France" } },
              { "tables": { "countries": [ { "code": "DE", "name": "Row Germany", "n": "2" } ] },
                "input": { "cc": "DE" }, "output": { "name": "Row Germany" } },
              { "tables": { "countries": [ { "code": "DE", "name": "Row Germany", "n": 2 } ] },
                "input": { "cc": "FR" }, "issues": [ { "kind": "missing required value", "message": "no row of the table countries has the key \\"FR\\"" } ] },
              { "input": { "cc": "FR" }, "output": { "name": "France" } } ]
            """
        #expect(try Self.results(Self.files(tests: tests)) == ["passed", "passed", "passed", "passed"])
    }

    @Test(
        "a table no declaration names, a fixture that is not there, a fixture cell that does not convert: load errors")
    func problems() {
        let unknown = failure(
            Self.files(tests: #"[ { "tables": { "countrys": [] }, "input": {}, "output": {} } ]"#),
            roots: ["dir/main.mappings"])
        #expect(
            unknown.hasPrefix(#"error: the test gives the table "countrys", which "@tables" does not declare"#),
            "\(unknown)")
        #expect(unknown.contains(#"= help: did you mean "countries"?"#), "\(unknown)")
        let missing = failure(
            Self.files(tests: #"[ { "tables": { "countries": "fixtures/none.csv" }, "input": {}, "output": {} } ]"#),
            roots: ["dir/main.mappings"])
        #expect(
            missing.hasPrefix(
                #"error: cannot read the table file "dir/fixtures/none.csv" of the table countries: "#), "\(missing)")
        #expect(missing.contains(" --> dir/main.mappings:3:50"), "\(missing)")
        let twice = failure(
            Self.files(
                tests: #"[ { "tables": { "countries": "fixtures/countries.csv" }, "input": {}, "output": {} } ]"#,
                fixture: "code,name,n\nFR,a,1\nFR,b,x\n"),
            roots: ["dir/main.mappings"])
        #expect(
            twice.contains(#"error: the column "n" of the table countries, line 3: expected Int, found string "x""#),
            "\(twice)")
        #expect(twice.contains(" --> dir/fixtures/countries.csv:3:6"), "\(twice)")
    }
}
