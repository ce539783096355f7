/// The tool's exit statuses.
package enum ExitStatus: Int32 {
    /// Everything went through.
    case success = 0
    /// Mapped, with issues.
    case issues = 1
    /// Contexts, scripts, arguments or input could not be loaded.
    case loadFailure = 2
    /// `stream` stopped by a signal before the end of its input: resume it where it says
    /// (sysexits' EX_TEMPFAIL, "try again later", which schedulers know).
    case stopped = 75
    /// `stream --to`: the database could not be reached for `--retry-for` (sysexits'
    /// EX_UNAVAILABLE); the job resumes at its last commit when started again.
    case destinationUnavailable = 69
}
