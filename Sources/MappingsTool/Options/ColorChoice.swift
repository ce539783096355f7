import ArgumentParser
import Foundation
import MappingsStream

/// `--color auto|always|never`: whether diagnostics on stderr are colored.
enum ColorChoice: String, ExpressibleByArgument, CaseIterable {
    /// Colors when stderr is a terminal and `NO_COLOR` is not set (the default).
    case auto
    case always
    case never

    /// Whether this choice colors stderr in this process.
    var colors: Bool {
        switch self {
        case .always: true
        case .never: false
        case .auto:
            isatty(STDERR_FILENO) == 1 && (ProcessInfo.processInfo.environment["NO_COLOR"] ?? "").isEmpty
        }
    }
}

/// A subcommand that loads contexts: its options say how stderr looks too.
protocol LoadingCommand {
    var load: LoadOptions { get }
}
