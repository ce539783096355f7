import ArgumentParser
import MappingsStream

/// `--report FILE`: where `map`, `fetch` and `serialize` also write the issues, as a JSON array.
struct ReportOption: ParsableArguments {
    @Option(
        name: .customLong("report"),
        help: ArgumentHelp("Also write the issues to this file as a JSON array.", valueName: "file"),
        completion: .file())
    var path: String?
}

/// `--omit-nulls`: `map`, `stream`, `serialize` and `fetch` leave unset properties out of the
/// JSON they write instead of writing `null`.
struct NullsOption: ParsableArguments {
    @Flag(name: .customLong("omit-nulls"), help: "Leave unset properties out of the JSON written, instead of null.")
    var omit = false
}

/// `--strict`: `map`, `stream`, `serialize` and `test` convert a value only from its own JSON
/// kind where a context says nothing of `"@conversions"` (one that says `"lenient"` stays so).
struct StrictOption: ParsableArguments {
    @Flag(
        name: .customLong("strict"),
        help:
            "Convert values only from their own JSON kind (\"@conversions\": \"strict\") where a context says nothing.")
    var strict = false
}

extension IssuePolicy: ExpressibleByArgument {}
