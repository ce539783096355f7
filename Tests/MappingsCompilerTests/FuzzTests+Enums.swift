import Mappings
import MappingsTestSupport
import Testing

extension FuzzTests {
    static let enumSeed = """
        { "@models": { "Status": ["active", "suspended", "deleted"], "Mood": ["up", "down"],
                       "Account": { "status": "Status", "past": "[Status]?", "flags": "[String: Mood]", "n": "Int",
                                   "m": "Int?" } },
          "$Account": { "@class": "Account", "@conversions": "lenient",
            "status": { "@keyPath": "s", "@valueMap": { "A": "active", "S": "suspended", "1": "deleted", "true": "active" },
                        "@reverseValue": { "active": "A" } },
            "past": { "@keyPath": "p", "@optional": true, "@valueMap": { "A": "active" } },
            "flags": { "@keyPath": "f", "@defaultValue": { "x": "up" } },
            "n": { "@keyPath": "n", "@valueMap": { "low": 1, "high": 3 } },
            "m": { "@keyPath": "n", "@valueMap": { "low": 1, "lower": 1 }, "@reverse": false } },
          "$Json": { "state": { "@keyPath": "s", "@type": "Status?", "@valueMap": { "D": "deleted" } } }
        }
        """

    static let enumFragments = [
        "\"@valueMap\": {", "\"@reverseValue\": {", "[\"a\", \"a\"]", "[]", "\"Status\"", "\"[Status]\"", "3", "{}",
        "\"Int\": [\"x\"]", "\"A\": \"active\",", "\"@reverse\": false,", "\"@reverse\": \"no\",",
        "\"@conversions\": \"strict\",", "\"@conversions\": \"loose\",",
    ]

    @Test("thousands of mutated enums and value maps: no crash, every failure a located diagnostic")
    func enumMutations() {
        let failures = loadMutations(
            of: Self.enumSeed, inserting: Self.enumFragments, randomSeed: 0xE_2026, file: "e.mappings")
        #expect(failures > 500, "the mutations should break most files")
    }
}
