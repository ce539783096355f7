import Mappings
import MappingsTestSupport
import Testing

extension FuzzTests {
    static let enumSeed = """
        { "@models": { "Status": ["active", "suspended", "deleted"], "Mood": ["up", "down"],
                       "Account": { "status": "Status", "past": "[Status]?", "flags": "[String: Mood]", "n": "Int" } },
          "$Account": { "@class": "Account",
            "status": { "@keyPath": "s", "@valueMap": { "A": "active", "S": "suspended", "1": "deleted", "true": "active" },
                        "@reverseValue": { "active": "A" } },
            "past": { "@keyPath": "p", "@optional": true, "@valueMap": { "A": "active" } },
            "flags": { "@keyPath": "f", "@defaultValue": { "x": "up" } },
            "n": { "@keyPath": "n", "@valueMap": { "low": 1, "high": 3 } } },
          "$Json": { "state": { "@keyPath": "s", "@type": "Status?", "@valueMap": { "D": "deleted" } } }
        }
        """

    static let enumFragments = [
        "\"@valueMap\": {", "\"@reverseValue\": {", "[\"a\", \"a\"]", "[]", "\"Status\"", "\"[Status]\"", "3", "{}",
        "\"Int\": [\"x\"]", "\"A\": \"active\",",
    ]

    @Test("thousands of mutated enums and value maps: no crash, every failure a located diagnostic")
    func enumMutations() {
        var random = SeededGenerator(seed: 0xE_2026)
        var failures = 0
        for iteration in 0..<2000 {
            let text = mutate(Self.enumSeed, inserting: Self.enumFragments, iteration: iteration, &random)
            do {
                _ = try Catalog.load(["e.mappings"], from: .memory(["e.mappings": text]))
            } catch {
                failures += 1
                expectLocated(error, iteration: iteration)
            }
        }
        #expect(failures > 500, "the mutations should break most files")
    }
}
