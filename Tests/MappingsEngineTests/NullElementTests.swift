import Foundation
import MappingsTestSupport
import Testing

@testable import MappingsCompiler
@testable import MappingsEngine
@testable import MappingsJSON
@testable import MappingsModel

/// A `null` element of a collection of objects (`[Label]`, `[Label?]`, `[[Label?]]`,
/// `[String: Label?]`) stays `null`: where the elements are optional, as it is; elsewhere with
/// an issue at its index, as for a collection of scalars — never an object of nulls built from
/// nothing. The fast plan gives such a record to the general engine: both write the same bytes.
@Suite("null elements of collections of objects")
struct NullElementTests {
    static let text = """
        {
            "@models": {
                "Label": { "name": "String?" },
                "Issue": { "required": "[Label]", "optional": "[Label?]", "nested": "[[Label?]]", "byName": "[String: Label?]" }
            },
            "$Label": { "@class": "Label", "name": { "@keyPath": "name", "@optional": true } },
            "$Issue": {
                "@class": "Issue",
                "required": { "@keyPath": "required", "@object": { "@mappings": "$Label" } },
                "optional": { "@keyPath": "optional", "@object": { "@mappings": "$Label" } },
                "nested": { "@keyPath": "nested", "@object": { "@mappings": "$Label" } },
                "byName": { "@keyPath": "byName", "@object": { "@mappings": "$Label" } }
            }
        }
        """

    static func mapper() throws -> (Mapper, CompiledContext) {
        let catalog = try Catalog.load(["n.mappings"], from: .memory(["n.mappings": text]))
        let mapper = Mapper(catalog: catalog)
        return (mapper, try mapper.context("$Issue"))
    }

    @Test("optional elements stay null; a required one is null with an issue at its index")
    func nulls() throws {
        let (mapper, context) = try Self.mapper()
        let payload = #"""
            {"required": [{"name": "a"}, null], "optional": [null, {"name": "b"}], "nested": [[null], [{"name": "c"}]],
             "byName": {"x": null, "y": {"name": "d"}}}
            """#
        let result = mapper.object(from: try JSONParser.parse(payload), using: context)
        var text: [UInt8] = []
        JSONWriter.write(result.value, into: &text)
        #expect(
            String(decoding: text, as: UTF8.self)
                == #"{"required":[{"name":"a"},null],"optional":[null,{"name":"b"}],"nested":[[null],[{"name":"c"}]],"byName":{"x":null,"y":{"name":"d"}}}"#
        )
        #expect(result.issues.count == 1, "\(result.issues)")
        #expect(result.issues.first?.path == "$.required[1]")
        #expect(result.issues.first?.kind == .conversionFailed)
        #expect(result.issues.first?.message == "expected Label, found null")

        // The record path (a fast plan when the payload maps cleanly) writes the same bytes.
        let records = RecordMapper(mapper: mapper, context: context)
        for line in [
            #"{"required": [], "optional": [null], "nested": [], "byName": {}}"#,
            #"{"required": [{"name": "a"}], "optional": [{"name": "b"}, null], "nested": [[null]], "byName": {"x": null}}"#,
        ] {
            var planned: [UInt8] = []
            _ = records.map(Array(line.utf8), into: &planned)
            let general = mapper.object(from: try JSONParser.parse(line), using: context)
            var expected: [UInt8] = []
            JSONWriter.write(general.value, into: &expected)
            #expect(planned == expected, "\(String(decoding: planned, as: UTF8.self))")
            #expect(general.issues.isEmpty)
        }
    }
}
