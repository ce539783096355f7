import ArgumentParser
import Mappings
import MappingsStream

/// `mappings test`: run the `"@tests"` the contexts carry.
struct TestCommand: ParsableCommand, LoadingCommand {
    static let configuration = CommandConfiguration(
        commandName: "test",
        abstract: "Run the tests contexts carry in \"@tests\" and show what differs.",
        discussion: """
            Maps each test's input with its context and compares the output (object keys in any order) \
            and the issues with what the test expects. Prints one line per test, the differences under \
            each failing one, and a summary.

            Exit status: 0 every test passed; 1 some failed; 2 the contexts or scripts could not be loaded.

            Examples:
              mappings test
              mappings test --context '$TweetModel'
            """
    )

    @OptionGroup var load: LoadOptions

    @Option(help: ArgumentHelp("Run only this context's tests. Repeatable.", valueName: "id"))
    var context: [String] = []

    @OptionGroup var strict: StrictOption

    func run() throws {
        defer { load.lua.reportDroppedLogLines() }
        let catalog = try load.loadCatalog()
        for identifier in context where catalog.context(identifier) == nil {
            do {
                _ = try Mapper(catalog: catalog).context(identifier)
            } catch {
                Terminal.diagnostics(error)
                throw ToolFailure(status: .loadFailure)
            }
        }
        let results = ContextTestRunner.run(catalog, contexts: context.isEmpty ? nil : context, strict: strict.strict)
        for result in results {
            Terminal.output((result.passed ? "ok   " : "FAIL ") + result.title)
            for failure in result.failures { Terminal.output("       " + failure) }
        }
        let failed = results.filter { !$0.passed }.count
        Terminal.output("mappings test: \(results.count - failed) passed, \(failed) failed")
        if failed > 0 { throw ToolFailure(status: .issues) }
    }
}
