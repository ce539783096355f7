import MappingsJSON
import MappingsModel
import MappingsTestSupport
import Testing

@testable import MappingsCompiler

@Suite("compiling @identity on collections of unions, and unions in nested collections and sets")
struct UnionIdentityCompilationTests {
    /// A drawing whose `Rect` member declares `rectId` instead of `id` when `rectKey` says so,
    /// and its `id` of type `rectType`.
    private func file(identity: String, rectKey: String = "id", rectType: String = "Int") -> String {
        """
        {
            "@models": {
                "Circle": { "id": "Int", "radius": "Double?" },
                "Rect": { "\(rectKey)": "\(rectType)", "width": "Double?" },
                "Drawing": { "shapes": "[Circle | Rect]" }
            },
            "$Circle": { "@class": "Circle", "radius": "r" },
            "$Rect": { "@class": "Rect", "width": "w" },
            "$Drawing": { "@class": "Drawing", "shapes": { "@keyPath": "shapes", "@identity": \(identity),
                "@object": { "@discriminator": "type", "@cases": { "circle": "$Circle", "rect": "$Rect" } } } }
        }
        """
    }

    @Test("the identity of a union names the slots of the property in every member, in the union's order")
    func compiled() throws {
        let catalog = try load(file(identity: #"["id"]"#))
        let identity = try #require(catalog.context("$Drawing")?.rules.first?.policies.identity)
        #expect(identity.properties == ["id"])
        #expect(identity.models.map(\.model) == ["Circle", "Rect"])
        #expect(identity.models.map(\.slots) == [[0], [0]])
    }

    @Test("a member without the identity property is an error at the name, naming the member, with a did you mean")
    func missingInMember() {
        #expect(
            failure(file(identity: #""id""#, rectKey: "ids"))
                == """
                error: "@identity" names "id", but Rect, a member of Circle | Rect, has no such property
                 --> main.mappings:9:87
                  |
                9 |     "$Drawing": { "@class": "Drawing", "shapes": { "@keyPath": "shapes", "@identity": "id",
                  |                                                                                       ^^^^
                  = help: did you mean "ids"?
                """)
    }

    @Test("members that declare the identity with different types are an error naming both")
    func differentTypes() {
        #expect(
            failure(file(identity: #""id""#, rectType: "String?"))
                == """
                error: "@identity" compares "id" across Circle | Rect, but Circle.id is Int and Rect.id is String?
                 --> main.mappings:9:87
                  |
                9 |     "$Drawing": { "@class": "Drawing", "shapes": { "@keyPath": "shapes", "@identity": "id",
                  |                                                                                       ^^^^
                  = help: declare "id" with the same type in every member, or identify by another property
                """)
    }

    @Test("an optional and a plain declaration of the same type are compatible")
    func optionalCompatible() throws {
        let catalog = try load(file(identity: #""id""#, rectType: "Int?"))
        #expect(catalog.context("$Drawing")?.rules.first?.policies.identity?.models.count == 2)
    }

    @Test("a union in nested collections chooses each object's member; a set of a union is refused")
    func nestedAndSets() throws {
        let nested = """
            {
                "@models": { "A": { "x": "Int" }, "B": { "y": "Int" }, "D": { "grid": "[[A | B]]", "by": "[String: [A | B]]" } },
                "$A": { "@class": "A", "x": "x" }, "$B": { "@class": "B", "y": "y" },
                "$D": { "@class": "D",
                    "grid": { "@keyPath": "g", "@object": { "@discriminator": "t", "@cases": { "a": "$A", "b": "$B" } } },
                    "by": { "@keyPath": "m", "@object": { "@discriminator": "t", "@cases": { "a": "$A", "b": "$B" } } } }
            }
            """
        let rules = try #require(try load(nested).context("$D")?.rules)
        #expect(rules.map { $0.object?.union?.cases.map(\.model) } == [["A", "B"], ["A", "B"]])
        #expect(
            failure(#"{ "@models": { "A": { "x": "Int" }, "B": { "y": "Int" }, "D": { "s": "{A | B}" } } }"#)
                == """
                error: in the type of "s": a set holds single values (String, Int, Double, Decimal, Bool, Date, URL, UUID or an enum), not A | B
                 --> main.mappings:1:70
                  |
                1 | { "@models": { "A": { "x": "Int" }, "B": { "y": "Int" }, "D": { "s": "{A | B}" } } }
                  |                                                                      ^^^^^^^^^
                  = help: use an array, [T], for models, unions and collections
                """)
    }

    @Test("a nested collection of a union without @cases says how to choose")
    func nestedNeedsCases() {
        let text = """
            {
                "@models": { "A": { "x": "Int" }, "B": { "y": "Int" }, "D": { "grid": "[[A | B]]" } },
                "$D": { "@class": "D", "grid": "g" }
            }
            """
        #expect(
            failure(text).contains(#"error: "grid" is [[A | B]]: an entry of a union chooses each object's member"#))
    }
}
