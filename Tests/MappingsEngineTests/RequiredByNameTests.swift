import Mappings
import MappingsTestSupport
import Testing

/// Required means required wherever a model is built: by a context, by property name, from a
/// transformer's result, from a default.
@Suite("required values when a model is built by property name")
struct RequiredByNameTests {
    static let text = """
        {
            "@models": {
                "U": { "name": "String", "age": "Int?", "tags": "[String]" },
                "T": { "user": "U?", "users": "[U]?", "fromScript": "U?", "byName": "U?" }
            },
            "$T": {
                "@class": "T",
                "user": { "@keyPath": "user", "@optional": true, "@object": { "@class": "U" } },
                "users": { "@keyPath": "users", "@optional": true, "@object": { "@class": "U" } },
                "fromScript": { "@keyPath": "script", "@optional": true, "@transformClass": "T", "@transformSelector": "f" },
                "byName": { "@keyPath": "plain", "@optional": true }
            }
        }
        """

    private func issues(_ json: String) throws -> [MappingIssue] {
        try Mapper(catalog: load(Self.text)).object(from: JSONParser.parse(json), context: "$T").issues
    }

    @Test(
        "every missing or null non-optional property is a missing-value issue with the payload path",
        arguments: [
            (#"{"user": {"age": 3}}"#, ["$.user.name", "$.user.tags"]),
            (#"{"users": [{"name": "a", "tags": []}, {"name": null, "tags": ["x"]}]}"#, ["$.users[1].name"]),
            (#"{"script": {"tags": []}}"#, ["$.script.name"]),
            (#"{"plain": {"name": "n"}}"#, ["$.plain.tags"]),
        ])
    func missing(json: String, paths: [String]) throws {
        let found = try issues(json)
        #expect(found.map(\.path) == paths)
        #expect(found.allSatisfy { $0.kind == .missingRequiredValue })
        #expect(found.allSatisfy { $0.message.hasPrefix("missing required value for U.") })
    }

    @Test("optional properties may be missing, and a complete object has no issue")
    func complete() throws {
        #expect(try issues(#"{"user": {"name": "n", "tags": []}, "plain": {"name": "m", "tags": ["a"]}}"#) == [])
    }

    @Test("a default that leaves out a required property fails to load")
    func defaults() {
        let text = """
            { "@models": { "U": { "name": "String" }, "T": { "u": "U" } },
              "$T": { "@class": "T", "u": { "@keyPath": "u", "@defaultValue": {} } } }
            """
        #expect(failure(text).contains("missing required value for U.name"))
    }

    @Test("objects read back from the tool's output (--into, serialize) may hold nulls: null there means unset")
    func existing() throws {
        let mapper = try Mapper(catalog: load(Self.text))
        let read = try mapper.existingObject(from: JSONParser.parse(#"{"user": {"name": null}}"#), context: "$T")
        #expect(read.issues == [])
    }
}
