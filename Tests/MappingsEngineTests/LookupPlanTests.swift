import Foundation
import MappingsTestSupport
import Testing

@testable import Mappings
@testable import MappingsCompiler
@testable import MappingsEngine
@testable import MappingsJSON

/// `@lookup` on the fast plan, by the record's bytes: every kind of key (escaped, numeric,
/// boolean, with no row) and cell (escaped text, whole numbers, booleans, empty), required,
/// optional and defaulted, written as the general engine writes them, as JSON and as tags.
@Suite("lookup tables: the fast plan's lookups by bytes")
struct LookupPlanTests {
    static let source = """
        { "@tables": { "t": { "file": "t.csv", "key": "k", "columns": { "k": "String" } },
                       "pairs": { "file": "pairs.csv", "key": ["a", "b"] } },
          "@models": { "L": { "s": "String", "i": "Int?", "b": "Bool", "e": "String?", "text": "String?",
                              "pair": "String?" } },
          "$L": { "@class": "L",
                  "s": { "@keyPath": "k", "@lookup": "t.s" },
                  "i": { "@keyPath": "k", "@lookup": "t.i", "@optional": true },
                  "b": { "@keyPath": "k", "@lookup": "t.b", "@defaultValue": false },
                  "e": { "@keyPath": "k", "@lookup": "t.e", "@optional": true },
                  "text": { "@keyPath": "k", "@lookup": "t.i", "@optional": true },
                  "pair": { "@keyPath": "p", "@lookup": "pairs.v", "@optional": true } } }
        """

    static let files = [
        "main.mappings": source,
        "t.csv": """
        k,s,i,b,e
        DE,"Germany, ""Federal""\\",83,true,
        7,"seven
        lines\ttabbed",7,false,x
        é,accent 日本,-5,true,y
        007,zeros,0,false,z
        true,yes,1,true,t
        -3,minus,-3,true,n
        big,big,123456789012345678,true,

        """,
        "pairs.csv": "a,b,v\n1,x,one-x\n",
    ]

    static let keys = [
        #""DE""#, #""D\u0045""#, "7", #""7""#, "7.0", "-0", "0", #""-3""#, "-3", #""007""#, "true", #""true""#,
        "false", #""\u00e9""#, #""é""#, #""ZZ""#, "null", "[1]", "1e1", "123456789012345678901", #""""#, #""big""#,
        #""\"""#,
    ]

    static func records() -> [[UInt8]] {
        keys.flatMap { key in
            [
                Array(#"{"k":\#(key)}"#.utf8), Array(#"{"k":\#(key),"p":[1,"x"]}"#.utf8),
                Array(#"{"p":{"a":"1","b":"y"},"k":\#(key)}"#.utf8),
            ]
        }
    }

    @Test("the plan writes what the general engine writes, and gives it the required keys with no row")
    func planAgreesWithGeneralEngine() throws {
        let catalog = try Catalog.load(["main.mappings"], from: .memory(Self.files))
        let mapper = Mapper(catalog: catalog)
        let context = try mapper.context("$L")
        let plan = try mapper.fastPlan(for: context).get()
        var tally = FastPlanTests.Tally()
        for record in Self.records() {
            FastPlanTests.compare(record, context, plan, mapper, &tally)
        }
        // Three records a key: twelve keys find a row with every required cell (the composite key
        // of the third finds none: null, as the entry is optional); "false", "ZZ", null, [1], "",
        // "\"", 0 and -0 none.
        #expect(tally.fast >= 3 * 12, "\(tally)")
        #expect(tally.general >= 3 * 8, "\(tally)")
    }

    @Test("with direct tags: the encoder's tags of the general engine's JSON")
    func directTags() throws {
        let catalog = try Catalog.load(["main.mappings"], from: .memory(Self.files))
        let mapper = Mapper(catalog: catalog)
        let context = try mapper.context("$L")
        for omittingNulls in [false, true] {
            let (direct, encoded) = try #require(
                try DirectTagsTests.mappers(mapper, context, omittingNulls: omittingNulls))
            #expect(direct.writesTagsDirectly)
            for record in Self.records() {
                #expect(DirectTagsTests.difference(record, direct, encoded) == nil)
            }
        }
    }

    @Test("a test's fixture table is what the lookups read while the test runs")
    func fixtures() throws {
        let tests = """
            , "@tests": [ { "tables": { "t": [ { "k": "DE", "s": "fixture", "i": 1, "b": false, "e": "f" } ] },
                            "input": { "k": "DE" },
                            "output": { "s": "fixture", "i": 1, "b": false, "e": "f", "text": "1", "pair": null } },
                          { "input": { "k": "DE" },
                            "output": { "s": "Germany, \\"Federal\\"\\\\", "i": 83, "b": true, "e": null, "text": "83",
                                        "pair": null } } ] } }
            """
        var files = Self.files
        files["main.mappings"] = String(Self.source.dropLast(4)) + tests
        let catalog = try Catalog.load(["main.mappings"], from: .memory(files))
        let results = ContextTestRunner.run(catalog).map { ($0.passed ? "passed" : "failed") + $0.failures.joined() }
        #expect(results == ["passed", "passed"])
    }
}
