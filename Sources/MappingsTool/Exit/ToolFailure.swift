/// A failure already reported on stderr, carrying the exit status it ends with.
struct ToolFailure: Error {
    var status: ExitStatus
}
