package import MappingsJSON
import MappingsModel

/// One test a context carries in `"@tests"`: a payload, and the output (whole, or the part of it
/// `"outputIncludes"` names) or issues it must give.
///
/// ```jsonc
/// "@tests": [
///     { "input": { "id_str": "1", "text": "hi", "user": { "name": "Ann" } },
///       "output": { "identifier": "1", "message": "hi", "user": { "name": "Ann", "imageUrl": null } } },
///     { "input": {}, "issues": [ { "path": "$.id_str", "kind": "missing required value" } ] }
/// ]
/// ```
package struct ContextTest: Sendable {
    /// What an issue of the result must look like; `nil` fields are not checked, and the
    /// message matches when it contains `message`. Warnings are issues too: a test lists them
    /// with the errors, in order, and may say which is which with `severity`.
    package struct ExpectedIssue: Sendable, Hashable {
        package var kind: String?
        /// `error` or `warning`.
        package var severity: String?
        package var path: String?
        package var property: String?
        package var message: String?
    }

    /// A name for reports, when the test has one.
    package var name: String?
    package var input: JSONValue
    /// The expected output (object keys in any order; `1` equals `1.0`); `nil`: not checked.
    package var output: JSONValue?
    /// Part of the expected output (`"outputIncludes"`): every key given must be in the output
    /// with a matching value, recursively through objects; arrays match element by element at
    /// the same length; an expected `null` also matches a key the output lacks. `nil`: not checked.
    package var outputIncludes: JSONValue?
    /// The expected issues, in order; `nil`: there must be none.
    package var issues: [ExpectedIssue]?
    /// Map `input` as an array of payloads (`--many`).
    package var many: Bool
    /// Where the test is written.
    package var location: SourceLocation
    /// The existing object `input` populates (`"into"`, as `map --into` reads it); `nil`: a new one.
    package var into: JSONValue? = nil
    /// Where the values of `"output"` and `"issues"` start, for `mappings test --update`.
    package var outputLocation: SourceLocation? = nil
    package var issuesLocation: SourceLocation? = nil
    /// The tables the test gives (`"tables"`), as written, for the loader to read into `tables`.
    package var tableFixtures: [TableFixture] = []
    /// The fixture tables read, by name: what `@lookup` entries read while the test runs, in
    /// place of the tables of those names.
    package var tables: [String: LookupTable] = [:]

    /// A table a test gives in place of the one `@tables` declares under its name: a file
    /// (beside the tests, relative to the `.mappings` file) or rows, read with the
    /// declaration's key and column types.
    package struct TableFixture: Sendable {
        package var name: String
        /// The path as written, and resolved against the `.mappings` file; `nil` for rows.
        package var file: (written: String, path: String)?
        package var rows: [JSONValue]?
        package var location: SourceLocation

        init(name: String, location: SourceLocation) {
            self.name = name
            self.location = location
        }
    }
}
