import Foundation
import MappingsTestSupport
import Testing

@Suite("unions, through the tool")
struct UnionCommandTests {
    static let shapes = """
        {
          "@models": {
            "Circle": { "radius": "Double" },
            "Rect": { "w": "Double", "h": "Double" },
            "Drawing": { "shapes": "[Circle | Rect]", "main": "(Circle | Rect)?" }
          },
          "$Circle": { "@class": "Circle", "radius": "r" },
          "$Rect": { "@class": "Rect", "w": "size.w", "h": "size.h" },
          "$Drawing": {
            "@class": "Drawing",
            "shapes": { "@keyPath": "shapes", "@object": {
              "@discriminator": "type", "@cases": { "circle": "$Circle", "rect": "$Rect" } } },
            "main": { "@keyPath": "main", "@optional": true, "@object": {
              "@discriminator": "kind", "@cases": { "1": "$Circle", "2": "$Rect" } } },
            "@tests": [
              { "name": "a circle and a rect",
                "input": { "shapes": [{ "type": "circle", "r": 1 }, { "type": "rect", "size": { "w": 2, "h": 3 } }] },
                "output": { "shapes": [{ "type": "circle", "radius": 1 }, { "type": "rect", "w": 2, "h": 3 }], "main": null } },
              { "name": "an unknown case", "input": { "shapes": [{ "type": "star" }] },
                "issues": [{ "kind": "unknown case", "path": "$.shapes[0].type" }] }
            ]
          }
        }
        """
    static let payload =
        #"{"shapes":[{"type":"circle","r":1.5},{"type":"rect","size":{"w":2,"h":3}}],"main":{"kind":2,"size":{"w":1,"h":1}}}"#

    @Test("map chooses each object's case; serialize writes the discriminator back, and the payload round-trips")
    func mapAndSerialize() throws {
        let directory = try ToolRunner.directory(with: ["contexts/shapes.mappings": Self.shapes])
        let mapped = try ToolRunner.run(["map", "--context", "$Drawing"], in: directory, input: Self.payload)
        #expect(mapped.stderr == "")
        // Each object carries its discriminator as the payload had it (`2` a number, here).
        #expect(
            mapped.stdout
                == #"{"shapes":[{"type":"circle","radius":1.5},{"type":"rect","w":2,"h":3}],"main":{"kind":2,"w":1,"h":1}}"#
                + "\n")
        #expect(mapped.status == 0)

        let back = try ToolRunner.run(["serialize", "--context", "$Drawing"], in: directory, input: mapped.stdout)
        #expect(back.stderr == "")
        #expect(back.stdout == Self.payload + "\n")
        #expect(back.status == 0)
    }

    @Test("an unknown, missing or non-object case is an issue naming the element, the value and the cases")
    func unknownCases() throws {
        let directory = try ToolRunner.directory(with: ["contexts/shapes.mappings": Self.shapes])
        let result = try ToolRunner.run(
            ["map", "--context", "$Drawing"], in: directory,
            input:
                #"{"shapes":[{"type":"circel","r":1},{"r":2},"x",{"type":"rect","size":{"w":1,"h":1}}],"main":{"kind":true}}"#
        )
        #expect(result.stdout == #"{"shapes":[null,null,null,{"type":"rect","w":1,"h":1}],"main":null}"# + "\n")
        #expect(
            result.stderr == """
                $.shapes[0].type: unknown case "circel" for Circle | Rect: the cases are "circle", "rect"; did you mean "circle"? (contexts/shapes.mappings:11)
                $.shapes[1].type: missing discriminator "type" for Circle | Rect: the cases are "circle", "rect" (contexts/shapes.mappings:11)
                $.shapes[2]: expected Circle | Rect, found string "x" (contexts/shapes.mappings:11)
                $.main.kind: unknown case true for Circle | Rect: the cases are "1", "2" (contexts/shapes.mappings:13)

                """)
        #expect(result.status == 1)
    }

    @Test("explain shows which case each object took, and why")
    func explain() throws {
        let directory = try ToolRunner.directory(with: ["contexts/shapes.mappings": Self.shapes])
        let result = try ToolRunner.run(
            ["explain", "--context", "$Drawing"], in: directory,
            input: #"{"shapes":[{"type":"circle","r":1}],"main":{"kind":"1","r":2}}"#)
        #expect(result.status == 0)
        #expect(
            result.stdout.hasPrefix(
                """
                Drawing.shapes <- $.shapes = [{"type":"circle","r":1}]  [contexts/shapes.mappings:11]
                Drawing.shapes[0] <- $.shapes[0].type = "circle" → Circle by $Circle (@cases)  [contexts/shapes.mappings:11]
                Drawing.shapes[0].radius <- $.shapes[0].r = 1  [contexts/shapes.mappings:7]
                Drawing.main <- $.main = {"kind":"1","r":2}  [contexts/shapes.mappings:13]
                Drawing.main <- $.main.kind = "1" → Circle by $Circle (@cases)  [contexts/shapes.mappings:13]
                Drawing.main.radius <- $.main.r = 2  [contexts/shapes.mappings:7]
                """))
    }

    @Test("@tests run over a union")
    func tests() throws {
        let directory = try ToolRunner.directory(with: ["contexts/shapes.mappings": Self.shapes])
        let result = try ToolRunner.run(["test"], in: directory)
        #expect(result.status == 0)
        #expect(result.stdout.contains("mappings test: 2 passed, 0 failed"))
    }

    @Test("check reports union mistakes with file:line:column, a caret and a suggestion")
    func checkErrors() throws {
        let directory = try ToolRunner.directory(with: [
            "contexts/shapes.mappings": """
            {
              "@models": { "Circle": { "r": "Double" }, "Rect": { "w": "Double" }, "Square": { "s": "Double" },
                           "D": { "all": "[Circle | Rect]", "main": "Circle | Rect", "one": "Circle", "bad": "Circle | Rect?" } },
              "$Circle": { "@class": "Circle", "r": "r" },
              "$Square": { "@class": "Square", "s": "s" },
              "$D": { "@class": "D",
                "all": { "@keyPath": "all", "@object": { "@discriminator": "type",
                         "@cases": { "circle": "$Circel", "square": "$Square" }, "@otherwise": "$Square" } },
                "main": "main",
                "one": { "@keyPath": "one", "@object": { "@discriminator": "type", "@cases": { "c": "$Circle" } } } }
            }
            """
        ])
        let result = try ToolRunner.run(["check"], in: directory)
        #expect(result.status == 2)
        #expect(result.stdout == "")
        #expect(
            result.stderr == """
                error: in the type of "bad": a member of a union is not optional on its own
                 --> contexts/shapes.mappings:3:108
                  |
                3 |                "D": { "all": "[Circle | Rect]", "main": "Circle | Rect", "one": "Circle", "bad": "Circle | Rect?" } },
                  |                                                                                                            ^^^^^
                  = help: make the whole union optional: (A | B)?

                error: "@cases" "$Circel" names no context
                 --> contexts/shapes.mappings:8:36
                  |
                8 |              "@cases": { "circle": "$Circel", "square": "$Square" }, "@otherwise": "$Square" } },
                  |                                    ^^^^^^^^^
                  = help: did you mean "$Circle"?

                error: the case "square" maps with "$Square", which builds Square, not a member of Circle | Rect
                 --> contexts/shapes.mappings:8:57
                  |
                8 |              "@cases": { "circle": "$Circel", "square": "$Square" }, "@otherwise": "$Square" } },
                  |                                                         ^^^^^^^^^
                  = help: add Square to the union, or map the case with a context that builds one of Circle, Rect

                error: "@otherwise" maps with "$Square", which builds Square, not a member of Circle | Rect
                 --> contexts/shapes.mappings:8:84
                  |
                8 |              "@cases": { "circle": "$Circel", "square": "$Square" }, "@otherwise": "$Square" } },
                  |                                                                                    ^^^^^^^^^
                  = help: add Square to the union, or map the case with a context that builds one of Circle, Rect

                error: "main" is Circle | Rect: an entry of a union chooses each object's member
                 --> contexts/shapes.mappings:9:5
                  |
                9 |     "main": "main",
                  |     ^^^^^^
                  = help: add "@object": { "@discriminator": "type", "@cases": { "circle": "$Circle", … } }

                error: "@discriminator" chooses among the members of a union, but "one" is Circle
                  --> contexts/shapes.mappings:10:46
                   |
                10 |     "one": { "@keyPath": "one", "@object": { "@discriminator": "type", "@cases": { "c": "$Circle" } } } }
                   |                                              ^^^^^^^^^^^^^^^^
                   = help: declare "one" as a union of models, such as "Circle | Rect", or remove "@discriminator"

                mappings: 6 errors found

                """)
    }

    @Test(
        "a selector over an unset trait inside a context is a warning (also beside errors): it reads like a payload test"
    )
    func payloadTestWarning() throws {
        let directory = try ToolRunner.directory(with: [
            "contexts/shapes.mappings": """
            {
              "@models": { "Circle": { "radius": "Double" } },
              "@when region == eu": { "$EU": { "@class": "Circle", "radius": "r" } },
              "$Shape": { "@class": "Circle", "radius": "r",
                "@when type == circle": { "radius": "radius" },
                "@when apiVersion >= 2": { "radius": "rad" },
                "@debug": { "radius": "d" } }
            }
            """
        ])
        let result = try ToolRunner.run(["check"], in: directory)
        #expect(result.status == 0)
        #expect(result.stdout == "ok: 1 context, 1 model in 1 file\n")
        #expect(
            result.stderr == """
                warning: "type" is a trait, not a payload key: no trait "type" is set, so "@when type == circle" never holds
                 --> contexts/shapes.mappings:5:5
                  |
                5 |     "@when type == circle": { "radius": "radius" },
                  |     ^^^^^^^^^^^^^^^^^^^^^^
                  = help: to choose by a payload value use "@discriminator" and "@cases"; to test a trait, set it (--trait type=circle)

                """)
        let set = try ToolRunner.run(["check", "--trait", "type=square"], in: directory)
        #expect(set.stderr == "")
        #expect(set.status == 0)

        let failing = try ToolRunner.directory(with: [
            "contexts/shapes.mappings": #"{ "$Shape": { "@class": "Circl", "@when type == circle": {} } }"#
        ])
        let failed = try ToolRunner.run(["check"], in: failing)
        #expect(failed.status == 2)
        #expect(
            failed.stderr == """
                error: unknown class "Circl"
                 --> contexts/shapes.mappings:1:25
                  |
                1 | { "$Shape": { "@class": "Circl", "@when type == circle": {} } }
                  |                         ^^^^^^^
                  = help: declare it under "@models", such as "Circl": { "name": "String" }; from a Swift host, register the type bound to it: definitions.register(T.self), T declared @MappedModel("Circl")

                warning: "type" is a trait, not a payload key: no trait "type" is set, so "@when type == circle" never holds
                 --> contexts/shapes.mappings:1:34
                  |
                1 | { "$Shape": { "@class": "Circl", "@when type == circle": {} } }
                  |                                  ^^^^^^^^^^^^^^^^^^^^^^
                  = help: to choose by a payload value use "@discriminator" and "@cases"; to test a trait, set it (--trait type=circle)

                mappings: 1 error found

                """)
    }
}
