import ArgumentParser
import Foundation
package import Mappings
import MappingsStream

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The programs installed beside `mappings` that run what it does not link: `mappings-fetch`
/// (an HTTP client: FoundationNetworking and libcurl) and `mappings-server` (the HTTP servers:
/// Hummingbird and SwiftNIO). Each is the same command line with what it links; a command of
/// `mappings` that needs one replaces this process with it, so that every other command starts
/// without loading them (and a build for a first `map` never compiles them).
enum CompanionProgram {
    /// Replaces this process with `name` (beside this program, else on PATH) given `arguments`;
    /// says why and exits 2 when it cannot. `command` names what needed it, for the message.
    static func replaceProcess(with name: String, arguments: [String], for command: String) -> Never {
        guard let program = CompanionExecutable.find(name) else {
            Terminal.error(
                "error: mappings \(command) runs \(name), which is neither beside this program nor on PATH: install it with mappings (tools/install does)"
            )
            MappingsCommand.exit(withError: ExitCode(ExitStatus.loadFailure.rawValue))
        }
        var pointers = ([name] + arguments).map { strdup($0) } + [nil]
        execv(program, &pointers)
        Terminal.error("error: cannot run \(program): \(String(cString: strerror(errno)))")
        MappingsCommand.exit(withError: ExitCode(ExitStatus.loadFailure.rawValue))
    }
}

/// What the commands that run an HTTP server hand it: set by `mappings-server`, which links the
/// servers. Where they are `nil` (in `mappings`), those commands run `mappings-server` with the
/// same arguments.
package enum ServerHooks {
    /// Runs `mappings serve` until it stops; throws when it cannot listen or run.
    package nonisolated(unsafe) static var serve: (@Sendable (ServePlan) async throws -> Void)?
    /// Runs `mappings playground` until it stops; throws when it cannot listen or run.
    package nonisolated(unsafe) static var playground: (@Sendable (PlaygroundPlan) async throws -> Void)?
    /// Starts `stream --metrics-listen`'s endpoint and returns once it listens; throws (with the
    /// reason) when it cannot.
    package nonisolated(unsafe) static var metricsEndpoint:
        ((_ host: String, _ port: Int, _ context: String, _ board: StreamBoard) throws -> Void)?

    /// Replaces this process with `mappings-server`, the same arguments given.
    static func runServerProgram(for command: String) -> Never {
        CompanionProgram.replaceProcess(
            with: "mappings-server", arguments: Array(CommandLine.arguments.dropFirst()), for: command)
    }
}

/// The tool's stderr, for the programs beside it.
package enum ToolOutput {
    /// Writes a line to stderr as the tool's own lines are written (escaped, colored by `--color`).
    package static let error: @Sendable (String) -> Void = { Terminal.error($0) }
}
