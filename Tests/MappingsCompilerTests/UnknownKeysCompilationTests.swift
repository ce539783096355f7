import MappingsJSON
import MappingsTestSupport
import Testing

@testable import MappingsCompiler

@Suite("compiling @unknownKeys")
struct UnknownKeysCompilationTests {
    @Test("ignore, warn and error compile; ignore to no check at all")
    func policies() throws {
        let catalog = try load(
            """
            { "@models": { "U": { "n": "String" } },
              "$I": { "@class": "U", "@unknownKeys": "ignore", "n": "n" },
              "$W": { "@class": "U", "@unknownKeys": "warn", "n": "a.b" },
              "$E": { "@object": { "@class": "U", "@mappings": { "@unknownKeys": "error", "n": "n" } } },
              "$S": { "@class": "U", "@unknownKeys": "warn", "n": { "@keyPath": "@self", "@transformClass": "T",
                      "@transformSelector": "f" } } }
            """)
        #expect(catalog.context("$I")?.unknownKeys == nil)
        let warn = try #require(catalog.context("$W")?.unknownKeys)
        #expect(!warn.isError && warn.read == ["a"])
        #expect(warn.provenance.location.line == 3)
        let error = try #require(catalog.context("$E")?.unknownKeys)
        #expect(error.isError && error.read == ["n"])
        // An entry on @self reads every key: nothing is left to report.
        #expect(catalog.context("$S")?.unknownKeys.map { $0.read == nil } == true)
    }

    @Test("a wrong value is an error at the value with a suggestion; in an entry it has no meaning")
    func diagnostics() {
        #expect(
            failure(
                """
                { "@models": { "U": { "n": "String" } },
                  "$U": { "@class": "U", "@unknownKeys": "eror", "n": { "@keyPath": "n", "@unknownKeys": "warn" } } }
                """
            ).hasPrefix(
                """
                error: "@unknownKeys" is "ignore", "warn" or "error", not "eror"
                 --> main.mappings:2:42
                  |
                2 |   "$U": { "@class": "U", "@unknownKeys": "eror", "n": { "@keyPath": "n", "@unknownKeys": "warn" } } }
                  |                                          ^^^^^^
                  = help: did you mean "error"?

                error: "@unknownKeys" has no meaning in an entry
                 --> main.mappings:2:74
                """))
        #expect(
            failure(#"{ "$J": { "@unknownKeys": { "warn": true } } }"#).hasPrefix(
                #"error: "@unknownKeys" is "ignore", "warn" or "error", not an object"#))
    }
}
