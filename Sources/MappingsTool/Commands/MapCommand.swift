import ArgumentParser
import Foundation
import Mappings
import MappingsStream

/// `mappings map`: map a JSON payload with a context and print the object as JSON.
struct MapCommand: ParsableCommand, LoadingCommand {
    static let configuration = CommandConfiguration(
        commandName: "map",
        abstract: "Map a JSON payload with a context and print the result as JSON.",
        discussion: """
            Reads INPUT (or stdin), maps it with the context, and writes the object as one line of \
            JSON to stdout. Issues go to stderr, one per line, as 'path: message (file:line)' (a warning \
            as 'path: warning: message (file:line)').

            An input of several records (--from-format csv, or a file named .csv) maps each record, \
            writing one line of JSON each (or with --to-format csv, a header and a row each); each \
            issue follows the record's place, 'rows.csv:3: path: message' (docs/formats.md).

            Exit status: 0 mapped with no error (warnings allowed); 1 mapped with errors (stdout still \
            holds the object); \
            2 the contexts, arguments or input could not be loaded (nothing on stdout).

            Examples:
              mappings map --context '$TweetModel' Examples/twitter/tweet.json
              mappings map --context '$TweetModel' --many \\
                Examples/twitter/timeline.json
              mappings map --mappings Examples/formats/orders.mappings \\
                --to-format csv Examples/formats/orders.csv
              mappings map --context '$TweetModel_Details' \\
                --into Examples/twitter/existing-tweet.json \\
                Examples/twitter/details.json
            """
    )

    @OptionGroup var load: LoadOptions

    @Option(
        help: ArgumentHelp(
            "The identifier of the context to map with, such as '$TweetModel'; without it, the one context the files hold.",
            valueName: "id"),
        completion: Completions.contexts)
    var context: String?

    @Flag(help: "Map a JSON array into an array of objects, one per element.")
    var many = false

    @Option(
        help: ArgumentHelp(
            "Populate the existing object read from this JSON file instead of a new one.", valueName: "file"),
        completion: .file())
    var into: String?

    @OptionGroup var report: ReportOption

    @OptionGroup var nulls: NullsOption

    @OptionGroup var strict: StrictOption

    @OptionGroup var formats: FormatOptions

    @Flag(
        help: """
            Map with the general engine, never with the context's fast plan (the same output, slower; \
            `mappings check --explain-plan` says which contexts have a fast plan).
            """)
    var generalEngine = false

    @Argument(
        help: ArgumentHelp("The JSON payload to map; stdin when omitted.", valueName: "input"), completion: .file())
    var input: String?

    func validate() throws {
        if many && into != nil { throw ValidationError("--many and --into cannot be used together") }
        if into != nil,
            formats.fromFormat.map({ !$0.isJSONLines }) ?? false || formats.toFormat.map({ !$0.isJSONLines }) ?? false
        {
            throw ValidationError("--into populates one JSON object: drop --from-format and --to-format")
        }
    }

    func run() throws {
        defer { load.lua.reportDroppedLogLines() }
        let catalog = try load.loadCatalog()
        let context = try LoadOptions.contextIdentifier(self.context, in: catalog)
        let mapper = Mapper(catalog: catalog).strictConversions(strict.strict)
        let compiled = try LoadOptions.context(context, of: mapper)
        let bytes = try PayloadInput.bytes(input, what: "the input")
        if into == nil, let format = formatted(bytes) {
            return try mapFormatted(bytes, format: format, mapper: mapper, compiled: compiled, catalog: catalog)
        }
        let isArray = JSONParser.firstByte(of: bytes) == UInt8(ascii: "[")
        // One payload into a new object: the record path (the context's fast plan when the
        // payload maps cleanly, else the general engine), as a stream maps each record.
        if into == nil, !many {
            let records = RecordMapper(
                mapper: mapper, context: compiled, usesFastPlan: !generalEngine, omittingNulls: nulls.omit)
            var text: [UInt8] = []
            text.reserveCapacity(bytes.count)
            let outcome = records.map(bytes, into: &text)
            if let failure = outcome.failure { throw PayloadInput.invalid(failure, path: input, what: "the input") }
            if outcome.kind == .filtered {
                Self.noteFiltered(compiled)
                return
            }
            // An array mapped as one payload: the note first, and alone when every issue comes
            // from reading the array as one payload (the report still has them all).
            var shown = outcome.issues
            if isArray, outcome.kind == .withErrors {
                // Nothing on stdout: an object of nulls made of an array is no output to keep.
                text = []
                let fromArray = outcome.issues.allSatisfy { $0.path.hasPrefix("$[") }
                Terminal.error(
                    "note: the input is an array; to map each of its elements into \(context), add --many"
                        + (fromArray
                            ? " (its \(outcome.issues.count) issues, each from reading the array as one payload, are not shown)"
                            : ""))
                if fromArray { shown = [] }
            }
            try ResultOutput.emit(written: text, issues: outcome.issues, shown: shown, report: report.path)
            return
        }
        let result: MappingResult
        if let into {
            let existing: MappingResult
            do {
                existing = try mapper.existingObject(
                    from: try PayloadInput.read(into, what: "--into"), context: context)
            } catch let error as MappingsError {
                Terminal.diagnostics(error)
                throw ToolFailure(status: .loadFailure)
            }
            let payload: JSONValue
            do {
                payload = try JSONParser.parse(bytes, demand: compiled.demand)
            } catch {
                throw PayloadInput.invalid(error, path: input, what: "the input")
            }
            var mapped = try mapper.map(payload, into: existing.value, context: context)
            mapped.issues = existing.issues + mapped.issues
            if mapped.filtered, !mapped.hasErrors {
                Self.noteFiltered(compiled)
                return
            }
            result = mapped
        } else {
            do {
                result = try mapper.objects(fromJSON: bytes, using: compiled)
            } catch {
                throw PayloadInput.invalid(error, path: input, what: "the input")
            }
        }
        defer {
            // Issues that come from the payload's shape, not its values: say which flag fits.
            if many, !isArray {
                Terminal.error("note: the input is not an array; without --many it is mapped as one payload")
            }
        }
        try ResultOutput.emit(result, report: report.path, omitNulls: nulls.omit, capacity: bytes.count)
    }

    /// A payload the context's `@filter` dropped: nothing on stdout, a line on stderr, exit 0.
    private static func noteFiltered(_ context: CompiledContext) {
        let place = context.filterProvenance.map { " (\($0.location.file):\($0.location.line))" } ?? ""
        Terminal.error("mappings map: the payload was dropped by \"@filter\"\(place): nothing is written")
    }
}
