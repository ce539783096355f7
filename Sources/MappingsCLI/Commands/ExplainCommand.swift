import ArgumentParser
import Foundation
import Mappings

/// `mappings explain`: where each property of a mapped payload came from.
struct ExplainCommand: ParsableCommand, LoadingCommand {
    static let configuration = CommandConfiguration(
        commandName: "explain",
        abstract: "Map a payload and say, for each property, where its value came from.",
        discussion: """
            One line per rule applied, in mapping order: the property, the payload path it read, the \
            transformer (with its script line) and the value — or the default used, or why it was skipped \
            or failed — and the rule's file:line with its inheritance and import chain.

            Exit status: 0 mapped with no issue; 1 with issues; 2 nothing could be loaded.

            Example:
              mappings explain --context '$TweetModel' Examples/twitter/tweet.json
            """
    )

    @OptionGroup var load: LoadOptions

    @Option(
        help: ArgumentHelp("The identifier of the context to map with.", valueName: "id"),
        completion: Completions.contexts)
    var context: String

    @Option(
        help: ArgumentHelp(
            "Populate the existing object read from this JSON file instead of a new one.", valueName: "file"),
        completion: .file())
    var into: String?

    @Argument(help: ArgumentHelp("The JSON payload; stdin when omitted.", valueName: "input"), completion: .file())
    var input: String?

    func run() throws {
        defer { load.lua.reportDroppedLogLines() }
        let catalog = try load.loadCatalog()
        let payload = try PayloadInput.read(input, what: "the input")
        var explained: (result: MappingResult, explanations: [Explanation])
        do {
            let mapper = Mapper(catalog: catalog)
            let compiled = try mapper.context(context)
            var existing: MappingResult?
            if let into {
                existing = mapper.existingObject(from: try PayloadInput.read(into, what: "--into"), using: compiled)
            }
            explained = mapper.explain(payload, into: existing?.value, using: compiled)
            explained.result.issues = (existing?.issues ?? []) + explained.result.issues
        } catch let error as MappingsError {
            Terminal.diagnostics(error)
            throw ToolFailure(status: .loadFailure)
        }
        for explanation in explained.explanations { Terminal.output(explanation.description) }
        Terminal.output("result: " + JSONWriter.string(explained.result.value))
        if explained.result.hasErrors { throw ToolFailure(status: .issues) }
    }
}
