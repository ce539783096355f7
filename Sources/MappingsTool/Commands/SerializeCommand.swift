import ArgumentParser
import Foundation
import Mappings
import MappingsStream

/// `mappings serialize`: the reverse of `map`, an object back into the payload its context reads.
struct SerializeCommand: ParsableCommand, LoadingCommand {
    static let configuration = CommandConfiguration(
        commandName: "serialize",
        abstract: "Write an object back as the JSON payload a context maps it from (reverse mapping).",
        discussion: """
            Reads an object as 'mappings map' writes it (INPUT or stdin), and writes the payload \
            that the context would map into that object: each entry's property goes back to its \
            key path, nested objects through their contexts, dates with their @dateFormat, and \
            transformed values through the entry's @reverseTransformSelector.

            Exit status: 0 written with no issue; 1 with issues (a transformer without a reverse, \
            one that failed); 2 the contexts, arguments or input could not be loaded.

            Examples:
              mappings map --context '$TweetModel' Examples/twitter/tweet.json |
                mappings serialize --context '$TweetModel'
            """
    )

    @OptionGroup var load: LoadOptions

    @Option(
        help: ArgumentHelp(
            "The identifier of the context, such as '$TweetModel'; without it, the one context the files hold.",
            valueName: "id"),
        completion: Completions.contexts)
    var context: String?

    @Flag(help: "Read a JSON array of objects and write an array of payloads.")
    var many = false

    @OptionGroup var report: ReportOption

    @OptionGroup var nulls: NullsOption

    @OptionGroup var strict: StrictOption

    @Flag(
        name: .customLong("nulls"),
        help: "Write null at the key path of each unset property (left out by default).")
    var writeNulls = false

    func validate() throws {
        if writeNulls && nulls.omit { throw ValidationError("--nulls and --omit-nulls cannot be used together") }
    }

    @Argument(help: ArgumentHelp("The object as JSON; stdin when omitted.", valueName: "input"), completion: .file())
    var input: String?

    func run() throws {
        let catalog = try load.loadCatalog()
        let context = try LoadOptions.contextIdentifier(self.context, in: catalog)
        let mapper = Mapper(catalog: catalog).strictConversions(strict.strict)
        let compiled = try LoadOptions.context(context, of: mapper)
        Terminal.diagnostics(mapper.reverseNotes(for: compiled), severity: "note")
        let json = try PayloadInput.read(input, what: "the input")
        var issues: [MappingIssue] = []
        func object(_ json: JSONValue) throws -> Value {
            let read = try mapper.existingObject(from: json, context: context)
            issues += read.issues
            return read.value
        }
        var result: MappingResult
        if many {
            guard case .array(let elements) = json else {
                Terminal.error("error: --many reads a JSON array of objects, not \(json.typeName)")
                throw ToolFailure(status: .loadFailure)
            }
            result = mapper.payloads(from: try elements.map(object), using: compiled, writingNulls: writeNulls)
        } else {
            result = mapper.payload(from: try object(json), using: compiled, writingNulls: writeNulls)
        }
        result.issues = issues + result.issues
        try ResultOutput.emit(result, report: report.path, omitNulls: nulls.omit)
    }
}
