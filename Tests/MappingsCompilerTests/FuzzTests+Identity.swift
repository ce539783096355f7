import Mappings
import MappingsTestSupport
import Testing

extension FuzzTests {
    static let identitySeed = """
        { "@models": { "Feed": { "items": "[Item]", "byKey": "[String: Item]", "tags": "{String}?",
                                 "grid": "[[Item]]?", "note": "String?", "count": "Int" },
                       "Item": { "id": "Int", "name": "String?" } },
          "$Feed": { "@class": "Feed",
            "items": { "@keyPath": "items", "@object": { "@mappings": "$Item" }, "@identity": "id",
                       "@clearContent": true, "@onElementError": "skip" },
            "byKey": { "@keyPath": "byKey", "@optional": true, "@object": { "@class": "Item" }, "@identity": "@key" },
            "tags": { "@keyPath": "tags", "@optional": true },
            "grid": { "@keyPath": "grid", "@optional": true, "@object": { "@mappings": "$Item" } },
            "note": { "@keyPath": "note", "@optional": true, "@null": "clear" },
            "count": { "@keyPath": "count", "@defaultValue": 0, "@onError": "default" } },
          "$Item": { "@class": "Item", "id": "id", "name": { "@keyPath": "name", "@optional": true } }
        }
        """

    static let identityFragments = [
        "\"@identity\": \"id\",", "\"@identity\": [\"id\", \"name\"],", "\"@identity\": \"@key\",", "\"@identity\": ",
        "\"@onElementError\": \"fail\",", "\"@onError\": \"default\",", "\"@null\": \"clear\",", "\"{Int}\"",
        "\"[[Item]]\"", "\"{Item}\"", "\"@idnetity\": \"id\",",
    ]

    @Test("thousands of mutated @identity and policies: no crash, every failure a located diagnostic")
    func identityMutations() throws {
        let existing = #"{"items": [{"id": 1, "name": "a"}, {"id": 2}], "byKey": {"k": {"id": 3}}, "count": 1}"#
        let payload = #"""
            {"items": [{"id": 2, "name": "b"}, {"id": "x"}, {"id": 2}, {"name": "n"}], "byKey": {"k": {"id": 4}},
             "tags": ["b", "a", "b"], "grid": [[{"id": 1}], 3], "note": null, "count": "many"}
            """#
        let failures = loadMutations(
            of: Self.identitySeed, inserting: Self.identityFragments, randomSeed: 0x1D_2026, file: "i.mappings"
        ) { catalog, iteration in
            let mapper = Mapper(catalog: catalog)
            for context in catalog.contexts {
                let old = mapper.existingObject(from: try JSONParser.parse(existing), using: context)
                _ = mapper.map(try JSONParser.parse(payload), into: old.value, using: context)
                try expectSameIssuesOnDemand(payload, mapper: mapper, context: context, iteration: iteration)
            }
        }
        #expect(failures > 300, "the mutations should break most files")
    }
}
