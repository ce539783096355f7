/// What `mappings stream` does with a record that mapped with issues (`--on-issue`).
package enum IssuePolicy: String, CaseIterable, Sendable {
    /// Write it to the rejects, not to the output (the default).
    case reject
    /// Write it to the output anyway, and its issues to stderr.
    case emit
    /// Reject it and stop the stream.
    case fail
}
