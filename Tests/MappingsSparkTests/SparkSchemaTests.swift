import MappingsTestSupport
import Testing

@testable import Mappings
@testable import MappingsSpark

/// `Catalog.sparkSchema(of:)`: the Spark `StructType` of a context's output.
@Suite("Spark schemas of contexts")
struct SparkSchemaTests {
    static let contexts = """
        { "@models": {
            "Node": { "name": "String", "children": "[Node]" },
            "Box": { "label": "String", "count": "Int", "unset": "String", "maybe": "Double?", "root": "Node",
                     "sizes": "[String: Decimal]" },
            "Circle": { "r": "Double" }, "Rect": { "w": "Double" },
            "D": { "g": "[[Circle | Rect]]", "m": "[String: [Circle | Rect]]?", "o": "(Circle | Rect)?" }
          },
          "$Node": { "@class": "Node", "name": "name",
                     "children": { "@keyPath": "kids", "@optional": true, "@object": { "@mappings": "$Node" } } },
          "$Box": { "@class": "Box", "label": "label", "count": { "@keyPath": "n", "@defaultValue": 0 },
                    "maybe": { "@keyPath": "m", "@optional": true },
                    "root": { "@keyPath": "tree", "@object": { "@mappings": "$Node" } },
                    "sizes": { "@keyPath": "sizes", "@optional": true } },
          "$Circle": { "@class": "Circle", "r": "r" },
          "$Rect": { "@class": "Rect", "w": "w" },
          "$D": { "@class": "D",
            "g": { "@keyPath": "g", "@object": { "@discriminator": "t", "@cases": { "c": "$Circle", "r": "$Rect" } } },
            "m": { "@keyPath": "m", "@optional": true,
                   "@object": { "@discriminator": "t", "@cases": { "c": "$Circle", "r": "$Rect" } } } }
        }
        """

    func schema(_ identifier: String) throws -> JSONValue {
        let catalog = try load(Self.contexts)
        return catalog.sparkSchema(of: try Mapper(catalog: catalog).context(identifier))
    }

    @Test("Spark: recursion becomes JSON text, decimals strings, both marked")
    func spark() throws {
        let box = try schema("$Box")
        guard case .array(let fields)? = box["fields"] else {
            Issue.record("no fields")
            return
        }
        let root = try #require(fields.first { $0["name"] == "root" })
        guard case .array(let nodeFields)? = root["type"]?["fields"] else {
            Issue.record("root is not a struct")
            return
        }
        let children = try #require(nodeFields.first { $0["name"] == "children" })
        #expect(children["type"] == "string")  // the array of nodes, as its JSON text
        #expect(children["metadata"] == ["mappings.type": "JSON"])
        let sizes = try #require(fields.first { $0["name"] == "sizes" })
        #expect(sizes["metadata"] == ["mappings.type": "Decimal"])
        #expect(sizes["nullable"] == true)
    }

    @Test("arrays of arrays of a union nest as arrays of arrays")
    func nestedUnions() throws {
        let spark = try schema("$D").jsonText
        #expect(spark.contains(#"{"name":"g","type":{"type":"array","elementType":{"type":"array","#), "\(spark)")
    }
}

extension JSONValue {
    /// The member `key` of an object, for reading schemas in tests.
    fileprivate subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }
}
