import Foundation
import MappingsTestSupport
import Testing

@testable import Mappings
@testable import MappingsCompiler
@testable import MappingsEngine
@testable import MappingsJSON
@testable import MappingsModel

/// `"@reverse": false`: an entry read one way only. Mapping is unchanged; serialize leaves it
/// out without an issue; it needs no reverse transformer nor a one-to-one `@valueMap`; what
/// says how to write it back is an error beside it.
@Suite("forward-only entries (@reverse: false)")
struct ForwardOnlyTests {
    static func catalog(_ approved: String, label: String = #""@reverse": false"#) -> String {
        """
        { "@models": { "Review": { "id": "Int", "approved": "Bool", "label": "String?" } },
          "$Review": { "@class": "Review", "id": "id",
                       "approved": { "@keyPath": "state", \(approved) },
                       "label": { "@keyPath": "title", "@optional": true, "@transformClass": "Text",
                                  "@transformSelector": "upper"\(label.isEmpty ? "" : ", " + label) } } }
        """
    }

    static let manyToOne = #""@valueMap": { "APPROVED": true, "MERGED": true, "COMMENTED": false }"#

    @Test("mapping is unchanged; serialize leaves forward-only entries out, with no issue")
    func serializeLeavesThemOut() throws {
        let mapper = Mapper(catalog: try load(Self.catalog(Self.manyToOne + #", "@reverse": false"#)))
        let context = try mapper.context("$Review")
        let mapped = mapper.object(
            from: try JSONParser.parse(#"{"id": 7, "state": "MERGED", "title": "Fix"}"#), using: context)
        #expect(mapped.issues.isEmpty, "\(mapped.issues)")
        #expect(JSONWriter.string(mapped.value) == #"{"id":7,"approved":true,"label":"Fix"}"#)
        let back = mapper.payload(from: mapped.value, using: context)
        #expect(back.issues.isEmpty, "\(back.issues)")
        #expect(JSONWriter.string(ReverseRun.jsonValue(back.value)) == #"{"id":7}"#)
    }

    @Test("without it: a many-to-one map is a load error, and a transformer with no reverse an issue that says how")
    func withoutIt() throws {
        let error = failure(Self.catalog(Self.manyToOne))
        #expect(error.contains("\"@valueMap\" is not one-to-one"), "\(error)")
        #expect(error.contains(#"or, if the entry is never serialized, "@reverse": false"#), "\(error)")
        let mapper = Mapper(
            catalog: try load(Self.catalog(#""@valueMap": { "APPROVED": true, "COMMENTED": false }"#, label: "")))
        let context = try mapper.context("$Review")
        let mapped = mapper.object(
            from: try JSONParser.parse(#"{"id": 7, "state": "APPROVED", "title": "Fix"}"#), using: context)
        let back = mapper.payload(from: mapped.value, using: context)
        #expect(back.issues.count == 1, "\(back.issues)")
        #expect(
            back.issues.first?.message.contains(#"an entry that is never serialized says "@reverse": false"#) == true)
        // The one-to-one map goes back; the transformed label is left out.
        #expect(JSONWriter.string(ReverseRun.jsonValue(back.value)) == #"{"id":7,"state":"APPROVED"}"#)
    }

    @Test(
        "misuse is a load error at its place: not a boolean, or beside what says how to write back",
        arguments: [
            (#""@reverse": "no""#, #""@reverse" takes true or false, not a string"#),
            (
                #""@reverse": false, "@reverseValue": { "true": "MERGED" }"#,
                #""@reverseValue" says how serialize writes the entry back"#
            ),
            (
                #""@reverse": false, "@reverseTransformSelector": "upper""#,
                #""@reverseTransformSelector" says how serialize writes"#
            ),
        ])
    func misuse(_ options: String, _ says: String) throws {
        let text = Self.catalog(Self.manyToOne + ", " + options)
        let error = failure(text)
        #expect(error.contains(says), "\(error)")
        #expect(error.contains("main.mappings:3:"), "\(error)")
    }

    @Test("a misspelt @reverse is suggested")
    func suggestion() throws {
        let error = failure(Self.catalog(Self.manyToOne + #", "@revers": false"#))
        #expect(error.contains("@reverse"), "\(error)")
    }

    @Test("Swift hosts: map(…, reverse: false)")
    func contextBuilder() throws {
        var definitions = Definitions()
        definitions.model("Review", ["id": "Int", "approved": "Bool"])
        definitions.context("$Review", class: "Review") { review in
            review.map("id", from: "id")
            review.map(
                "approved", from: "state", valueMap: ["APPROVED": true, "MERGED": true, "COMMENTED": false],
                reverse: false)
        }
        let catalog = try Catalog.load([], from: .memory([:]), definitions: definitions)
        let mapper = Mapper(catalog: catalog)
        let context = try mapper.context("$Review")
        let mapped = mapper.object(from: try JSONParser.parse(#"{"id": 1, "state": "MERGED"}"#), using: context)
        #expect(JSONWriter.string(mapped.value) == #"{"id":1,"approved":true}"#)
        let back = mapper.payload(from: mapped.value, using: context)
        #expect(back.issues.isEmpty && JSONWriter.string(ReverseRun.jsonValue(back.value)) == #"{"id":1}"#)
    }
}
