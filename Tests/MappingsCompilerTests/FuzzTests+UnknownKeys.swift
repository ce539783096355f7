import Mappings
import MappingsTestSupport
import Testing

extension FuzzTests {
    static let unknownKeysSeed = """
        { "@models": { "User": { "name": "String", "address": "Address?" }, "Address": { "city": "String" } },
          "$User": { "@class": "User", "@unknownKeys": "warn",
            "name": { "@keyPath": ["name", "login"] },
            "address": { "@keyPath": "address", "@optional": true, "@object": { "@mappings": "$Address" } } },
          "$Address": { "@class": "Address", "@unknownKeys": "error", "city": "city" },
          "$Json": { "@unknownKeys": "ignore", "all": { "@keyPath": "@self", "@type": "JSON" } }
        }
        """

    static let unknownKeysFragments = [
        "\"@unknownKeys\": \"warn\",", "\"@unknownKeys\": \"error\",", "\"@unknownKeys\": ", "\"wran\"", "\"ignore\"",
        "\"@unknownKeys\": [],", "\"@unknownKey\": \"warn\",", "\"@self\"",
    ]

    @Test("thousands of mutated @unknownKeys: no crash, every failure a located diagnostic, mapping agrees")
    func unknownKeysMutations() throws {
        let payload = #"{"name": "Ann", "x": 1, "address": {"city": "Oslo", "zip": "1"}, "all": [{"y": 2}]}"#
        let failures = loadMutations(
            of: Self.unknownKeysSeed, inserting: Self.unknownKeysFragments, randomSeed: 0x0CE_2026, file: "u.mappings"
        ) { catalog, iteration in
            let mapper = Mapper(catalog: catalog)
            for context in catalog.contexts {
                // Parsing on demand must give what a full parse gives, unknown keys included.
                try expectSameIssuesOnDemand(payload, mapper: mapper, context: context, iteration: iteration)
            }
        }
        #expect(failures > 500, "the mutations should break most files")
    }
}
