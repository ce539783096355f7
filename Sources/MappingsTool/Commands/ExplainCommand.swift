import ArgumentParser
import Foundation
import Mappings
import MappingsStream

/// `mappings explain`: where each property of a mapped payload came from.
struct ExplainCommand: ParsableCommand, LoadingCommand {
    static let configuration = CommandConfiguration(
        commandName: "explain",
        abstract: "Map a payload and say, for each property, where its value came from.",
        discussion: """
            One line per rule applied, in mapping order: the property, the payload path it read, the \
            transformer (with its script line) and the value — or the default used, or why it was skipped \
            or failed — and the rule's file:line with its inheritance and import chain.

            With --many, the input is an array and each element is explained in turn, under a line \
            naming it ([0], [1]…), with its own result line. A payload the context's @filter drops \
            says so instead of a result.

            Exit status: 0 mapped with no issue; 1 with issues; 2 nothing could be loaded.

            Examples:
              mappings explain --context '$TweetModel' Examples/twitter/tweet.json
              mappings explain --context '$TweetModel' --many \\
                Examples/twitter/timeline.json
            """
    )

    @OptionGroup var load: LoadOptions

    @Option(
        help: ArgumentHelp(
            "The identifier of the context to map with; without it, the one context the files hold.", valueName: "id"),
        completion: Completions.contexts)
    var context: String?

    @Option(
        help: ArgumentHelp(
            "Populate the existing object read from this JSON file instead of a new one.", valueName: "file"),
        completion: .file())
    var into: String?

    @Argument(help: ArgumentHelp("The JSON payload; stdin when omitted.", valueName: "input"), completion: .file())
    var input: String?

    @Flag(help: "The input is an array of payloads: explain each element (as 'mappings map --many' maps them).")
    var many = false

    @OptionGroup var strict: StrictOption

    func validate() throws {
        if many && into != nil { throw ValidationError("--many and --into cannot be used together") }
    }

    func run() throws {
        if many { return try runMany() }
        defer { load.lua.reportDroppedLogLines() }
        let catalog = try load.loadCatalog()
        let context = try LoadOptions.contextIdentifier(self.context, in: catalog)
        let payload = try PayloadInput.read(input, what: "the input")
        var explained: (result: MappingResult, explanations: [Explanation])
        do {
            let mapper = Mapper(catalog: catalog).strictConversions(strict.strict)
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
        Self.show(explained, context: catalog.context(context))
        if explained.result.hasErrors { throw ToolFailure(status: .issues) }
    }

    /// Each element of the input array explained in turn, under a line naming it.
    private func runMany() throws {
        defer { load.lua.reportDroppedLogLines() }
        let catalog = try load.loadCatalog()
        let payload = try PayloadInput.read(input, what: "the input")
        let mapper = Mapper(catalog: catalog).strictConversions(strict.strict)
        let compiled = try LoadOptions.context(try LoadOptions.contextIdentifier(context, in: catalog), of: mapper)
        guard case .array(let elements) = payload else {
            Terminal.error("mappings explain: --many takes an array of payloads, not \(Converter.describe(payload))")
            throw ToolFailure(status: .issues)
        }
        var errors = false
        for (index, element) in elements.enumerated() {
            Terminal.output("[\(index)]")
            let explained = mapper.explain(element, using: compiled)
            Self.show(explained, context: compiled)
            errors = errors || explained.result.hasErrors
        }
        if errors { throw ToolFailure(status: .issues) }
    }

    /// The lines of an explanation, then its result (or that the filter dropped the payload).
    private static func show(
        _ explained: (result: MappingResult, explanations: [Explanation]), context: CompiledContext?
    ) {
        for explanation in explained.explanations { Terminal.output(explanation.description) }
        if explained.result.filtered {
            let place = context?.filterProvenance.map { " (\($0.location.file):\($0.location.line))" } ?? ""
            Terminal.output("dropped by \"@filter\"\(place): no result")
        } else {
            Terminal.output("result: " + JSONWriter.string(explained.result.value))
        }
    }
}
