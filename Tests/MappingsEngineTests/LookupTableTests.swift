import Foundation
import MappingsTestSupport
import Testing

@testable import Mappings
@testable import MappingsCompiler
@testable import MappingsEngine
@testable import MappingsJSON
@testable import MappingsModel

/// `@tables` and `@lookup`: tables read from CSV and JSON lines, checked with their files' lines,
/// and entries that read a row or a cell, the same on the fast plan and the general engine.
@Suite("lookup tables: @tables and @lookup")
struct LookupTableTests {
    static let countries =
        "\u{FEFF}code,name,population,eu\r\nFR,France,67000000,true\r\nDE,\"Germany, \"\"Federal\"\"\",83000000,true\r\nXX,\"Two\nlines\",,false\r\n"

    static func files(_ contexts: String, tables: String? = nil, extra: [String: String] = [:]) -> [String: String] {
        [
            "dir/main.mappings": """
            { "@tables": \(tables ?? #"{ "countries": { "file": "tables/countries.csv", "key": "code" } }"#),
              "@models": { "U": { "name": "String", "country": "String", "population": "Int?", "eu": "Bool?",
                                  "row": "JSON?", "place": "P?" },
                           "P": { "code": "String", "name": "String", "population": "Int?" } },
              \(contexts) }
            """,
            "dir/tables/countries.csv": countries,
        ].merging(extra) { _, new in new }
    }

    static let userContext = """
        "$U": { "@class": "U", "name": "name",
                "country": { "@keyPath": "cc", "@lookup": "countries.name" },
                "population": { "@keyPath": "cc", "@lookup": "countries.population", "@optional": true },
                "eu": { "@keyPath": "cc", "@lookup": "countries.eu", "@defaultValue": false },
                "row": { "@keyPath": "cc", "@lookup": "countries", "@optional": true },
                "place": { "@keyPath": "cc", "@lookup": "countries", "@optional": true } }
        """

    static func catalog(_ contexts: String = userContext) throws -> Catalog {
        try load(files(contexts), roots: ["dir/main.mappings"])
    }

    @Test("a CSV table: a BOM, CR LF, quotes, doubled quotes and a line feed in a field; types inferred per column")
    func csvEdges() throws {
        let table = try #require(try Self.catalog().tables["countries"])
        #expect(table.columns == ["code", "name", "population", "eu"])
        #expect(table.file == "dir/tables/countries.csv")
        #expect((0..<table.rowCount).map(table.line(ofRow:)) == [2, 3, 4])
        #expect(
            table.cells(ofRow: 1) == [
                .string("DE"), .string(#"Germany, "Federal""#), .integer(83_000_000), .bool(true),
            ])
        #expect(table.cells(ofRow: 2) == [.string("XX"), .string("Two\nlines"), .null, .bool(false)])
    }

    @Test("an entry reads a cell or the row (as JSON or a model); a missing row is a missing value")
    func entries() throws {
        let mapper = Mapper(catalog: try Self.catalog())
        let found = try mapper.object(fromJSON: Array(#"{"name":"a","cc":"DE"}"#.utf8), using: mapper.context("$U"))
        #expect(found.issues.isEmpty)
        #expect(
            found.value.jsonText
                == #"{"name":"a","country":"Germany, \"Federal\"","population":83000000,"eu":true,"row":{"code":"DE","name":"Germany, \"Federal\"","population":83000000,"eu":true},"place":{"code":"DE","name":"Germany, \"Federal\"","population":83000000}}"#
        )
        let missing = try mapper.object(fromJSON: Array(#"{"name":"a","cc":"ZZ"}"#.utf8), using: mapper.context("$U"))
        #expect(
            missing.issues.map(\.description) == [
                #"$.cc: missing required value for U.country: no row of the table countries has the key "ZZ" (@lookup countries.name) (dir/main.mappings:6)"#
            ])
        #expect(missing.value.jsonText.contains(#""eu":false"#), "the default of an entry whose key has no row")
        let empty = try mapper.object(fromJSON: Array(#"{"name":"a","cc":"XX"}"#.utf8), using: mapper.context("$U"))
        #expect(empty.issues.isEmpty, "an empty cell of an optional entry: nothing set")
        #expect(empty.value.jsonText.contains(#""population":null"#))
    }

    @Test("a number key finds the row of its digits; an object is no key of a one-column key")
    func keyKinds() throws {
        let catalog = try load(
            [
                "main.mappings": """
                { "@tables": { "codes": { "file": "codes.jsonl", "key": "id" } },
                  "$A": { "label": { "@keyPath": "id", "@lookup": "codes.label" } } }
                """,
                "codes.jsonl":
                    "{\"id\": 7, \"label\": \"seven\"}\n\n{\"id\": \"x\", \"label\": \"ex\", \"tags\": [1]}\n",
            ])
        let mapper = Mapper(catalog: catalog)
        for (payload, output) in [(#"{"id":7}"#, #"{"label":"seven"}"#), (#"{"id":"7"}"#, #"{"label":"seven"}"#)] {
            let result = try mapper.object(fromJSON: Array(payload.utf8), using: mapper.context("$A"))
            #expect(result.issues.isEmpty)
            #expect(result.value.jsonText == output)
        }
        let object = try mapper.object(fromJSON: Array(#"{"id":{"a":1}}"#.utf8), using: mapper.context("$A"))
        #expect(
            object.issues.map(\.message) == [
                "@lookup codes.label: a key is a string, a number or a boolean, not object"
            ])
        #expect(catalog.tables["codes"].map { table in (0..<table.rowCount).map(table.line(ofRow:)) } == [1, 3])
        #expect(catalog.tables["codes"]?.columns == ["id", "label", "tags"])
    }

    @Test("a composite key: an array in the key's order, or an object of the key's columns (a keyed selection)")
    func compositeKeys() throws {
        let catalog = try load(
            [
                "main.mappings": """
                { "@tables": { "rates": { "file": "rates.csv", "key": ["from", "to"], "columns": { "rate": "Decimal" } } },
                  "$A": { "byArray": { "@keyPath": "pair", "@lookup": "rates.rate" },
                          "byObject": { "@keyPath": { "from": "f", "to": "t" }, "@lookup": "rates.rate", "@type": "Decimal" } } }
                """,
                "rates.csv": "from,to,rate\nEUR,USD,1.10\nUSD,EUR,0.91\nEUR,GBP,0.85\n",
            ])
        let mapper = Mapper(catalog: catalog)
        let result = try mapper.object(
            fromJSON: Array(#"{"pair":["EUR","USD"],"f":"USD","t":"EUR"}"#.utf8), using: mapper.context("$A"))
        #expect(result.issues.isEmpty, "\(result.issues)")
        #expect(result.value.jsonText == #"{"byArray":1.10,"byObject":0.91}"#)
    }

    @Test("check: a key written twice names both lines; a missing key column suggests the nearest")
    func tableDiagnostics() {
        let duplicate = failure(
            Self.files(
                Self.userContext, extra: ["dir/tables/countries.csv": "code,name\nFR,France\nDE,Germany\nFR,Again\n"]),
            roots: ["dir/main.mappings"])
        #expect(
            duplicate.hasPrefix(
                """
                error: the key "FR" is written twice in the table countries: lines 2 and 4
                 --> dir/tables/countries.csv:4:1
                  |
                4 | FR,Again
                  | ^
                  = note: first written here
                 --> dir/tables/countries.csv:2:1
                  |
                2 | FR,France
                  | ^
                """), "\(duplicate)")
        let key = failure(
            Self.files(
                #""$A": { "x": "x" }"#, tables: #"{ "countries": { "file": "tables/countries.csv", "key": "cod" } }"#),
            roots: ["dir/main.mappings"])
        #expect(key.contains(#"error: the table countries has no key column "cod""#), "\(key)")
        #expect(key.contains(#" --> dir/main.mappings:1:70"#), "\(key)")
        #expect(key.contains(#"= help: did you mean "code"?"#))
        let file = failure(
            Self.files(#""$A": { "x": "x" }"#, tables: #"{ "countries": { "file": "countries.csv", "key": "code" } }"#),
            roots: ["dir/main.mappings"])
        #expect(
            file.contains(#"error: cannot read the table file "dir/countries.csv" of the table countries"#), "\(file)")
        #expect(file.contains("= help: the path is relative to the .mappings file that declares the table"))
    }

    @Test(
        "check: CSV that RFC 4180 does not allow, ragged rows and cells of a declared type, each at its line and column",
        arguments: [
            (
                "code,name\nFR,\"France\nDE,x\n",
                "error: the table t is not CSV: a quoted field that never closes (a quote is missing)\n --> t.csv:2:4"
            ),
            ("code,name\nFR,Fr\"ance\n", "error: the table t is not CSV: a quote inside an unquoted field"),
            (
                "code,name\nFR,\"France\"x\n",
                "error: the table t is not CSV: text after a closing quote (a field is quoted whole)\n --> t.csv:2:12"
            ),
            (
                "code,name\r\nFR,France,x\r\n",
                "error: line 2 of the table t has 3 fields, its header 2\n --> t.csv:2:4\n  |\n2 | FR,France,x"
            ),
            (
                "code,name,n\nFR,France,many\n",
                "error: the column \"n\" of the table t, line 2: expected Int, found string \"many\""
            ),
            ("code,name,n\n,France,1\n", "error: the row of t on line 2 has no key (\"code\" is empty)"),
        ])
    func csvErrors(csv: String, message: String) {
        let rendered = failure([
            "main.mappings": #"{ "@tables": { "t": { "file": "t.csv", "key": "code", "columns": { "n": "Int" } } } }"#,
            "t.csv": csv,
        ])
        #expect(rendered.hasPrefix(message), "\(rendered)")
    }

    @Test("check: a JSON lines row that writes a key twice")
    func repeatedKeys() {
        let lines = failure([
            "main.mappings": #"{ "@tables": { "t": { "file": "t.jsonl", "key": "id" } } }"#,
            "t.jsonl": #"{"id": "a", "v": 1, "v": 2}"# + "\n",
        ])
        #expect(lines.hasPrefix(#"error: line 1 of the table t writes the key "v" twice"#), "\(lines)")
    }

    @Test("check: @lookup names a declared table and one of its columns, with did-you-mean")
    func lookupDiagnostics() {
        let table = failure(
            Self.files(#""$A": { "x": { "@keyPath": "x", "@lookup": "countrys.name" } }"#), roots: ["dir/main.mappings"]
        )
        #expect(
            table.contains(#"error: "@lookup" names the table "countrys", which "@tables" does not declare"#),
            "\(table)")
        #expect(table.contains(#"= help: did you mean "countries"?"#))
        let column = failure(
            Self.files(#""$A": { "x": { "@keyPath": "x", "@lookup": "countries.nam" } }"#), roots: ["dir/main.mappings"]
        )
        #expect(column.contains(#"error: the table countries has no column "nam""#), "\(column)")
        #expect(column.contains(#"= help: did you mean "name"?"#))
    }

    @Test("the fast plan looks rows up with the general engine's output, and gives it the keys with no row")
    func planAgreesWithGeneralEngine() throws {
        let catalog = try Self.catalog(
            """
            "$F": { "@class": "U", "name": "name",
                    "country": { "@keyPath": "cc", "@lookup": "countries.name" },
                    "population": { "@keyPath": "cc", "@lookup": "countries.population", "@optional": true },
                    "eu": { "@keyPath": "cc", "@lookup": "countries.eu", "@defaultValue": false } }
            """)
        let mapper = Mapper(catalog: catalog)
        let context = try mapper.context("$F")
        guard case .success(let plan) = mapper.fastPlan(for: context) else {
            Issue.record("$F has no plan")
            return
        }
        var tally = FastPlanTests.Tally()
        for code in ["FR", "DE", "XX", "ZZ", "7", "true"] {
            FastPlanTests.compare(Array(#"{"name":"n","cc":"\#(code)"}"#.utf8), context, plan, mapper, &tally)
        }
        FastPlanTests.compare(Array(#"{"name":"n","cc":null}"#.utf8), context, plan, mapper, &tally)
        FastPlanTests.compare(Array(#"{"name":"n","cc":["FR"]}"#.utf8), context, plan, mapper, &tally)
        #expect(tally.fast == 3, "FR and DE, and XX, whose empty cell is an optional entry's")
        #expect(
            tally.general == 5,
            "a required entry's key with no row, no key, a key of another kind: the general engine's")
    }

    @Test("explain shows the lookup and the row it found")
    func explanation() throws {
        let mapper = Mapper(catalog: try Self.catalog())
        let (_, explanations) = mapper.explain(
            .object(JSONObject([("name", "a"), ("cc", "FR")])), using: try mapper.context("$U"))
        #expect(
            explanations.map(\.description).contains(
                #"U.country <- $.cc via @lookup countries.name (the row of "FR", dir/tables/countries.csv:2) = "France"  [dir/main.mappings:6]"#
            ), "\(explanations.map(\.description))")
        let (_, empty) = mapper.explain(
            .object(JSONObject([("name", "a"), ("cc", "XX")])), using: try mapper.context("$U"))
        #expect(
            empty.map(\.description).contains(
                #"U.population skipped: $.cc is "XX": its row in the table countries (dir/tables/countries.csv:4) has no population, optional  [dir/main.mappings:7]"#
            ), "\(empty.map(\.description))")
        let (_, none) = mapper.explain(
            .object(JSONObject([("name", "a"), ("cc", "ZZ")])), using: try mapper.context("$U"))
        #expect(
            none.map(\.description).contains(
                #"U.eu = default ($.cc is "ZZ", a key no row of the table countries has)  [dir/main.mappings:8]"#
            ), "\(none.map(\.description))")
    }

    @Test("a transformer's answer is the key, and a @valueMap translates the cell: the same on both engines")
    func transformerAndValueMap() throws {
        let catalog = try load(
            [
                "main.mappings": """
                { "@tables": { "t": { "file": "t.csv", "key": "k" } },
                  "@models": { "M": { "a": "String", "b": "String" } },
                  "$M": { "@class": "M",
                          "a": { "@keyPath": "k", "@transformClass": "T", "@transformSelector": "f", "@lookup": "t.v" },
                          "b": { "@keyPath": "k", "@lookup": "t.v", "@valueMap": { "one": "ONE" } } } }
                """,
                "t.csv": "k,v\n1,one\n2,two\n",
            ])
        let mapper = Mapper(catalog: catalog)
        let context = try mapper.context("$M")
        let result = try mapper.object(fromJSON: Array(#"{"k":1}"#.utf8), using: context)
        #expect(result.issues.isEmpty)
        #expect(result.value.jsonText == #"{"a":"one","b":"ONE"}"#)
        guard case .success(let plan) = mapper.fastPlan(for: context) else {
            Issue.record("$M has no plan")
            return
        }
        var tally = FastPlanTests.Tally()
        for key in ["1", "2", "\"2\"", "3"] {
            FastPlanTests.compare(Array(#"{"k":\#(key)}"#.utf8), context, plan, mapper, &tally)
        }
        #expect(tally.fast == 3)
        #expect(tally.general == 1)
    }
}
