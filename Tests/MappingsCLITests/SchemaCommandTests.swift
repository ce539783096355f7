import Foundation
import MappingsTestSupport
import Testing

/// `mappings schema`: real outputs of `mappings map` validate against the JSON Schema it
/// writes, checked by Python's `jsonschema` (draft 2020-12, formats checked).
@Suite("mappings schema, against real outputs")
struct SchemaCommandTests {
    /// Contexts beside the shipped ones: enums, dictionaries of built objects, decimals, UUIDs,
    /// JSON, a recursive model, dotted targets and a context without a model.
    static let shapes = """
        {
          "@models": {
            "Status": ["active", "suspended"],
            "Node": { "name": "String", "children": "[Node]", "parent": "Node?" },
            "Account": { "id": "UUID", "status": "Status", "balance": "Decimal", "extra": "JSON",
                         "seen": "[String: Date]", "owners": "[String: Node]", "history": "[Status?]",
                         "home": "Node?", "note": "String?" }
          },
          "$Node": { "@class": "Node", "name": "name",
                     "children": { "@keyPath": "kids", "@optional": true, "@object": { "@mappings": "$Node" } } },
          "$Account": {
            "@class": "Account", "id": "id", "status": "state", "balance": "balance",
            "extra": { "@keyPath": "extra", "@optional": true },
            "seen": { "@keyPath": "seen", "@defaultValue": {} },
            "owners": { "@keyPath": "owners", "@optional": true, "@object": { "@mappings": "$Node" } },
            "history": { "@keyPath": "history", "@optional": true },
            "home.name": { "@keyPath": "home_name", "@optional": true }
          },
          "$Summary": {
            "id": { "@keyPath": "id", "@type": "UUID" },
            "when": { "@keyPath": "at", "@type": "Date", "@optional": true },
            "where.city": "city",
            "raw": { "@keyPath": "raw", "@optional": true },
            "tree": { "@keyPath": "tree", "@object": { "@mappings": "$Node" }, "@optional": true }
          }
        }
        """

    static let shapePayloads: [(context: String, payload: String)] = [
        (
            "$Account",
            #"{"id":"6f1c3a52-8d1e-4c0b-9a57-2b1e0f6a7c11","state":"active","balance":"12345678901234567890.125","#
                + #""extra":{"a":[1,null]},"seen":{"x":"2024-02-03T04:05:06.5+01:00","y":1700000000},"#
                + #""owners":{"ann":{"name":"Ann","kids":[{"name":"Bo"}]}},"history":["suspended"],"home_name":"Elm"}"#
        ),
        ("$Account", #"{"id":"6f1c3a52-8d1e-4c0b-9a57-2b1e0f6a7c11","state":"suspended","balance":0}"#),
        ("$Summary", #"{"id":"6f1c3a52-8d1e-4c0b-9a57-2b1e0f6a7c11","city":"Oslo","tree":{"name":"a","kids":[]}}"#),
        (
            "$Summary",
            #"{"id":"6f1c3a52-8d1e-4c0b-9a57-2b1e0f6a7c11","at":"2012-08-29T14:40:05.123456-02:00","city":"Oslo","#
                + #""raw":[1,{"b":true}]}"#
        ),
    ]

    /// Maps `payload` with `context` and checks the output against the context's schema;
    /// returns the validator's complaints (empty when the output is valid).
    static func complaints(
        about outputs: [String], context: String, arguments: [String], in directory: URL = ToolRunner.packageRoot,
        python: URL
    ) throws -> String {
        let schema = try ToolRunner.run(["schema", "--context", context] + arguments, in: directory)
        #expect(schema.status == 0, "\(schema.stderr)")
        let folder = try ToolRunner.directory(with: [
            "schema.json": schema.stdout, "outputs.ndjson": outputs.joined(separator: "\n") + "\n",
        ])
        defer { try? FileManager.default.removeItem(at: folder) }
        let check = try ToolRunner.runProgram(
            python, ["-c", Self.validator, "schema.json", "outputs.ndjson"], in: folder)
        #expect(check.stderr == "")
        return check.stdout
    }

    /// Validates each line of an NDJSON file against a schema; prints one line per error.
    static let validator = """
        import json, sys
        from jsonschema import Draft202012Validator
        schema = json.load(open(sys.argv[1]))
        Draft202012Validator.check_schema(schema)
        validator = Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)
        for number, line in enumerate(open(sys.argv[2]), 1):
            for error in validator.iter_errors(json.loads(line)):
                print(f"line {number}: {error.json_path}: {error.message}")
        """

    /// One `mappings map` run that must map without an error.
    static func mapped(_ arguments: [String], in directory: URL = ToolRunner.packageRoot, input: String = "") throws
        -> String
    {
        let result = try ToolRunner.run(["map"] + arguments, in: directory, input: input)
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        return result.stdout.trimmingCharacters(in: .newlines)
    }

    @Test(
        "the shipped contexts' outputs validate",
        arguments: [
            ("$TweetModel", ["Examples/twitter/tweet.json"], [String]()),
            ("$TimelineModel", ["Examples/twitter/timeline.json"], []),
            ("$Account", ["Examples/accounts/account.json"], ["--mappings", "Examples/accounts/accounts.mappings"]),
        ])
    func shipped(context: String, payloads: [String], arguments: [String]) throws {
        guard let python = PythonEnvironment.python() else { return }
        var outputs: [String] = []
        for payload in payloads {
            outputs.append(try Self.mapped(["--context", context] + arguments + [payload]))
        }
        #expect(try Self.complaints(about: outputs, context: context, arguments: arguments, python: python) == "")
    }

    @Test("the language examples' outputs validate: templates, selectors, plain JSON contexts")
    func languageExamples() throws {
        guard let python = PythonEnvironment.python() else { return }
        let shop = ["--mappings", "Examples/language/shop.mappings"]
        let product =
            #"{"uuid":"0e3a7c1e-9a8b-4c5d-8e7f-0a1b2c3d4e5f","name":"Lamp","labels":["home"],"link":"/lamp","#
            + #""extra":{"watts":40},"price":{"value":"19.990"},"updated":"2024-01-02T03:04:05.250Z"}"#
        let products = [
            try Self.mapped(["--context", "$Product"] + shop, input: product),
            try Self.mapped(
                ["--context", "$Product"] + shop,
                input: #"{"uuid":"0e3a7c1e-9a8b-4c5d-8e7f-0a1b2c3d4e5f","name":"Lamp","price":{"value":1}}"#),
        ]
        #expect(try Self.complaints(about: products, context: "$Product", arguments: shop, python: python) == "")
        let listings = [
            try Self.mapped(
                ["--context", "$Listing"] + shop, input: #"{"items":[{"name":"a","updated":"2024-01-02"}],"link":"x"}"#),
            try Self.mapped(["--context", "$Listing"] + shop, input: #"{"items":[]}"#),
        ]
        #expect(try Self.complaints(about: listings, context: "$Listing", arguments: shop, python: python) == "")
    }

    @Test("the benchmark's reshape validates on generated records")
    func benchmarkRecords() throws {
        guard let python = PythonEnvironment.python() else { return }
        let generated = try ToolRunner.runProgram(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["python3", "Benchmarks/generate.py", "--size-mb", "0.1", "--seed", "3"])
        let arguments = ["--mappings", "Benchmarks/contexts", "--scripts", "Benchmarks/scripts"]
        let stream = try ToolRunner.run(
            ["stream", "--context", "$BenchTweet"] + arguments, input: generated.stdout)
        let outputs = stream.stdout.split(separator: "\n").map(String.init)
        #expect(outputs.count > 20)
        #expect(try Self.complaints(about: outputs, context: "$BenchTweet", arguments: arguments, python: python) == "")
    }

    @Test("enums, dictionaries, decimals, recursion and plain contexts validate; a changed output does not")
    func shapesOfEveryKind() throws {
        guard let python = PythonEnvironment.python() else { return }
        let directory = try ToolRunner.directory(with: ["contexts/shapes.mappings": Self.shapes])
        defer { try? FileManager.default.removeItem(at: directory) }
        for context in ["$Account", "$Summary"] {
            let outputs = try Self.shapePayloads.filter { $0.context == context }.map {
                try Self.mapped(["--context", context], in: directory, input: $0.payload)
            }
            #expect(
                try Self.complaints(about: outputs, context: context, arguments: [], in: directory, python: python)
                    == "")
        }
        let account = try Self.mapped(["--context", "$Account"], in: directory, input: Self.shapePayloads[0].payload)
        let changed = [
            account.replacingOccurrences(of: #""status":"active""#, with: #""status":"actve""#),
            account.replacingOccurrences(of: #""balance":12345678901234567890.125"#, with: #""balance":"12""#),
            account.replacingOccurrences(of: #""id":"#, with: #""extraKey":1,"id":"#),
            account.replacingOccurrences(of: #""status":"active""#, with: #""status":null"#),
        ]
        #expect(changed.allSatisfy { $0 != account })
        let complaints = try Self.complaints(
            about: changed, context: "$Account", arguments: [], in: directory, python: python)
        #expect(
            Set(complaints.split(separator: "\n").map { $0.prefix(7) }) == ["line 1:", "line 2:", "line 3:", "line 4:"])
    }

    @Test("unions (in arrays, single and optional), sets and a synced timeline validate; a wrong case does not")
    func unionsAndSets() throws {
        guard let python = PythonEnvironment.python() else { return }
        let shapes = ["--mappings", "Examples/language/shapes.mappings"]
        let mixed =
            #"{"title":"M","shapes":[{"type":"circle","r":2.5},{"type":"star"},"#
            + #"{"type":"rect","size":{"w":1,"h":2}}]}"#
        let drawing = try Self.mapped(["--context", "$Drawing"] + shapes, input: mixed)
        let rect =
            #"{"title":"R","shapes":[{"type":"rect","size":{"w":1,"h":2}}],"#
            + #""background":{"meta":{"kind":"circle"},"r":1}}"#
        let drawings = [drawing, try Self.mapped(["--context", "$Drawing"] + shapes, input: rect)]
        #expect(try Self.complaints(about: drawings, context: "$Drawing", arguments: shapes, python: python) == "")
        let wrong = drawing.replacingOccurrences(of: #""radius":2.5"#, with: #""radius":"2.5""#)
        #expect(wrong != drawing)
        #expect(try Self.complaints(about: [wrong], context: "$Drawing", arguments: shapes, python: python) != "")
        let timeline = ["--mappings", "Examples/timeline/timeline.mappings"]
        let synced = try Self.mapped(["--context", "$Timeline"] + timeline + ["Examples/timeline/page1.json"])
        #expect(try Self.complaints(about: [synced], context: "$Timeline", arguments: timeline, python: python) == "")
        let sets = """
            { "@models": { "Tagged": { "tags": "{String}", "scores": "{Int}?" } },
              "$Tagged": { "@class": "Tagged", "tags": "tags", "scores": { "@keyPath": "scores", "@optional": true } } }
            """
        let directory = try ToolRunner.directory(with: ["contexts/sets.mappings": sets])
        defer { try? FileManager.default.removeItem(at: directory) }
        let tagged = try ToolRunner.run(
            ["map", "--context", "$Tagged"], in: directory, input: #"{"tags":["b","a","b"],"scores":[3,1]}"#)
        #expect(tagged.stdout.hasPrefix(#"{"tags":["a","b"],"scores":[1,3]}"#), "\(tagged.stderr)")
        #expect(
            try Self.complaints(
                about: [tagged.stdout.trimmingCharacters(in: .newlines), #"{"tags":["a","a"],"scores":null}"#],
                context: "$Tagged", arguments: [], in: directory, python: python
            )
            .hasPrefix("line 2:"))
    }

    @Test("the Spark schema reads as a StructType")
    func sparkSchema() throws {
        guard let python = PythonEnvironment.python() else { return }
        let schema = try ToolRunner.run(["schema", "--context", "$TweetModel", "--format", "spark"])
        #expect(schema.status == 0)
        let folder = try ToolRunner.directory(with: ["schema.json": schema.stdout])
        defer { try? FileManager.default.removeItem(at: folder) }
        let read = try ToolRunner.runProgram(
            python,
            [
                "-c",
                "import json; from pyspark.sql.types import StructType; "
                    + "print(StructType.fromJson(json.load(open('schema.json'))).simpleString())",
            ], in: folder)
        #expect(
            read.stdout
                == "struct<identifier:string,message:string,user:struct<name:string,imageUrl:string>,"
                + "coordinates:struct<latitude:double,longitude:double>,createdAt:timestamp,retweets:bigint,"
                + "tags:array<string>>\n")
        // A union's objects: one struct of every member's fields, each nullable.
        let union = try ToolRunner.run(
            ["schema", "--context", "$Drawing", "--format", "spark", "--mappings", "Examples/language/shapes.mappings"])
        try union.stdout.write(to: folder.appendingPathComponent("union.json"), atomically: true, encoding: .utf8)
        let readUnion = try ToolRunner.runProgram(
            python,
            [
                "-c",
                "import json; from pyspark.sql.types import StructType; "
                    + "print(StructType.fromJson(json.load(open('union.json'))).simpleString())",
            ], in: folder)
        // The discriminator comes first, as each object carries it.
        #expect(
            readUnion.stdout
                == "struct<title:string,shapes:array<struct<type:string,radius:double,width:double,height:double,kind:string>>,"
                + "background:struct<meta:struct<kind:string>,radius:double,width:double,height:double>>\n")
    }

}
