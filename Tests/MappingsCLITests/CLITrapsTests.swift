import Foundation
import MappingsTestSupport
import Testing

/// The CLI's traps for a new user, as the tool shows them (issue 31): a context name the shell
/// expanded, an array mapped as one payload.
@Suite("CLI traps")
struct CLITrapsTests {
    static let catalog = """
        { "@models": { "P": { "price": "Int" } },
          "$Price": { "@class": "P", "price": "price" },
          "$Price-v2": { "@class": "P", "price": "cost" } }
        """

    @Test("a context name a shell expanded says to quote it")
    func shellExpansion() throws {
        let directory = try ToolRunner.directory(with: ["c.mappings": Self.catalog])
        defer { try? FileManager.default.removeItem(at: directory) }
        // "$Price" in double quotes, the variable unset: the name is empty.
        let empty = try ToolRunner.run(
            ["map", "--mappings", "c.mappings", "--context", ""], in: directory, input: #"{"price": 1}"#)
        #expect(empty.status == 2)
        #expect(empty.stderr.contains(#"error: no context named """#), "\(empty)")
        #expect(empty.stderr.contains("a shell expands \"$Name\" in double quotes to nothing"), "\(empty)")
        #expect(empty.stderr.contains("write it in single quotes: --context '$Price'"), "\(empty)")
        // "$Price-v2": the shell took "$Price" and left "-v2".
        let rest = try ToolRunner.run(
            ["map", "--mappings", "c.mappings", "--context=-v2"], in: directory, input: #"{"cost": 1}"#)
        #expect(rest.status == 2)
        #expect(rest.stderr.contains(#"which leaves "-v2" of "$Price-v2""#), "\(rest)")
        #expect(rest.stderr.contains("--context '$Price-v2'"), "\(rest)")
        // A plain typo keeps its did-you-mean.
        let typo = try ToolRunner.run(
            ["map", "--mappings", "c.mappings", "--context", "$Prize"], in: directory, input: #"{"price": 1}"#)
        #expect(typo.stderr.contains(#"did you mean "$Price"?"#), "\(typo)")
    }

    @Test("an array without --many: the note first, alone when every issue is the array's, all of them in --report")
    func arrayNote() throws {
        let directory = try ToolRunner.directory(with: ["c.mappings": Self.catalog])
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try ToolRunner.run(
            ["map", "--mappings", "c.mappings", "--context", "$Price", "--report", "r.json"], in: directory,
            input: #"[{"price": 1}, {"price": 2}]"#)
        #expect(result.status == 1)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(result)")
        #expect(
            lines.first?.hasPrefix("note: the input is an array; to map each of its elements into $Price, add --many")
                == true)
        let report = try String(contentsOf: directory.appendingPathComponent("r.json"), encoding: .utf8)
        #expect(report.contains(#""path":"$[*].price""#), "\(report)")
    }

    @Test("without --rejects, each rejected record is one line on stderr: where and why, never the payload")
    func rejectLines() throws {
        let directory = try ToolRunner.directory(with: ["c.mappings": Self.catalog])
        defer { try? FileManager.default.removeItem(at: directory) }
        let secret = String(repeating: "payload ", count: 50)
        let input = #"{"price": 1}"# + "\n" + #"{"price": "x", "note": "\#(secret)"}"# + "\n" + "nope\n"
        let result = try ToolRunner.run(
            ["stream", "--mappings", "c.mappings", "--context", "$Price"], in: directory, input: input)
        #expect(result.status == 1)
        #expect(!result.stderr.contains(secret), "\(result)")
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(
            lines.first
                == #"<stdin>:2: rejected: $.price: expected Int, found string "x", which is not a whole number (c.mappings:2)"#,
            "\(lines)")
        #expect(
            lines.contains { $0.hasPrefix("mappings stream: each rejected record is one line here; --rejects FILE") })
        #expect(
            lines.contains(
                "<stdin>:3: rejected: invalid JSON: column 1: unexpected character 'n': a value was expected"))
        #expect(lines.last == "mappings stream: read 3, written 1, rejected 2")
    }

    /// Completes `line` (the program's path first) with the bash completion the tool generates,
    /// in `directory`: the candidates, as bash would offer them.
    static func bashCompletions(_ line: String, in directory: URL) throws -> [String] {
        let script = try ToolRunner.run(["--generate-completion-script", "bash"], in: directory).stdout
        try script.write(to: directory.appendingPathComponent("completion.bash"), atomically: true, encoding: .utf8)
        let driver = """
            source ./completion.bash
            COMP_LINE="$1"; COMP_POINT=${#COMP_LINE}
            read -ra COMP_WORDS <<< "$COMP_LINE"
            if [[ "$COMP_LINE" == *" " ]]; then COMP_WORDS+=(""); fi
            COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
            COMPREPLY=()
            _mappings "${COMP_WORDS[0]}" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
            printf '%s\n' "${COMPREPLY[@]}"
            """
        try driver.write(to: directory.appendingPathComponent("complete.sh"), atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["complete.sh", ToolRunner.executable.path + " " + line]
        process.currentDirectoryURL = directory
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init).sorted()
    }

    @Test("bash completion: file names, the catalog's context names, option values")
    func completion() throws {
        let directory = try ToolRunner.directory(with: ["c.mappings": Self.catalog, "in.json": "{}", "notes.txt": ""])
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(try Self.bashCompletions("map --mappings ", in: directory) == ["c.mappings"])
        #expect(
            try Self.bashCompletions("map --mappings c.mappings --context ", in: directory) == [
                #"\$Price"#, #"\$Price-v2"#,
            ])
        #expect(try Self.bashCompletions("stream --lua-isolation ", in: directory) == ["none", "process"])
        #expect(try Self.bashCompletions("map --context x in", in: directory) == ["in.json"])
    }

    @Test("explain --many explains each element under its index; schema --many describes the array map --many writes")
    func many() throws {
        let directory = try ToolRunner.directory(with: ["c.mappings": Self.catalog])
        defer { try? FileManager.default.removeItem(at: directory) }
        let explained = try ToolRunner.run(
            ["explain", "--mappings", "c.mappings", "--context", "$Price", "--many"], in: directory,
            input: #"[{"price": 1}, {"price": "x"}]"#)
        #expect(explained.status == 1)
        #expect(
            explained.stdout.split(separator: "\n").map(String.init) == [
                "[0]", "P.price <- $.price = 1  [c.mappings:2]", #"result: {"price":1}"#, "[1]",
                #"P.price <- $.price = "x"  [c.mappings:2]"#,
                #"P.price FAILED at $.price: expected Int, found string "x", which is not a whole number  [c.mappings:2]"#,
                #"result: {"price":null}"#,
            ], "\(explained)")
        let notArray = try ToolRunner.run(
            ["explain", "--mappings", "c.mappings", "--context", "$Price", "--many"], in: directory,
            input: #"{"price": 1}"#)
        #expect(notArray.status == 1 && notArray.stderr.contains("--many takes an array of payloads"), "\(notArray)")
        let schema = try ToolRunner.run(
            ["schema", "--mappings", "c.mappings", "--context", "$Price", "--many"], in: directory)
        #expect(
            schema.stdout
                == #"{"$schema":"https://json-schema.org/draft/2020-12/schema","title":"$Price","type":"array","items":{"type":"object","properties":{"price":{"type":"integer"}},"required":["price"],"additionalProperties":false}}"#
                + "\n", "\(schema)")
        let spark = try ToolRunner.run(
            ["schema", "--mappings", "c.mappings", "--context", "$Price", "--many", "--format", "spark"], in: directory)
        #expect(spark.stdout.hasPrefix(#"{"type":"array","elementType":{"type":"struct","#), "\(spark)")
        #expect(spark.stdout.hasSuffix(#","containsNull":false}"# + "\n"), "\(spark)")
    }
}

/// The traps a new user met in issue 47: no `contexts/` here, `--context` with one context, `-`
/// for stdin, an array mapped without `--many`.
@Suite("CLI traps of a first mapping")
struct FirstMappingTrapsTests {
    @Test("no contexts/ where the tool runs: the error says mappings init, or --mappings")
    func noContexts() throws {
        let directory = try ToolRunner.directory(with: ["p.json": "{}"])
        defer { try? FileManager.default.removeItem(at: directory) }
        for command in [["map", "p.json"], ["check"], ["stream", "p.json"], ["test"]] {
            let result = try ToolRunner.run(command, in: directory)
            #expect(result.status == 2)
            #expect(result.stderr.hasPrefix("error: no contexts/ folder here"), "\(command): \(result)")
            #expect(result.stderr.contains("'mappings init --from PAYLOAD'"), "\(result)")
            #expect(result.stderr.contains("--mappings PATH"), "\(result)")
        }
    }

    @Test("--context may be left out when the files hold one context; with several, the error lists them")
    func oneContext() throws {
        let directory = try ToolRunner.directory(with: [
            "one.mappings":
                #"{ "@models": { "P": { "price": "Int" } }, "$Price": { "@class": "P", "price": "price" } }"#,
            "two.mappings": CLITrapsTests.catalog,
        ])
        defer { try? FileManager.default.removeItem(at: directory) }
        for command in ["map", "explain", "stream", "schema"] {
            let result = try ToolRunner.run(
                [command, "--mappings", "one.mappings"] + (command == "schema" ? [] : ["-"]), in: directory,
                input: #"{"price": 3}"#)
            #expect(result.status == 0, "\(command): \(result)")
        }
        let mapped = try ToolRunner.run(["map", "--mappings", "one.mappings"], in: directory, input: #"{"price": 3}"#)
        #expect(mapped.stdout == #"{"price":3}"# + "\n", "\(mapped)")
        let serialized = try ToolRunner.run(
            ["serialize", "--mappings", "one.mappings"], in: directory, input: #"{"price": 3}"#)
        #expect(serialized.stdout == #"{"price":3}"# + "\n", "\(serialized)")
        let several = try ToolRunner.run(["map", "--mappings", "two.mappings"], in: directory, input: #"{"price": 3}"#)
        #expect(several.status == 2)
        #expect(
            several.stderr.contains("--context is needed: the files hold 2 contexts ('$Price', '$Price-v2')"),
            "\(several)")
    }

    @Test("- is stdin for map, explain, serialize and stream; an array without --many writes nothing on stdout")
    func stdinAndArrays() throws {
        let directory = try ToolRunner.directory(with: ["c.mappings": CLITrapsTests.catalog])
        defer { try? FileManager.default.removeItem(at: directory) }
        for command in ["map", "explain", "stream", "serialize"] {
            let result = try ToolRunner.run(
                [command, "--mappings", "c.mappings", "--context", "$Price", "-"], in: directory,
                input: #"{"price": 3}"#)
            #expect(result.status == 0, "\(command): \(result)")
            #expect(result.stdout.contains("3"), "\(command): \(result)")
        }
        let array = try ToolRunner.run(
            ["map", "--mappings", "c.mappings", "--context", "$Price", "-"], in: directory,
            input: #"[{"price": 1}]"#)
        #expect(array.status == 1)
        #expect(array.stdout.isEmpty, "\(array)")
        #expect(array.stderr.contains("add --many"), "\(array)")
    }
}
