package import ArgumentParser
import CBuildInfo
import Dispatch
import Foundation
import Mappings
import MappingsLua
import MappingsStream

/// The `mappings` tool: checks `.mappings` files and maps JSON with them.
package struct MappingsCommand: ParsableCommand {
    package init() {}

    package static let configuration = CommandConfiguration(
        commandName: "mappings",
        abstract: "Map JSON payloads to typed objects with declarative .mappings files.",
        discussion: """
            Contexts are read from .mappings files (default: the contexts/ directory). \
            Run 'mappings help <subcommand>' for a subcommand's options.

            Exit status: 0 on success, 1 when a payload mapped with issues, 2 when the mappings, \
            arguments or input could not be loaded.
            """,
        version: versionLine,
        subcommands: subcommands
    )

    /// What `--version` prints: the release, the commit it was built from (Package.swift bakes both
    /// in) and the Lua release linked — `mappings 0.1.0 (commit 3d72ef2) with Lua 5.4.6`.
    static var versionLine: String {
        let version = String(cString: mappings_build_version())
        let commit = String(cString: mappings_build_commit())
        return "mappings \(version) (commit \(commit)) with Lua \(LuaRuntime.release)"
    }

    /// Every subcommand, in the order help lists them; the portable build has no `fetch`.
    static var subcommands: [any ParsableCommand.Type] {
        #if MAPPINGS_PORTABLE
            [
                InitCommand.self, CheckCommand.self, MapCommand.self, StreamCommand.self, TestCommand.self,
                ExplainCommand.self,
                SerializeCommand.self, SchemaCommand.self, FormatCommand.self, LanguageServerCommand.self,
                ServeCommand.self, PlaygroundCommand.self,
            ]
        #else
            [
                InitCommand.self, CheckCommand.self, MapCommand.self, StreamCommand.self, TestCommand.self,
                ExplainCommand.self,
                FetchCommand.self, SerializeCommand.self, SchemaCommand.self, FormatCommand.self,
                LanguageServerCommand.self, ServeCommand.self, PlaygroundCommand.self,
            ]
        #endif
    }

    /// Parses, runs, and maps every failure to the tool's exit status in one place.
    ///
    /// The entry point is synchronous: the subcommands but `fetch` run on the main thread as plain
    /// code, with no dispatch main loop under them (which is also what lets `valgrind` run the
    /// tool: its callgrind crashes in the loop's signal thread). `fetch`, the one asynchronous
    /// command, runs in a task while the main thread serves the dispatch main loop, and ends the
    /// process when it is done.
    package static func main(_ arguments: [String]? = nil) {
        do {
            var command = try parseAsRoot(arguments)
            Terminal.useColors(colors(of: command))
            if let asyncCommand = command as? any AsyncParsableCommand {
                runThenExit(asyncCommand)
            }
            try command.run()
            Self.exit()
        } catch {
            finish(with: error)
        }
    }

    /// Runs an asynchronous command in a task and exits with its status; never returns.
    private static func runThenExit(_ command: sending any AsyncParsableCommand) -> Never {
        Task {
            var running = command
            do {
                try await running.run()
                Self.exit()
            } catch {
                finish(with: error)
            }
        }
        dispatchMain()
    }

    /// Maps a failure to the tool's exit status, with ArgumentParser's message for usage errors.
    private static func finish(with error: any Error) -> Never {
        if let failure = error as? ToolFailure {
            Self.exit(withError: ExitCode(failure.status.rawValue))
        }
        if exitCode(for: error) == .success {
            Self.exit(withError: error)
        }
        FileHandle.standardError.write(Data((usageMessage(for: error) + "\n").utf8))
        Self.exit(withError: ExitCode(ExitStatus.loadFailure.rawValue))
    }

    /// ArgumentParser's message for `error`, or, when the arguments hold an unknown subcommand or
    /// option, that name and the closest known one over the same usage lines.
    private static func usageMessage(for error: any Error) -> String {
        let message = fullMessage(for: error)
        guard let unknown = UnknownName.message(in: Array(CommandLine.arguments.dropFirst()), root: Self.self)
        else { return message }
        guard let usage = message.range(of: "\nUsage: ") else { return "Error: " + unknown }
        return "Error: " + unknown + message[usage.lowerBound...]
    }

    /// Whether `--color` (of a command that has it) colors stderr.
    private static func colors(of command: any ParsableCommand) -> Bool {
        (command as? any LoadingCommand)?.load.color.colors ?? false
    }
}
