import ArgumentParser
import Foundation
import Mappings

/// The options every subcommand that loads contexts shares.
struct LoadOptions: ParsableArguments {
    @Option(
        name: .customLong("mappings"),
        help: ArgumentHelp(
            "A .mappings file, or a directory whose *.mappings files load in name order. Repeatable.",
            valueName: "path"))
    var paths: [String] = []

    @Option(
        name: .customLong("trait"),
        help: ArgumentHelp(
            "A trait that @when selectors test, as KEY=VALUE (KEY alone means true). Repeatable.",
            valueName: "key=value"))
    var traitAssignments: [String] = []

    func validate() throws {
        for assignment in traitAssignments where Traits.parseAssignment(assignment) == nil {
            throw ValidationError("--trait takes KEY=VALUE, but got '\(assignment)'")
        }
    }

    var traits: Traits {
        var traits = Traits()
        for assignment in traitAssignments {
            if let (key, value) = Traits.parseAssignment(assignment) { traits[key] = value }
        }
        return traits
    }

    /// Loads the catalog, or prints every diagnostic to stderr and fails with exit status 2.
    func loadCatalog() throws -> Catalog {
        do {
            return try Catalog.load(
                paths.isEmpty ? ["contexts"] : paths, traits: traits, transformers: WalkthroughTransformers.registry)
        } catch {
            let count = error.diagnostics.count
            Terminal.error(error.description + "\n\n" + "mappings: \(count) error\(count == 1 ? "" : "s") found")
            throw ToolFailure(status: .loadFailure)
        }
    }
}

/// Writes to the standard streams.
enum Terminal {
    static func error(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    static func output(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }
}
