import Foundation
import MappingsTestSupport
import Testing

/// The one shape of an issue and of a reject (docs/issue.schema.json), as each of the tool's
/// surfaces writes it: `map --report`, `stream --rejects` (values in error, a line that is not
/// JSON, a transformer failing), `stream --spark-frames`' reject frames — each checked by
/// Python's `jsonschema` against the schema. (`serve`'s and the playground's are checked in
/// integrations/serve and integrations/playground.)
@Suite("One shape for an issue and a reject")
struct IssueShapeTests {
    static let files = [
        "c.mappings": """
        { "@models": { "T": { "id": "Int", "name": "String", "shout": "String?" } },
          "$T": { "@class": "T", "id": "id", "name": "name",
                  "shout": { "@keyPath": "name", "@lua": "if value == 'boom' then error('no boom') end return value" } } }
        """,
        "in.ndjson": """
        {"id": 1, "name": "a"}
        {"id": "x", "name": "b"}
        not json
        {"id": 4}
        {"id": 5, "name": "boom"}
        {"id": 6, "name": "f", "extra": [1, 2

        """,
        "one.json": #"{"id": "seven"}"#,
    ]

    /// Checks each of `documents` (JSON texts) against the schema's `definition` (`issue` or
    /// `reject`); returns the errors, one line each.
    static func errors(_ documents: [String], definition: String, python: URL) throws -> String {
        let folder = try ToolRunner.directory(with: ["documents.ndjson": documents.joined(separator: "\n") + "\n"])
        defer { try? FileManager.default.removeItem(at: folder) }
        let schema = ToolRunner.packageRoot.appendingPathComponent("docs/issue.schema.json").path
        let check = try ToolRunner.runProgram(
            python, ["-c", Self.validator, schema, definition, "documents.ndjson"], in: folder)
        #expect(check.stderr == "")
        return check.stdout
    }

    static let validator = """
        import json, sys
        from jsonschema import Draft202012Validator
        schema = json.load(open(sys.argv[1]))
        Draft202012Validator.check_schema(schema)
        wanted = {"$ref": "#/$defs/" + sys.argv[2], "$defs": schema["$defs"]}
        validator = Draft202012Validator(wanted)
        for number, line in enumerate(open(sys.argv[3]), 1):
            for error in validator.iter_errors(json.loads(line)):
                print(f"document {number}: {error.json_path}: {error.message}")
        """

    @Test("map --report, stream --rejects and --spark-frames' rejects have the schema's shape")
    func surfaces() throws {
        guard let python = PythonEnvironment.python() else { return }
        let directory = try ToolRunner.directory(with: Self.files)
        defer { try? FileManager.default.removeItem(at: directory) }

        let map = try ToolRunner.run(
            ["map", "--context", "$T", "--mappings", "c.mappings", "--report", "report.json", "one.json"],
            in: directory)
        #expect(map.status == 1)
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: directory.appendingPathComponent("report.json")))
                as? [Any])
        let reported = try report.map {
            String(decoding: try JSONSerialization.data(withJSONObject: $0), as: UTF8.self)
        }
        #expect(reported.count == 3)
        #expect(try Self.errors(reported, definition: "issue", python: python) == "")

        let stream = try ToolRunner.run(
            ["stream", "--context", "$T", "--mappings", "c.mappings", "--rejects", "rejects.ndjson", "in.ndjson"],
            in: directory)
        #expect(stream.status == 1)
        let rejects = try String(contentsOf: directory.appendingPathComponent("rejects.ndjson"), encoding: .utf8)
            .split(separator: "\n").map(String.init)
        #expect(rejects.count == 5)
        #expect(try Self.errors(rejects, definition: "reject", python: python) == "")
        // A line that is not JSON has an issue like any other: at `$`, for the model, from the context's rule.
        let invalid = try #require(rejects.first { $0.contains(#""line":3"#) })
        #expect(
            invalid.contains(#""kind":"invalid JSON","path":"$","property":"T","rule":"c.mappings:2""#), "\(invalid)")
        // Without --rejects, each reject is a line on stderr: a record's own issue says its kind, not `$`.
        let summarized = try ToolRunner.run(
            ["stream", "--context", "$T", "--mappings", "c.mappings", "in.ndjson"], in: directory)
        #expect(summarized.stderr.contains("in.ndjson:3: rejected: invalid JSON: column 1: "), "\(summarized.stderr)")
        #expect(summarized.stderr.contains("in.ndjson:2: rejected: $.id: expected Int"), "\(summarized.stderr)")

        let frames = try ToolRunner.runProgram(
            ToolRunner.executable,
            ["stream", "--context", "$T", "--mappings", "c.mappings", "--spark-frames", "in.ndjson"],
            in: directory, binaryStdout: true)
        let sparkRejects = SparkFramesTests.frames(frames.stdoutBytes).filter { $0.kind == "r" }
            .map { String(decoding: $0.payload, as: UTF8.self) }
        #expect(sparkRejects.count == 5)
        #expect(try Self.errors(sparkRejects, definition: "reject", python: python) == "")
    }

    @Test("the schema refuses what is not the shape: a field missing, renamed or of another type")
    func refusals() throws {
        guard let python = PythonEnvironment.python() else { return }
        let issue =
            #"{"kind":"k","path":"$.a","property":"T.a","rule":"c.mappings:2","provenance":"c.mappings:2","message":"m","severity":"error"}"#
        #expect(try Self.errors([issue], definition: "issue", python: python) == "")
        let wrong = [
            issue.replacingOccurrences(of: #""kind":"k","#, with: ""),
            issue.replacingOccurrences(of: #""message""#, with: #""reason""#),
            issue.replacingOccurrences(of: #""path":"$.a""#, with: #""path":"a""#),
            #"{"line":0,"issues":[\#(issue)]}"#,
            #"{"line":1,"issues":[]}"#,
        ]
        let errors =
            try Self.errors(Array(wrong.prefix(3)), definition: "issue", python: python)
            + Self.errors(Array(wrong.suffix(2)), definition: "reject", python: python)
        for number in 1...3 { #expect(errors.contains("document \(number):"), "\(errors)") }
        #expect(errors.split(separator: "\n").count >= 5, "\(errors)")
    }
}
