package import Mappings

extension InputFile {
    /// Reports that `path` cannot be read and why, and ends the command with exit status 2.
    package static func unreadable(_ failure: Failure, path: String?, what: String) -> ToolFailure {
        Terminal.error("error: cannot read \(what) \"\(path ?? "<stdin>")\": \(failure.reason)")
        return ToolFailure(status: .loadFailure)
    }
}
