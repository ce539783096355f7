import ArgumentParser
import Mappings

/// `mappings check`: load and compile contexts, report every problem.
struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Load and compile .mappings files and report every problem found.",
        discussion: """
            Prints each problem to stderr with its file:line:column, the source line and a caret, \
            and a suggestion where one is close. Exits 0 when the files are clean, 2 otherwise.

            Examples:
              mappings check
              mappings check --mappings contexts/tweets.mappings --trait apiVersion=2
            """
    )

    @OptionGroup var load: LoadOptions

    func run() throws {
        let catalog = try load.loadCatalog()
        let named = catalog.identifiers.count
        Terminal.output(
            "ok: \(named) context\(named == 1 ? "" : "s"), \(catalog.models.count) model\(catalog.models.count == 1 ? "" : "s") "
                + "in \(catalog.files.count) file\(catalog.files.count == 1 ? "" : "s")")
    }
}
