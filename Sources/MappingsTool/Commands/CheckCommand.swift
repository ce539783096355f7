import ArgumentParser
import Mappings
import MappingsStream

/// `mappings check`: load and compile contexts, report every problem.
struct CheckCommand: ParsableCommand, LoadingCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Load and compile .mappings files and report every problem found.",
        discussion: """
            Prints each problem to stderr with its file:line:column, the source line and a caret, \
            and a suggestion where one is close, then runs the contexts' "@tests" (see 'mappings test'). \
            Exits 0 when the files are clean and the tests pass, 1 when a test fails, 2 when the files \
            or scripts do not load.

            Examples:
              mappings check
              mappings check --mappings contexts/twitter.mappings --trait apiVersion=2
              mappings check --explain-plan
            """
    )

    @OptionGroup var load: LoadOptions

    @Flag(
        help: """
            Also print, for each context, whether 'stream' and 'map' write its records through a fast plan \
            or the general engine, and why.
            """)
    var explainPlan = false

    func run() throws {
        let catalog = try load.loadCatalog(warnings: .always)
        if explainPlan { Self.explainPlans(of: catalog) }
        let named = catalog.identifiers.count
        let results = ContextTestRunner.run(catalog)
        let failed = results.filter { !$0.passed }
        for result in failed {
            Terminal.error("test failed: " + result.title)
            for failure in result.failures { Terminal.error("  " + failure) }
        }
        let tables = catalog.tables.count
        let rows = catalog.tables.values.reduce(0) { $0 + $1.rowCount }
        let memory = LookupTable.memoryText(catalog.tables.values.reduce(0) { $0 + $1.memory })
        var summary =
            "\(named) context\(named == 1 ? "" : "s"), \(catalog.models.count) model\(catalog.models.count == 1 ? "" : "s") "
            + (tables == 0
                ? ""
                : "and \(tables) lookup table\(tables == 1 ? "" : "s") (\(rows) row\(rows == 1 ? "" : "s"), \(memory) in memory) ")
            + "in \(catalog.files.count) file\(catalog.files.count == 1 ? "" : "s")"
        if !results.isEmpty {
            summary +=
                ", \(results.count - failed.count) of \(results.count) test\(results.count == 1 ? "" : "s") passed"
        }
        guard failed.isEmpty else {
            Terminal.error("mappings: " + summary)
            throw ToolFailure(status: .issues)
        }
        Terminal.output("ok: " + summary)
    }

    /// One line per named context: `fast plan`, or `general engine` and each entry that needs it.
    static func explainPlans(of catalog: Catalog) {
        let mapper = Mapper(catalog: catalog)
        for identifier in catalog.identifiers {
            guard let context = catalog.context(identifier) else { continue }
            switch mapper.fastPlan(for: context) {
            case .success:
                Terminal.output("\(identifier): fast plan")
            case .failure(let refusal):
                Terminal.output("\(identifier): general engine")
                for reason in refusal.reasons { Terminal.output("  " + reason) }
            }
        }
    }
}
