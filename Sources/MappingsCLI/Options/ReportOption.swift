import ArgumentParser

/// `--report FILE`: where `map`, `fetch` and `serialize` also write the issues, as a JSON array.
struct ReportOption: ParsableArguments {
    @Option(
        name: .customLong("report"),
        help: ArgumentHelp("Also write the issues to this file as a JSON array.", valueName: "file"))
    var path: String?
}

/// `--omit-nulls`: `map`, `stream`, `serialize` and `fetch` leave unset properties out of the
/// JSON they write instead of writing `null`.
struct NullsOption: ParsableArguments {
    @Flag(name: .customLong("omit-nulls"), help: "Leave unset properties out of the JSON written, instead of null.")
    var omit = false
}
