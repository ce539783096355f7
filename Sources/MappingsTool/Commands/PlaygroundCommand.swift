import ArgumentParser
import Foundation
import Mappings
import MappingsLua
import MappingsStream
package import MappingsWorkspace

/// `mappings playground`: a web page to edit a context against a payload and watch the result.
struct PlaygroundCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "playground",
        abstract: "Edit a context and a payload in a web page, and see the result as you type.",
        discussion: """
            Serves one page (and the small API it calls) on --listen: the context's .mappings file \
            and the scripts, and a payload, editable; the output, the issues (click one to see its \
            rule), the load diagnostics with their lines marked, the explain trace and the \
            context's @tests, live as either changes. Edits stay in the page unless --write is \
            given, which saves them to the files once they load. Share gives a link holding the \
            state in its fragment (nothing is stored by the server). It runs Lua, so it is a local \
            tool: loopback by default, and a request whose Host is not the listening address or \
            localhost is refused. docs/playground.md is the guide.

            Exit status: 0 after SIGTERM or SIGINT; 2 the options or --input could not be read, or \
            the address could not be bound.

            Examples:
              mappings playground
              mappings playground --context '$TweetModel' --input Examples/twitter/tweet.json
              mappings playground --listen 127.0.0.1:8000 --write
            """
    )

    @OptionGroup var load: LoadOptions

    @Option(
        help: ArgumentHelp(
            "The address to listen on, as HOST:PORT (port 0: any free port); loopback unless told otherwise.",
            valueName: "host:port"))
    var listen = "127.0.0.1:4195"

    @Option(help: ArgumentHelp("The context the page starts on (default: the first).", valueName: "id"))
    var context: String?

    @Option(
        help: ArgumentHelp(
            "The payload the page starts with (default: the context's first @tests input).", valueName: "file"),
        completion: .file())
    var input: String?

    @Flag(help: "Save the page's edits to the files (once they load). Without it, the files are never touched.")
    var write = false

    func validate() throws {
        guard ServeCommand.address(listen) != nil else {
            throw ValidationError("--listen takes HOST:PORT, such as 127.0.0.1:4195, but got '\(listen)'")
        }
    }

    func run() async throws {
        guard let playground = ServerHooks.playground else { ServerHooks.runServerProgram(for: "playground") }
        var payload: String?
        if let input {
            guard let text = try? String(contentsOfFile: input, encoding: .utf8) else {
                Terminal.error("mappings playground: cannot read --input \(input)")
                throw ToolFailure(status: .loadFailure)
            }
            payload = text
        }
        guard let (host, port) = ServeCommand.address(listen) else { throw ToolFailure(status: .loadFailure) }
        let session = PlaygroundSession(
            roots: load.mappingsPaths, scriptsDirectory: load.scriptsDirectory, traits: load.traits,
            limits: load.lua.limits, writes: write, context: context, input: payload,
            maxTableMemory: load.maxTableMemory << 20)
        do {
            try await playground(PlaygroundPlan(session: session, host: host, port: port))
        } catch {
            Terminal.error("mappings playground: \(error)")
            throw ToolFailure(status: .loadFailure)
        }
    }
}

/// What `mappings-server` serves the page with.
package struct PlaygroundPlan: Sendable {
    package var session: PlaygroundSession
    package var host: String
    package var port: Int
}
