import ArgumentParser

/// `--report FILE`: where `map`, `fetch` and `serialize` also write the issues, as a JSON array.
struct ReportOption: ParsableArguments {
    @Option(
        name: .customLong("report"),
        help: ArgumentHelp("Also write the issues to this file as a JSON array.", valueName: "file"))
    var path: String?
}
