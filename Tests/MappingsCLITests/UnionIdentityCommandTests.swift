import Foundation
import MappingsTestSupport
import Testing

@Suite("@identity on a collection of a union, through the tool")
struct UnionIdentityCommandTests {
    static let file = "Examples/language/canvas.mappings"
    static let example = ["--mappings", file, "--context", "$Canvas"]

    /// The canvas of `canvas1.json`, written where `--into` reads it.
    private func firstPage() throws -> (directory: URL, into: String) {
        let directory = try ToolRunner.directory(with: ["README": "the canvas goes here\n"])
        let first = try ToolRunner.run(["map"] + Self.example + ["Examples/language/canvas1.json"])
        #expect(first.status == 0 && first.stderr == "")
        let into = directory.appendingPathComponent("canvas.json")
        try first.stdout.write(to: into, atomically: true, encoding: .utf8)
        return (directory, into.path)
    }

    @Test(
        "map --into reads the union back by shape and syncs it by id across cases; a changed case replaces the element")
    func sync() throws {
        let (directory, into) = try firstPage()
        defer { try? FileManager.default.removeItem(at: directory) }
        let report = directory.appendingPathComponent("report.json").path
        let second = try ToolRunner.run(
            ["map"] + Self.example + ["--into", into, "--report", report, "Examples/language/canvas2.json"])
        #expect(second.status == 0)
        // 1 was a Circle and is a Rect now; 2 keeps its width; 3 (an unknown case, skipped) stays.
        #expect(
            second.stdout
                == #"{"shapes":[{"type":"rect","id":1,"width":6,"height":6},{"type":"rect","id":2,"width":3,"height":8},{"type":"circle","id":3,"radius":5},{"type":"circle","id":4,"radius":1}]}"#
                + "\n")
        #expect(
            second.stderr == """
                $.shapes[2].type: warning: unknown case "star" for Circle | Rect: the cases are "circle", "rect" (element skipped, @onElementError: skip) (\(Self.file):21)
                $.shapes: info: by id: 2 updated (1, 2), 1 added (4) (\(Self.file):23)

                """)
        let written = try String(contentsOfFile: report, encoding: .utf8)
        #expect(written.contains(#""kind":"collection changes","path":"$.shapes","property":"Canvas.shapes""#))
    }

    @Test("an identity a case's context does not map is stored from the payload, so the next sync matches it")
    func unmappedIdentity() throws {
        let file = """
            { "@models": { "Circle": { "id": "Int", "radius": "Double" }, "Rect": { "id": "Int", "w": "Double" },
                           "Drawing": { "shapes": "[Circle | Rect]" } },
              "$Circle": { "@class": "Circle", "radius": "r" },
              "$Rect": { "@class": "Rect", "id": "id", "w": "w" },
              "$Drawing": { "@class": "Drawing",
                "shapes": { "@keyPath": "shapes", "@identity": "id", "@clearContent": true, "@object": {
                  "@discriminator": "type", "@cases": { "circle": "$Circle", "rect": "$Rect" } } } } }
            """
        let directory = try ToolRunner.directory(with: [
            "d.mappings": file,
            "a.json": #"{"shapes":[{"type":"circle","id":1,"r":2},{"type":"rect","id":2,"w":1}]}"#,
            "b.json": #"{"shapes":[{"type":"circle","id":1,"r":3},{"type":"rect","id":3,"w":1}]}"#,
        ])
        defer { try? FileManager.default.removeItem(at: directory) }
        let arguments = ["--mappings", "d.mappings", "--context", "$Drawing"]
        let first = try ToolRunner.run(["map"] + arguments + ["a.json"], in: directory)
        #expect(
            first.stdout == #"{"shapes":[{"type":"circle","id":1,"radius":2},{"type":"rect","id":2,"w":1}]}"# + "\n")
        try first.stdout.write(to: directory.appendingPathComponent("into.json"), atomically: true, encoding: .utf8)
        let second = try ToolRunner.run(["map"] + arguments + ["--into", "into.json", "b.json"], in: directory)
        #expect(second.status == 0)
        #expect(
            second.stdout == #"{"shapes":[{"type":"circle","id":1,"radius":3},{"type":"rect","id":3,"w":1}]}"# + "\n")
        #expect(second.stderr.contains("by id: 1 updated (1), 1 added (3), 1 removed (2)"), "\(second.stderr)")
    }

    @Test("explain --into shows each element's case and the changes line")
    func explain() throws {
        let (directory, into) = try firstPage()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try ToolRunner.run(
            ["explain"] + Self.example + ["--into", into, "Examples/language/canvas2.json"])
        #expect(result.status == 0)
        #expect(
            result.stdout.contains(
                "Canvas.shapes[0] <- $.shapes[0].type = \"rect\" → Rect by $Rect (@cases)  [\(Self.file):21]\n"))
        #expect(
            result.stdout.contains(
                "Canvas.shapes <- $.shapes by id: 2 updated (1, 2), 1 added (4)  [\(Self.file):23]\n"))
    }

    @Test("without --into, two elements of one id in different cases merge, the later case winning")
    func duplicates() throws {
        let result = try ToolRunner.run(
            ["map"] + Self.example,
            input: #"{"shapes": [{"type": "circle", "id": 7, "r": 1}, {"type": "rect", "id": 7, "w": 2}]}"#)
        #expect(result.status == 0)
        #expect(result.stdout == #"{"shapes":[{"type":"rect","id":7,"width":2,"height":null}]}"# + "\n")
        #expect(
            result.stderr
                == "$.shapes[1]: warning: the elements [0] and [1] have the same id 7: merged in order, [1] wins (\(Self.file):23)\n"
        )
    }

    @Test("check refuses an identity a member lacks, naming the member")
    func check() throws {
        let text = try String(
            contentsOfFile: ToolRunner.packageRoot.appendingPathComponent(Self.file).path, encoding: .utf8)
        let directory = try ToolRunner.directory(with: [
            "contexts/lacks.mappings": text.replacingOccurrences(
                of: #""Rect": { "id": "Int""#, with: #""Rect": { "ident": "Int""#
            ).replacingOccurrences(
                of: "\"@class\": \"Rect\",\n        \"id\": \"id\"",
                with: "\"@class\": \"Rect\",\n        \"ident\": \"id\"")
        ])
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try ToolRunner.run(["check"], in: directory)
        #expect(result.status == 2)
        #expect(
            result.stderr == """
                error: "@identity" names "id", but Rect, a member of Circle | Rect, has no such property
                  --> contexts/lacks.mappings:23:26
                   |
                23 |             "@identity": "id",
                   |                          ^^^^
                   = help: its properties are "ident", "width", "height"

                mappings: 1 error found

                """)
    }
}
