import Foundation
import MappingsTestSupport
import Testing

@testable import Mappings
@testable import MappingsCompiler
@testable import MappingsEngine
@testable import MappingsJSON
@testable import MappingsModel

/// serialize writes a collection read through a fan-out back as the array of objects it came
/// from, members in the order the context reads them; `@reverseFanOut` chooses the other shape.
@Suite("serialize: fan-outs and key order")
struct ReverseFanOutTests {
    static let pullRequest = """
        { "@models": { "PR": { "number": "Int", "labels": "[String]", "title": "String", "colors": "[String]?",
                               "author": "String?", "tagIds": "[Int]?", "items": "[Item]?", "total": "Int?" },
                       "Item": { "id": "Int" } },
          "$PR": { "@class": "PR", "number": "number", "labels": "labels.name", "title": "title",
                   "colors": { "@keyPath": "labels.color", "@optional": true },
                   "author": { "@keyPath": "user.login", "@optional": true },
                   "tagIds": { "@keyPath": "meta.tags.ids", "@optional": true, "@reverseFanOut": false },
                   "items": { "@keyPath": "page.items", "@optional": true, "@object": { "@class": "Item" } },
                   "total": { "@keyPath": "page.total", "@optional": true } } }
        """

    static let payload = """
        {"number":7,"labels":[{"name":"bug","color":"red"},{"name":"ui","color":"blue"}],"title":"Fix",\
        "user":{"login":"ann"},"meta":{"tags":{"ids":[1,2]}},"page":{"items":[{"id":1}],"total":1}}
        """

    @Test("a fan-out goes back as an array of objects, members in the context's order")
    func pullRequestShape() throws {
        let mapper = Mapper(catalog: try load(Self.pullRequest))
        let context = try mapper.context("$PR")
        let mapped = mapper.object(from: try JSONParser.parse(Self.payload), using: context)
        #expect(mapped.issues.isEmpty)
        let back = mapper.payload(from: mapped.value, using: context)
        #expect(back.issues.isEmpty)
        // labels.name and labels.color fan out into one array; meta.tags.ids (@reverseFanOut:
        // false) and page.items (objects, beside a single value) stay nested; the keys come in
        // the order the entries read them, not shorter key paths first.
        #expect(JSONWriter.string(ReverseRun.jsonValue(back.value)) == Self.payload)
    }

    @Test("nulls and sets fan out too; an index or a single value below the key keeps it an object")
    func defaults() throws {
        let mapper = Mapper(
            catalog: try load(
                """
                { "@models": { "M": { "names": "{String}?", "first": "String?", "sizes": "[Int?]?" } },
                  "$M": { "@class": "M", "names": { "@keyPath": "a.name", "@optional": true },
                          "first": { "@keyPath": "a.0.name", "@optional": true },
                          "sizes": { "@keyPath": "b.size", "@optional": true } } }
                """))
        let context = try mapper.context("$M")
        let mapped = mapper.object(
            from: try JSONParser.parse(#"{"a":{"name":["x","y"],"0":{"name":"z"}},"b":[{"size":1},{"other":2}]}"#),
            using: context)
        let back = mapper.payload(from: mapped.value, using: context)
        #expect(
            JSONWriter.string(ReverseRun.jsonValue(back.value))
                == #"{"a":{"name":["x","y"],"0":{"name":"z"}},"b":[{"size":1},{}]}"#)
    }

    @Test(
        "@reverseFanOut is checked where it is written",
        arguments: [
            (
                #""@keyPath": "labels", "@reverseFanOut": true"#,
                #""@reverseFanOut" says how serialize writes a key path of two keys or more, but "labels" reads "labels""#
            ),
            (
                #""@keyPath": "a.0", "@reverseFanOut": true"#,
                #""@reverseFanOut" says how serialize writes a key path of two keys or more, but "labels" reads "a.0""#
            ),
            (#""@keyPath": "a.b", "@reverseFanOut": "yes""#, #""@reverseFanOut" takes true or false, not a string"#),
        ])
    func checked(_ entry: String, _ message: String) throws {
        do {
            _ = try load(
                #"{ "@models": { "M": { "labels": "[String]" } }, "$M": { "@class": "M", "labels": { \#(entry) } } }"#)
            Issue.record("loaded")
        } catch {
            #expect(error.description.contains(message), "\(error.description)")
        }
    }

    @Test("@reverseFanOut on a single value is refused")
    func singleValue() {
        #expect(throws: MappingsError.self) {
            try load(
                #"{ "@models": { "M": { "name": "String" } }, "$M": { "@class": "M", "name": { "@keyPath": "a.b", "@reverseFanOut": true } } }"#
            )
        }
    }

    @Test("ContextBuilder's reverseFanOut is @reverseFanOut")
    func builder() throws {
        var definitions = Definitions()
        definitions.model("M", ["ids": "[Int]"])
        definitions.context("$M", class: "M") { $0.map("ids", from: "a.ids", reverseFanOut: false) }
        let mapper = Mapper(catalog: try Catalog.load([], definitions: definitions))
        let context = try mapper.context("$M")
        let mapped = mapper.object(from: try JSONParser.parse(#"{"a":{"ids":[1,2]}}"#), using: context)
        let back = mapper.payload(from: mapped.value, using: context)
        #expect(JSONWriter.string(ReverseRun.jsonValue(back.value)) == #"{"a":{"ids":[1,2]}}"#)
    }
}
