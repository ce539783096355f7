import Foundation
import MappingsTestSupport
import Testing

@testable import Mappings

@Suite("enums and value maps: mapping, serialize, explain")
struct ValueMapTests {
    static let contexts = """
        { "@models": {
            "Status": ["active", "suspended", "deleted"],
            "Account": { "name": "String", "status": "Status", "previous": "Status?", "history": "[Status]",
                         "flags": "[String: Status]", "level": "Int", "verified": "Bool" }
          },
          "$Account": { "@class": "Account",
            "name": "name",
            "status": { "@keyPath": "state", "@valueMap": { "A": "active", "S": "suspended", "D": "deleted", "1": "active" },
                        "@reverseValue": { "active": "A" } },
            "previous": { "@keyPath": "previous", "@optional": true },
            "history": { "@keyPath": "history", "@valueMap": { "A": "active", "S": "suspended", "D": "deleted" } },
            "flags": { "@keyPath": "flags", "@valueMap": { "on": "active" }, "@defaultValue": { "x": "deleted" } },
            "level": { "@keyPath": "level", "@valueMap": { "low": 1, "high": 3, "true": 2 } },
            "verified": { "@keyPath": "verified", "@valueMap": { "Y": true, "N": false }, "@transformClass": "Text",
                          "@transformSelector": "upper", "@reverseTransformSelector": "lower" }
          },
          "$Json": { "state": { "@keyPath": "s", "@type": "Status", "@valueMap": { "0": "deleted", "true": "active" } } }
        }
        """

    let mapper: Mapper

    init() throws {
        var transformers = TransformerRegistry()
        transformers.register(className: "Text", selector: "upper") { value, _ in
            guard case .string(let text) = value else { return value }
            return .string(text.uppercased())
        }
        transformers.register(className: "Text", selector: "lower") { value, _ in
            guard case .string(let text) = value else { return value }
            return .string(text.lowercased())
        }
        mapper = Mapper(
            catalog: try Catalog.load(
                ["main.mappings"], from: .memory(["main.mappings": Self.contexts]), transformers: transformers))
    }

    private func map(_ json: String, _ context: String = "$Account") throws -> (String, [String]) {
        let result = try mapper.object(from: try JSONParser.parse(json), context: context)
        return (JSONWriter.string(result.value), result.issues.map(\.description))
    }

    @Test(
        "source values are translated before conversion: strings, numbers and booleans by their text, inside collections too"
    )
    func mapping() throws {
        let (json, issues) = try map(
            #"{"name":"Ann","state":1,"history":["A","D","suspended"],"flags":{"a":"on","b":"deleted"},"level":true,"verified":"y"}"#
        )
        #expect(issues.isEmpty)
        #expect(
            json
                == #"{"name":"Ann","status":"active","previous":null,"history":["active","deleted","suspended"],"flags":{"a":"active","b":"deleted"},"level":2,"verified":true}"#
        )
        let (other, _) = try map(#"{"s":0}"#, "$Json")
        #expect(other == #"{"state":"deleted"}"#)
        let (fromBool, _) = try map(#"{"s":true}"#, "$Json")
        #expect(fromBool == #"{"state":"active"}"#)
    }

    @Test("an unmapped value passes through to the enum check; a missing one takes the default")
    func unmapped() throws {
        let (json, issues) = try map(
            #"{"name":"Ann","state":"X","previous":"suspnded","history":["A","Q"],"level":"mid","verified":"N"}"#)
        #expect(
            json
                == #"{"name":"Ann","status":null,"previous":null,"history":["active",null],"flags":{"x":"deleted"},"level":null,"verified":false}"#
        )
        #expect(
            issues == [
                #"$.state: expected Status, found string "X": allowed values are "active", "suspended", "deleted" (main.mappings:8)"#,
                #"$.previous: expected Status, found string "suspnded": allowed values are "active", "suspended", "deleted"; did you mean "suspended"? (main.mappings:10)"#,
                #"$.history[1]: expected Status, found string "Q": allowed values are "active", "suspended", "deleted" (main.mappings:11)"#,
                #"$.level: expected Int, found string "mid", which is not a whole number (main.mappings:13)"#,
            ])
    }

    @Test("serialize writes each mapped value back as its key (the @reverseValue choice), then maps back the same")
    func roundTrip() throws {
        let payload = try JSONParser.parse(
            #"{"name":"Ann","state":"S","history":["A","D","suspended"],"flags":{"a":"on"},"level":"high","verified":"Y"}"#
        )
        let first = try mapper.object(from: payload, context: "$Account")
        let back = try mapper.payload(from: first.value, context: "$Account")
        #expect(back.issues.isEmpty)
        #expect(
            JSONWriter.string(back.value)
                == #"{"name":"Ann","state":"S","history":["A","D","S"],"flags":{"a":"on"},"level":"high","verified":"y"}"#
        )
        let again = try mapper.object(from: try JSONParser.parse(JSONWriter.string(back.value)), context: "$Account")
        #expect(again.value == first.value)
        let chosen = try mapper.object(from: try JSONParser.parse(#"{"name":"B","state":1}"#), context: "$Account")
        #expect(
            try JSONWriter.string(mapper.payload(from: chosen.value, context: "$Account").value).contains(
                #""state":"A""#))
        let level = try mapper.object(from: try JSONParser.parse(#"{"s":0}"#), context: "$Json")
        #expect(try JSONWriter.string(mapper.payload(from: level.value, context: "$Json").value) == #"{"s":0}"#)
    }

    @Test("explain shows the value before and after the map")
    func explain() throws {
        let (_, explanations) = try mapper.explain(
            try JSONParser.parse(#"{"name":"Ann","state":"S","history":["A"],"level":3}"#), context: "$Account")
        let lines = explanations.map(\.description)
        #expect(lines.contains(#"Account.status <- $.state = "S" → "suspended" (@valueMap)  [main.mappings:8]"#))
        #expect(lines.contains(#"Account.history <- $.history = ["A"] → ["active"] (@valueMap)  [main.mappings:11]"#))
        #expect(lines.contains(#"Account.level <- $.level = 3  [main.mappings:13]"#))
    }

    enum Mood: String, CaseIterable, MappableValue {
        case up, down
        static var mappingType: TypeReference { .enumeration(Enumeration(Mood.self)) }
    }

    struct Person: MappedModel {
        var mood = Mood.up
        var moods: [Mood] = []
        static let mapping = TypedModel<Person>("Person", make: { Person() }) { person in
            person.bind("mood", \.mood)
            person.bind("moods", \.moods)
        }
    }

    @Test("a Swift enum with String raw values binds to an enum type, checked against a file's enum of that name")
    func typedEnum() throws {
        var definitions = Definitions()
        definitions.register(Person.self)
        let files = [
            "main.mappings": """
            { "@models": { "Mood": ["up", "down"] },
              "$Person": { "@class": "Person", "mood": { "@keyPath": "m", "@valueMap": { "+": "up", "-": "down" } },
                           "moods": { "@keyPath": "ms", "@optional": true } } }
            """
        ]
        let catalog = try Catalog.load(["main.mappings"], from: .memory(files), definitions: definitions)
        #expect(catalog.models["Person"]?.properties.map(\.type.description) == ["Mood", "[Mood]"])
        let mapper = Mapper(catalog: catalog)
        let person = try mapper.object(Person.self, from: ["m": "-", "ms": ["up", "sideways"]], context: "$Person")
        #expect(person.value.mood == .down)
        #expect(person.value.moods == [.up])
        #expect(
            person.issues.map(\.description) == [
                #"$.ms[1]: expected Mood, found string "sideways": allowed values are "up", "down" (main.mappings:3)"#
            ])
        #expect(
            try JSONWriter.string(mapper.payload(from: person.value, context: "$Person").value)
                == #"{"m":"-","ms":["up"]}"#)

        var wrong = files
        wrong["main.mappings"] =
            #"{ "@models": { "Mood": ["up", "flat"] }, "$Person": { "@class": "Person", "mood": "m", "moods": "ms" } }"#
        do {
            _ = try Catalog.load(["main.mappings"], from: .memory(wrong), definitions: definitions)
            Issue.record("the load succeeded")
        } catch {
            #expect(
                error.diagnostics.map(\.message)
                    == ["mood", "moods"].map {
                        #"the enum "Mood" of the property "\#($0)" of MappingsEngineTests.ValueMapTests.Person lists "up", "down" in Swift, "up", "flat" here"#
                    })
        }
    }
}
