import Foundation
import MappingsTestSupport
import Testing

@Suite("the warnings of a load, printed by every command that loads, through the tool")
struct LoadWarningsCommandTests {
    /// A selector over a trait nothing sets: the load succeeds with one warning.
    static let trap = """
        { "@models": { "Circle": { "radius": "Double" } },
          "$Shape": { "@class": "Circle", "radius": "radius",
                      "@when type == circle": { "radius": "r" },
                      "@tests": [ { "input": { "radius": 1 }, "output": { "radius": 1 } } ] } }
        """
    static let clean =
        #"{ "@models": { "Circle": { "radius": "Double" } }, "$Shape": { "@class": "Circle", "radius": "r" } }"#
    static let warning = """
        warning: "type" is a trait, not a payload key: no trait "type" is set, so "@when type == circle" never holds
         --> contexts/trap.mappings:3:15
          |
        3 |               "@when type == circle": { "radius": "r" },
          |               ^^^^^^^^^^^^^^^^^^^^^^
          = help: to choose by a payload value use "@discriminator" and "@cases"; to test a trait, set it (--trait type=circle)

        """

    @Test(
        "map, stream, serialize, explain and test print the warning once on stderr; stdout and the status do not change",
        arguments: [
            (["map", "--context", "$Shape"], #"{"radius":2}"# + "\n"),
            (["stream", "--context", "$Shape"], #"{"radius":2}"# + "\n"),
            (["serialize", "--context", "$Shape"], #"{"radius":2}"# + "\n"),
            (["explain", "--context", "$Shape"], "Circle.radius <- $.radius = 2  [contexts/trap.mappings:2]\n"),
            (["test"], ""),
        ])
    func printed(_ arguments: [String], stdout: String) throws {
        let directory = try ToolRunner.directory(with: ["contexts/trap.mappings": Self.trap])
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try ToolRunner.run(arguments, in: directory, input: #"{"radius": 2}"#)
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix(stdout))
        #expect(result.stderr.hasPrefix(Self.warning))
        #expect(result.stderr.components(separatedBy: "warning: \"type\"").count == 2)
        let quiet = try ToolRunner.run(arguments + ["--quiet"], in: directory, input: #"{"radius": 2}"#)
        #expect(quiet.status == 0 && quiet.stdout == result.stdout)
        #expect(!quiet.stderr.contains("warning"))
    }

    @Test("check lists the warning even with --quiet; a file without warnings prints none")
    func check() throws {
        let directory = try ToolRunner.directory(with: ["contexts/trap.mappings": Self.trap])
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try ToolRunner.run(["check", "--quiet"], in: directory)
        #expect(result.status == 0)
        #expect(result.stderr == Self.warning)
        try Data(Self.clean.utf8).write(to: directory.appendingPathComponent("contexts/trap.mappings"))
        let clean = try ToolRunner.run(["map", "--context", "$Shape"], in: directory, input: #"{"r": 1}"#)
        #expect(clean.status == 0 && clean.stderr == "")
    }

    @Test("fetch prints the warning before mapping the answer")
    func fetch() throws {
        let server = try TestServer.twitterPayloads()
        let directory = try ToolRunner.directory(with: [
            "echo.mappings": #"{ "$Echo": { "method": "method", "@when type == get": { "method": "body" } } }"#
        ])
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("echo.mappings").path
        let result = try ToolRunner.run(["fetch", server.url("echo"), "--context", "$Echo", "--mappings", path])
        #expect(result.status == 0)
        #expect(result.stdout == #"{"method":"GET"}"# + "\n")
        #expect(
            result.stderr.hasPrefix(
                #"warning: "type" is a trait, not a payload key: no trait "type" is set, so "@when type == get" never holds"#
                    + "\n --> \(path):1:34\n"))
    }

    @Test("stream --watch prints the warnings of a version it swaps in, once, and of the first load once")
    func reload() throws {
        let directory = try ToolRunner.directory(with: ["contexts/trap.mappings": Self.clean])
        defer { try? FileManager.default.removeItem(at: directory) }
        let (process, stdin, stdout, stderr) = try ToolRunner.start(
            ["stream", "--context", "$Shape", "--watch"], in: directory)
        let exchange = LineExchange(stdin: stdin, stdout: stdout)
        #expect(exchange.send(#"{"r": 1}"#) == #"{"radius":1}"#)
        try Data(Self.trap.utf8).write(to: directory.appendingPathComponent("contexts/trap.mappings"))
        Thread.sleep(forTimeInterval: 0.4)
        #expect(exchange.send(#"{"radius": 2}"#) == #"{"radius":2}"#)
        Thread.sleep(forTimeInterval: 0.4)
        #expect(exchange.send(#"{"radius": 3}"#) == #"{"radius":3}"#)
        try stdin.fileHandleForWriting.close()
        let log = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(log.contains("mappings stream: now mapping with version 2 (after record 1)\n" + Self.warning))
        #expect(log.components(separatedBy: "warning: \"type\"").count == 2)
    }
}
