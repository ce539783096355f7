/// A failure already reported on stderr, carrying the exit status it ends with.
package struct ToolFailure: Error {
    package var status: ExitStatus

    package init(status: ExitStatus) {
        self.status = status
    }
}
