package import MappingsCompiler
package import MappingsJSON

extension PayloadKeyPath {
    /// The value this key path reads in `json`, as a mapping would: `.success(nil)` when it is
    /// missing (or null), `.failure` with the payload path and a message when a step cannot apply.
    package func select(in json: JSONValue) -> Result<JSONValue?, MappingsError> {
        switch SourceLookup.lookup(self, in: json, base: "$") {
        case .found(let value, _):
            if case .null = value { return .success(nil) }
            return .success(value)
        case .missing:
            return .success(nil)
        case .invalid(let message, let path):
            return .failure(
                MappingsError(kind: .invalidInput, diagnostics: [Diagnostic(message: "\(path): \(message)")]))
        }
    }
}
