public import MappingsCompiler
public import MappingsJSON
public import MappingsModel

/// One problem found while mapping a payload: what, where in the payload, which property,
/// and which rule.
///
/// Rendered on one line as `path: message (file:line)`:
/// ```
/// $.tweets[3].user.name: missing required value (contexts/twitter.mappings:8)
/// ```
public struct MappingIssue: Sendable, Hashable, CustomStringConvertible {
    /// What kind of issue. A struct rather than an enum, so that kinds can be added without
    /// breaking clients (as `MappingsError.Kind`); `rawValue` is the name reports print.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        /// The name reports print (`missing required value`).
        public let rawValue: String
        private init(_ rawValue: String) { self.rawValue = rawValue }

        /// A required value is missing or null.
        public static let missingRequiredValue = Kind("missing required value")
        /// A value could not be converted to its property's type.
        public static let conversionFailed = Kind("conversion failed")
        /// A transformer failed, or tripped a limit.
        public static let transformerFailed = Kind("transformer failed")
        /// The payload is not of the shape the operation needs.
        public static let invalidSource = Kind("invalid source")

        public var description: String { rawValue }
    }

    /// What kind of issue.
    public var kind: Kind
    /// Where in the payload: `$.tweets[3].user.name`.
    public var path: String
    /// The target property: `TweetModel.user.name`.
    public var property: String
    /// The rule that asked for the value.
    public var rule: Provenance
    /// A short rendering of the offending value, when there is one.
    public var value: String?
    /// What went wrong, in words.
    public var message: String

    public var description: String {
        "\(path): \(message) (\(rule.location.file):\(rule.location.line))"
    }
}

/// What a mapping produced: the object (as complete as it could be made) and the issues.
public struct MappingResult: Sendable {
    /// The object, as complete as it could be made.
    public var value: Value
    /// Every issue found, in payload order.
    public var issues: [MappingIssue]
}

extension MappingIssue {
    /// The issue as a JSON object, the form `--report` files and rejects use:
    /// ```json
    /// {"kind":"missing required value","path":"$.user.name","property":"TweetModel.user.name",
    ///  "rule":"contexts/twitter.mappings:9","provenance":"contexts/twitter.mappings:9","message":"…"}
    /// ```
    public var json: JSONValue {
        var members: [(key: String, value: JSONValue)] = [
            ("kind", .string(kind.rawValue)), ("path", .string(path)), ("property", .string(property)),
            ("rule", .string("\(rule.location.file):\(rule.location.line)")), ("provenance", .string(rule.description)),
        ]
        if let value { members.append(("value", .string(value))) }
        members.append(("message", .string(message)))
        return .object(JSONObject(members))
    }
}
