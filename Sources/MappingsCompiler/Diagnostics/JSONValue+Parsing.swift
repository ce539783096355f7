public import MappingsJSON

extension JSONValue {
    /// Reads JSON text (RFC 8259; a byte-order mark is skipped), keeping numbers exact and keys
    /// in the order written.
    ///
    /// - Throws: `MappingsError` of kind `.invalidInput`, whose diagnostic says where the text
    ///   stops being JSON:
    ///   ```
    ///   error: expected ',' or '}' after an object member
    ///    --> <input>:1:12
    ///   ```
    public init(parsing bytes: [UInt8], file: String = "<input>") throws(MappingsError) {
        try self.init(parsing: bytes, demand: .everything, file: file)
    }

    /// `init(parsing:file:)` building only what `demand` asks for (what a context reads).
    package init(parsing bytes: [UInt8], demand: JSONDemand, file: String) throws(MappingsError) {
        do {
            self = try JSONParser.parse(bytes, demand: demand)
        } catch {
            throw MappingsError(
                kind: .invalidInput,
                diagnostics: [
                    Diagnostic(
                        message: error.message,
                        location: SourceLocation(file: file, line: error.line, column: error.column))
                ])
        }
    }

    /// Reads JSON text from a string; see `init(parsing:file:)` for bytes.
    public init(parsing text: String, file: String = "<input>") throws(MappingsError) {
        try self.init(parsing: Array(text.utf8), file: file)
    }

    /// The value as compact JSON text, on one line.
    public var jsonText: String { JSONWriter.string(self) }
}
