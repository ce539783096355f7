import MappingsTestSupport
import Testing

@testable import Mappings

/// `Catalog.outputSchema(of:as:)`: which properties may be null, what is required, and how
/// types, nested contexts and recursion are written (the tool's tests validate real outputs).
@Suite("output schemas of contexts")
struct OutputSchemaTests {
    static let contexts = """
        { "@models": {
            "Node": { "name": "String", "children": "[Node]" },
            "Box": { "label": "String", "count": "Int", "unset": "String", "maybe": "Double?", "root": "Node",
                     "sizes": "[String: Decimal]" }
          },
          "$Node": { "@class": "Node", "name": "name",
                     "children": { "@keyPath": "kids", "@optional": true, "@object": { "@mappings": "$Node" } } },
          "$Box": { "@class": "Box", "label": "label", "count": { "@keyPath": "n", "@defaultValue": 0 },
                    "maybe": { "@keyPath": "m", "@optional": true },
                    "root": { "@keyPath": "tree", "@object": { "@mappings": "$Node" } },
                    "sizes": { "@keyPath": "sizes", "@optional": true } },
          "$Plain": { "a": { "@keyPath": "a", "@type": "Int" }, "b.c": { "@keyPath": "c", "@optional": true } }
        }
        """

    func schema(_ identifier: String, _ format: SchemaFormat) throws -> JSONValue {
        let catalog = try load(Self.contexts)
        return catalog.outputSchema(of: try Mapper(catalog: catalog).context(identifier), as: format)
    }

    @Test("a model's properties are all written; only those a required entry or a default sets are never null")
    func modelNullability() throws {
        let box = try schema("$Box", .jsonSchema)
        #expect(box["required"] == ["label", "count", "unset", "maybe", "root", "sizes"])
        let properties = try #require(box["properties"])
        #expect(properties["label"] == ["type": "string"])
        #expect(properties["count"] == ["type": "integer"])
        #expect(properties["unset"] == ["type": ["string", "null"]])
        #expect(properties["maybe"] == ["type": ["number", "null"]])
        #expect(properties["root"] == ["$ref": "#/$defs/$Node"])
        #expect(
            properties["sizes"] == ["type": ["object", "null"], "additionalProperties": ["type": "number"]])
        let node = try #require(box["$defs"]?["$Node"])
        #expect(node["properties"]?["children"] == ["type": ["array", "null"], "items": ["$ref": "#/$defs/$Node"]])
    }

    @Test("a context without a model: the keys its entries set, required when certain")
    func plainContext() throws {
        let plain = try schema("$Plain", .jsonSchema)
        #expect(plain["required"] == ["a"])
        #expect(plain["properties"]?["b"]?["properties"] == ["c": [:]])
        #expect(plain["properties"]?["b"]?["required"] == nil)
    }
}

extension JSONValue {
    /// The member `key` of an object, for reading schemas in tests.
    fileprivate subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }
}
