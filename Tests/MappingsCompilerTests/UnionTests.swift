import Mappings
import MappingsTestSupport
import Testing

@Suite("unions: types, @discriminator, @cases and @otherwise at load time")
struct UnionTests {
    static let models = """
        "@models": { "Circle": { "r": "Double" }, "Rect": { "w": "Double" }, "Square": { "s": "Double" },
                     "Status": ["a", "b"],
                     "D": { "one": "Circle | Rect", "all": "[Circle | Rect]", "opt": "(Circle | Rect)?",
                            "map": "[String: Circle|Rect]", "circle": "Circle" } },
        "$Circle": { "@class": "Circle", "r": "r" },
        "$Rect": { "@class": "Rect", "w": "w" },
        "$Square": { "@class": "Square", "s": "s" },
        "$NoClass": { "r": "r" }
        """

    @Test("a union of models stands wherever a model does, and keeps its members in order")
    func types() throws {
        let catalog = try load("{ \(Self.models) }")
        let properties = try #require(catalog.models["D"]).properties
        #expect(
            properties.map(\.type.description) == [
                "Circle | Rect", "[Circle | Rect]", "(Circle | Rect)?", "[String: Circle | Rect]", "Circle",
            ])
        #expect(properties[1].type == .array(.union(["Circle", "Rect"])))
        #expect(properties[2].type.unionMembers == ["Circle", "Rect"])
        #expect(properties[4].type.unionMembers == nil)
    }

    @Test(
        "a malformed union type is an error at its place",
        arguments: [
            ("Circle | Rect?", "a member of a union is not optional on its own"),
            ("Circle? | Rect", "a member of a union is not optional on its own"),
            ("Circle | String", "a union's members are models, not String"),
            ("Circle | [Rect]", "a union's members are models, not [Rect]"),
            ("Circle | Circle", #""Circle" is listed twice in the union"#),
            ("Circle | (Rect | Square)", "a union does not nest in another"),
            ("Circle |", "a type is missing"),
            ("(Circle | Rect", #"this "(" is not closed"#),
        ])
    func malformedTypes(type: String, message: String) {
        let text = #"{ "@models": { "Circle": {}, "Rect": {}, "Square": {}, "D": { "x": "\#(type)" } } }"#
        #expect(failure(text).contains(message), "\(type)")
    }

    @Test("an enum is no member of a union")
    func enumMember() {
        #expect(
            failure(#"{ "@models": { "Circle": {}, "Status": ["a"], "D": { "x": "Circle | Status" } } }"#)
                .hasPrefix(#"error: a union's members are models, but "Status" is an enum"#))
    }

    @Test(
        "a union entry's mistakes are reported where they are written, with a suggestion",
        arguments: [
            (
                #""one": { "@keyPath": "x", "@object": { "@cases": { "c": "$Circle" } } }"#,
                #"error: "@cases" needs "@discriminator" beside it: the key path of the value that chooses"#
            ),
            (
                #""one": { "@keyPath": "x", "@object": { "@discriminator": "t" } }"#,
                #"error: "one" is Circle | Rect: its "@object" needs "@cases" to choose each object's member"#
            ),
            (
                #""one": { "@keyPath": "x", "@object": { "@discriminator": "t", "@cases": {} } }"#,
                #"error: "@cases" takes an object of discriminator values and contexts, not an empty object"#
            ),
            (
                #""one": { "@keyPath": "x", "@object": { "@discriminator": "t.0", "@cases": { "c": "$Circle" } } }"#,
                #"error: "@discriminator" is a key path of object keys, such as "type" or "meta.kind""#
            ),
            (
                #""one": { "@keyPath": "x", "@object": { "@discriminator": 3, "@cases": { "c": "$Circle" } } }"#,
                #"error: "@discriminator" takes the key path of the value that chooses, not a number"#
            ),
            (
                #""one": { "@keyPath": "x", "@object": { "@discriminator": "t", "@cases": { "c": 1 } } }"#,
                #"error: the case "c" maps with a context identifier or an inline context, not a number"#
            ),
            (
                #""one": { "@keyPath": "x", "@object": { "@discriminator": "t", "@cases": { "c": "$NoClass" } } }"#,
                #"error: the case "c" maps with "$NoClass", which names no "@class""#
            ),
            (
                #""one": { "@keyPath": "x", "@object": { "@discriminator": "t", "@cases": { "c": "$Circle" }, "@mappings": "$Circle" } }"#,
                #"error: the objects of a union are mapped by their "@cases", so "@mappings" has no place here"#
            ),
            (
                #""one": { "@keyPath": "x", "@object": { "@discriminator": "t", "@case": { "c": "$Circle" } } }"#,
                #"error: unknown keyword "@case" in the "@object" of a union"#
            ),
            (
                #""circle": { "@keyPath": "x", "@object": { "@discriminator": "t", "@cases": { "c": "$Circle" } } }"#,
                #"error: "@discriminator" chooses among the members of a union, but "circle" is Circle"#
            ),
            (
                #""one": { "@keyPath": "x", "@object": { "@discriminator": "t", "@cases": { "c": "$Circle" }, "@otherwise": "$Square" } }"#,
                #"error: "@otherwise" maps with "$Square", which builds Square, not a member of Circle | Rect"#
            ),
            (#""all": "x""#, #"error: "all" is [Circle | Rect]: an entry of a union chooses each object's member"#),
        ])
    func entryMistakes(entry: String, message: String) {
        let rendered = failure(#"{ \#(Self.models), "$D": { "@class": "D", \#(entry) } }"#)
        #expect(rendered.hasPrefix(message), "\(rendered)")
        #expect(rendered.contains(" --> main.mappings:"))
    }

    @Test("an inline context may be a case, and its class must be a member")
    func inlineCase() throws {
        let catalog = try load(
            #"{ \#(Self.models), "$D": { "@class": "D", "one": { "@keyPath": "x", "@object": { "@discriminator": "t", "#
                + #""@cases": { "c": { "@class": "Circle", "r": "radius" }, "r": "$Rect" } } } } }"#)
        let rule = try #require(catalog.context("$D")?.rules.first)
        #expect(rule.object?.union?.cases.map(\.model) == ["Circle", "Rect"])
        #expect(
            failure(
                #"{ \#(Self.models), "$D": { "@class": "D", "one": { "@keyPath": "x", "@object": { "@discriminator": "t", "#
                    + #""@cases": { "s": { "@class": "Square" } } } } } }"#
            ).hasPrefix(
                #"error: the case "s" maps with the context, which builds Square, not a member of Circle | Rect"#))
    }

    @Test("@keyStyle does not derive a union's entry: it must be written out")
    func keyStyle() {
        #expect(
            failure(#"{ \#(Self.models), "$D": { "@class": "D", "@keyStyle": "snake_case" } }"#)
                .contains(#"error: "one" is Circle | Rect: an entry of a union chooses each object's member"#))
    }

    @Test(
        "a selector comparing an unset trait inside a context is a warning; aliases, set traits and the top level are not",
        arguments: [
            (#"{ "$A": { "@when type == circle": {} } }"#, [:], 1),
            (#"{ "$A": { "x": { "@when type != circle": {} } } }"#, [:], 1),
            (#"{ "$A": { "@when type == circle": {} } }"#, ["type": "circle"], 0),
            (#"{ "@when region == eu": { "$A": {} } }"#, [:], 0),
            (#"{ "$A": { "@when apiVersion >= 2": {}, "@when beta": {}, "@debug": {}, "@iphone": {} } }"#, [:], 0),
            (#"{ "@models": { "@when kind == x": {} } }"#, [:], 0),
        ] as [(String, [String: String], Int)])
    func selectorWarnings(text: String, traits: [String: String], count: Int) throws {
        let catalog = try load(text, traits: Traits(traits))
        #expect(catalog.warnings.count == count)
        if count == 1 {
            #expect(catalog.warnings[0].message.hasPrefix(#""type" is a trait, not a payload key"#))
            #expect(catalog.warnings[0].location?.line == 1)
        }
    }
}
