import Foundation
import MappingsTestSupport
import Testing

/// The project's Python environment (`tools/python-env` makes it, under `.build/venv`), for
/// the tests that check outputs with Python's `jsonschema`.
///
/// Missing, a test that needs it prints why it does not run, except under CI (`CI=true`),
/// where `.ci/run` has made it and its absence is a failure.
enum PythonEnvironment {
    /// The environment's interpreter, or `nil` (with the reason printed, or a failure under CI).
    static func python() -> URL? {
        let python = ToolRunner.packageRoot.appendingPathComponent(".build/venv/bin/python")
        if FileManager.default.isExecutableFile(atPath: python.path) { return python }
        let reason = "no Python environment at .build/venv (make it with tools/python-env)"
        if ProcessInfo.processInfo.environment["CI"] == "true" {
            Issue.record(Comment(rawValue: reason))
        } else {
            print("skipped: " + reason)
        }
        return nil
    }
}
