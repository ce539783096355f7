import ArgumentParser
import Foundation
import Mappings
import MappingsStream

/// An unknown subcommand or option in the arguments, said plainly, with the closest known name.
///
/// ArgumentParser reports the first problem it meets, which is not always the one the user made:
/// `mappings mapp --context X` got "Unknown option '--context'", and `mappings map --contxt X`
/// "Missing expected argument '--context'". When parsing fails, the arguments are checked against
/// the names the commands declare (what `--experimental-dump-help` describes), and an unknown one
/// is reported instead, with ArgumentParser's usage lines:
/// ```
/// Error: Unknown subcommand 'mapp'. Did you mean 'map'?
/// Usage: mappings <subcommand>
///   See 'mappings --help' for more information.
/// ```
enum UnknownName {
    /// The message for the first unknown subcommand or option in `arguments` (without the
    /// tool's name), or `nil` when every name is known.
    static func message(in arguments: [String], root: any ParsableCommand.Type) -> String? {
        guard let data = root._dumpHelp().data(using: .utf8),
            var command = try? JSONDecoder().decode(Dump.self, from: data).command
        else { return nil }
        var rest = arguments[...]
        while let first = rest.first, !first.hasPrefix("-"), let subcommands = command.subcommands,
            !subcommands.isEmpty
        {
            guard let subcommand = subcommands.first(where: { $0.commandName == first }) else {
                let names = subcommands.map(\.commandName)
                if let close = Suggestion.closest(to: first, among: names) {
                    return "Unknown subcommand '\(first)'. Did you mean '\(close)'?"
                }
                return "Unknown subcommand '\(first)'. The subcommands are \(names.joined(separator: ", "))."
            }
            command = subcommand
            rest = rest.dropFirst()
        }
        let known = command.longOptions + builtIn
        for argument in rest.prefix(while: { $0 != "--" }) where argument.hasPrefix("--") {
            let name = String(argument.prefix { $0 != "=" })
            guard !known.contains(name) else { continue }
            if let close = Suggestion.closest(to: name, among: known.filter { !builtIn.contains($0) }) {
                return "Unknown option '\(name)'. Did you mean '\(close)'?"
            }
            return "Unknown option '\(name)'"
        }
        return nil
    }

    /// The options ArgumentParser adds to every command without describing them.
    private static let builtIn = ["--experimental-dump-help", "--generate-completion-script"]

    /// The parts of ArgumentParser's `--experimental-dump-help` description read here.
    private struct Dump: Decodable {
        var command: Command
    }

    private struct Command: Decodable {
        struct Argument: Decodable {
            struct Name: Decodable {
                var kind: String
                var name: String
            }
            var names: [Name]?
        }
        var commandName: String
        var subcommands: [Command]?
        var arguments: [Argument]?

        /// `--name` for each long name of the command's options and flags.
        var longOptions: [String] {
            (arguments ?? []).flatMap { $0.names ?? [] }.filter { $0.kind == "long" }.map { "--" + $0.name }
        }
    }
}
