import Foundation
import Mappings
import MappingsTestSupport
import Testing

/// Strings the language compares exactly compare by code points: `"é"` written as U+00E9 and
/// as `e` + U+0301 are two values, though Swift's `==` finds them equal.
@Suite("exact values: enums, @valueMap, @cases and .mappings keys compare by code points")
struct ExactValueTests {
    static let precomposed = "\u{E9}"
    static let decomposed = "e\u{301}"

    static let contexts = """
        { "@models": { "Circle": { "r": "Double" }, "Rect": { "w": "Double" },
                       "S": ["\\u00e9"], "A": { "s": "S?", "v": "String?", "o": "(Circle | Rect)?" } },
          "$Circle": { "@class": "Circle", "r": "r" },
          "$Rect": { "@class": "Rect", "w": "w" },
          "$A": { "@class": "A", "s": { "@keyPath": "s", "@optional": true },
                  "v": { "@keyPath": "v", "@optional": true, "@valueMap": { "\\u00e9": "precomposed" } },
                  "o": { "@keyPath": "o", "@optional": true,
                         "@object": { "@discriminator": "t", "@cases": { "\\u00e9": "$Circle", "r": "$Rect" } } } } }
        """

    @Test("a decomposed é is not the enum's, the map's or the case's precomposed é")
    func decomposedIsAnotherValue() throws {
        let mapper = Mapper(catalog: try load(Self.contexts))
        let context = try mapper.context("$A")
        let other = mapper.object(
            from: ["s": .string(Self.decomposed), "v": .string(Self.decomposed), "o": ["t": .string(Self.decomposed)]],
            using: context)
        #expect(other.issues.map(\.kind) == [.conversionFailed, .unknownCase])
        #expect(other.issues.map(\.path) == ["$.s", "$.o.t"])
        // The suggestion shows both spellings, which print alike.
        #expect(other.issues.first?.message.contains("(U+00E9, not U+0065 U+0301)") == true)
        guard case .object(let object) = other.value else {
            Issue.record("no object")
            return
        }
        #expect(object["v"] == .string(Self.decomposed))

        let same = mapper.object(
            from: [
                "s": .string(Self.precomposed), "v": .string(Self.precomposed),
                "o": ["t": .string(Self.precomposed), "r": 1],
            ],
            using: context)
        #expect(same.issues.isEmpty)
        #expect(
            same.value.jsonText
                == #"{"s":"\#(Self.precomposed)","v":"precomposed","o":{"t":"\#(Self.precomposed)","r":1}}"#)
    }

    @Test(
        "values that differ only in composition are two values when the file loads",
        arguments: [
            #"{ "@models": { "S": ["\u00e9", "e\u0301"] } }"#,
            #"{ "@models": { "M": { "v": "String" } }, "$M": { "@class": "M", "v": { "@keyPath": "v", "@valueMap": { "a": "\u00e9", "b": "e\u0301" } } } }"#,
            #"{ "@models": { "M": { "v": "String" } }, "$M": { "@class": "M", "v": { "@keyPath": "v", "@valueMap": { "\u00e9": "a", "e\u0301": "b" } } } }"#,
            #"{ "$U": { "v": { "@keyPath": "v", "@object": { "@cases": { "\u00e9": "$X", "e\u0301": "$Y" }, "@discriminator": "t" } } } }"#,
        ])
    func distinctAtLoad(file: String) throws {
        do {
            _ = try load(file)
        } catch {
            // Only the enum, the maps and the keys are checked here: a case naming no context is fine to report.
            #expect(!error.description.contains("twice"), "\(error.description)")
            #expect(!error.description.contains("one-to-one"), "\(error.description)")
            #expect(!error.description.contains("duplicate key"), "\(error.description)")
        }
    }

    @Test("@valueMap on a JSON entry compares mapped strings by their text: @reverseValue settles two keys")
    func jsonEntryReverseValue() throws {
        let catalog = try load(
            #"{ "$A": { "v": { "@keyPath": "v", "@valueMap": { "a": "x", "b": "x" }, "@reverseValue": { "x": "a" } } } }"#
        )
        let mapper = Mapper(catalog: catalog)
        let context = try mapper.context("$A")
        let mapped = mapper.object(from: ["v": "b"], using: context)
        #expect(mapped.value.jsonText == #"{"v":"x"}"#)
        #expect(mapper.payload(from: mapped.value, using: context).value.jsonText == #"{"v":"a"}"#)
        let ambiguous = failure(#"{ "$A": { "v": { "@keyPath": "v", "@valueMap": { "a": "x", "b": "x" } } } }"#)
        #expect(ambiguous.contains(#"map to "x", and serialize cannot choose"#), "\(ambiguous)")
        #expect(ambiguous.contains(#"help: say which one is written back: "@reverseValue": { "x": "a" }"#))
    }
}

@Suite("unions: sets, collections of collections, discriminators read through values")
struct UnionShapeTests {
    static let models = """
        "@models": { "Circle": { "r": "Double" }, "Rect": { "w": "Double" },
                     "D": { "g": "[[Circle | Rect]]", "m": "[String: [Circle | Rect]]?", "o": "(Circle | Rect)?" } },
        "$Circle": { "@class": "Circle", "r": "r" },
        "$Rect": { "@class": "Rect", "w": "w" }
        """

    @Test("a set of a union is refused where its type is written", arguments: ["{Circle | Rect}", "{Circle | Rect}?"])
    func setOfUnion(type: String) {
        let rendered = failure(#"{ "@models": { "Circle": {}, "Rect": {}, "D": { "s": "\#(type)" } } }"#)
        #expect(rendered.hasPrefix(#"error: in the type of "s": a set holds single values"#), "\(rendered)")
        #expect(rendered.contains("not Circle | Rect"))
        #expect(rendered.contains("main.mappings:1:"))
    }

    @Test("[[Circle | Rect]] and [String: [Circle | Rect]] choose each object at the bottom, and serialize back")
    func nestedCollections() throws {
        let catalog = try load(
            """
            { \(Self.models),
              "$D": { "@class": "D",
                "g": { "@keyPath": "g", "@object": { "@discriminator": "t", "@cases": { "c": "$Circle", "r": "$Rect" } } },
                "m": { "@keyPath": "m", "@optional": true,
                       "@object": { "@discriminator": "t", "@cases": { "c": "$Circle", "r": "$Rect" } } } } }
            """)
        let mapper = Mapper(catalog: catalog)
        let context = try mapper.context("$D")
        let payload = """
            {"g": [[{"t": "c", "r": 1}], [{"t": "r", "w": 2}, {"t": "q"}]], "m": {"a": [{"t": "r", "w": 3}]}}
            """
        let full = mapper.object(from: try JSONParser.parse(Array(payload.utf8)), using: context)
        #expect(
            full.value.jsonText
                == #"{"g":[[{"t":"c","r":1}],[{"t":"r","w":2},null]],"m":{"a":[{"t":"r","w":3}]},"o":null}"#)
        #expect(full.issues.map(\.path) == ["$.g[1][1].t"])
        #expect(full.issues.first?.message.hasPrefix(#"unknown case "q" for Circle | Rect:"#) == true)
        // Parsing only what the contexts read gives the same.
        let onDemand = try mapper.object(fromJSON: Array(payload.utf8), using: context)
        #expect(onDemand.value == full.value && onDemand.issues == full.issues)

        // The output schema nests as the type does: arrays of arrays, maps of arrays; each
        // member with its discriminator.
        let members =
            ##"{"anyOf":[{"$ref":"#/$defs/$Circle%20%28by%20t%29"},{"$ref":"#/$defs/$Rect%20%28by%20t%29"}]}"##
        #expect(
            catalog.outputSchema(of: context, as: .jsonSchema).jsonText.contains(
                ##""$Circle (by t)":{"title":"Circle","type":"object","properties":{"t":{"enum":["c"]},"r":{"type":"number"}},"required":["t","r"],"additionalProperties":false}"##
            ))
        let schema = catalog.outputSchema(of: context, as: .jsonSchema).jsonText
        #expect(schema.contains(#""g":{"type":"array","items":{"type":"array","items":\#(members)}}"#), "\(schema)")
        #expect(
            schema.contains(
                #""m":{"type":["object","null"],"additionalProperties":{"type":"array","items":\#(members)}}"#),
            "\(schema)")

        let clean = mapper.object(
            from: ["g": [[["t": "c", "r": 1]], [["t": "r", "w": 2]]], "m": ["a": [["t": "r", "w": 3]]]], using: context)
        let back = mapper.payload(from: clean.value, using: context)
        #expect(back.issues.isEmpty)
        #expect(
            back.value.jsonText == #"{"g":[[{"t":"c","r":1}],[{"t":"r","w":2}]],"m":{"a":[{"t":"r","w":3}]}}"#)
    }

    @Test("a discriminator read through a value that is no object is said as a key path says it")
    func discriminatorThroughString() throws {
        let entry =
            #""o": { "@keyPath": "o", "@optional": true, "@object": { "@discriminator": "k.t", "@cases": { "1": "$Circle", "r": "$Rect" } } }"#
        let mapper = Mapper(catalog: try load(#"{ \#(Self.models), "$D": { "@class": "D", \#(entry) } }"#))
        let context = try mapper.context("$D")
        let through = mapper.object(from: ["o": ["k": "r"]], using: context)
        #expect(through.issues.map(\.kind) == [.invalidSource])
        #expect(through.issues.map(\.path) == ["$.o.k"])
        #expect(through.issues.first?.message == #"cannot read "t" from string "r""#)
        // A one-letter value is not "close" to a one-letter case that shares nothing with it.
        let unknown = mapper.object(from: ["o": ["k": ["t": "x"]]], using: context)
        #expect(unknown.issues.first?.message == #"unknown case "x" for Circle | Rect: the cases are "1", "r""#)
    }

    @Test("a missing @cases beside @discriminator asks for @cases only")
    func missingCasesHelp() {
        let rendered = failure(
            #"{ \#(Self.models), "$D": { "@class": "D", "o": { "@keyPath": "o", "@object": { "@discriminator": "t" } } } }"#
        )
        #expect(rendered.contains(#"help: add "@cases": {"#), "\(rendered)")
        #expect(!rendered.contains(#"add "@discriminator""#))
    }
}
