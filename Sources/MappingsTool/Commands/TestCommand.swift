import ArgumentParser
import Foundation
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

            With --update, the failing tests' expected "output" and "issues" are rewritten to what the \
            contexts now give (a test with "outputIncludes" alone is left to you): the diff of each file \
            is shown, then the file written, laid out as 'mappings fmt' lays it out. Read the diff: it is \
            what the tests will expect from now on.

            Exit status: 0 every test passed (with --update: every failing test was updated); 1 some \
            failed (or could not be updated); 2 the contexts or scripts could not be loaded.

            Examples:
              mappings test
              mappings test --context '$TweetModel'
              mappings test --update
            """
    )

    @OptionGroup var load: LoadOptions

    @Option(help: ArgumentHelp("Run only this context's tests. Repeatable.", valueName: "id"))
    var context: [String] = []

    @OptionGroup var strict: StrictOption

    @Flag(
        help: """
            Rewrite the expected "output" and "issues" of the failing tests to what the contexts now give, \
            after showing the diff of each file (laid out as 'mappings fmt' lays it out).
            """)
    var update = false

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
        if update, failed > 0 {
            try Self.update(results)
            return
        }
        if failed > 0 { throw ToolFailure(status: .issues) }
    }

    /// Shows each file's diff, then writes it; exit 1 when a failing test could not be updated.
    static func update(_ results: [ContextTestResult]) throws {
        let (files, skipped) = ContextTestUpdate.updates(for: results) { path in
            FileManager.default.contents(atPath: path).map { [UInt8]($0) }
        }
        for file in files {
            let diff = LineDiff.unified(file.before, file.after, path: file.path)
            if !diff.isEmpty { Terminal.output(String(diff.dropLast())) }
            do {
                try Data(file.after.utf8).write(to: URL(fileURLWithPath: file.path), options: .atomic)
            } catch {
                Terminal.error("error: cannot write \(file.path): \(error.localizedDescription)")
                throw ToolFailure(status: .issues)
            }
            let count = file.tests.count
            Terminal.output("updated \(count) test\(count == 1 ? "" : "s") in \(file.path)")
        }
        for (title, reason) in skipped { Terminal.output("not updated: \(title): \(reason)") }
        if !skipped.isEmpty { throw ToolFailure(status: .issues) }
    }
}
