public import MappingsJSON
import MappingsModel

/// One test a context carries in `"@tests"`: a payload, and the output or issues it must give.
///
/// ```jsonc
/// "@tests": [
///     { "input": { "id_str": "1", "text": "hi", "user": { "name": "Ann" } },
///       "output": { "identifier": "1", "message": "hi", "user": { "name": "Ann", "imageUrl": null } } },
///     { "input": {}, "issues": [ { "path": "$.id_str", "kind": "missing required value" } ] }
/// ]
/// ```
public struct ContextTest: Sendable {
    /// What an issue of the result must look like; `nil` fields are not checked, and the
    /// message matches when it contains `message`.
    public struct ExpectedIssue: Sendable, Hashable {
        public var kind: String?
        public var path: String?
        public var property: String?
        public var message: String?
    }

    /// A name for reports, when the test has one.
    public var name: String?
    public var input: JSONValue
    /// The expected output (object keys in any order; `1` equals `1.0`); `nil`: not checked.
    public var output: JSONValue?
    /// The expected issues, in order; `nil`: there must be none.
    public var issues: [ExpectedIssue]?
    /// Map `input` as an array of payloads (`--many`).
    public var many: Bool
    /// Where the test is written.
    public var location: SourceLocation
}
