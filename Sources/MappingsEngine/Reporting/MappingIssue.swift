public import MappingsCompiler
public import MappingsJSON
public import MappingsModel

/// One problem found while mapping a payload: what, where in the payload, which property,
/// and which rule.
///
/// Rendered on one line as `path: message (file:line)`, and a warning as
/// `path: warning: message (file:line)`:
/// ```
/// $.tweets[3].user.name: missing required value (contexts/twitter.mappings:8)
/// $.user.extra: warning: unknown key "extra", read by no entry (contexts/users.mappings:3)
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
        /// A payload key that no entry of its context reads (`@unknownKeys`).
        public static let unknownKey = Kind("unknown key")
        /// A union's discriminator value names none of its `@cases`, and there is no `@otherwise`.
        public static let unknownCase = Kind("unknown case")
        /// Two elements of one payload collection have the same `@identity`: merged in order.
        public static let duplicateIdentity = Kind("duplicate identity")
        /// A set's payload array holds a value twice: it is kept once.
        public static let duplicateElement = Kind("duplicate element")
        /// The payload's text writes a key twice in one object, where the mapping reads: readers
        /// disagree on which value counts (the mapping read the last).
        public static let duplicateKey = Kind("duplicate key")
        /// A payload element has no value for its `@identity`: it is added as a new element.
        public static let missingIdentity = Kind("missing identity")
        /// What `@identity` did to an existing collection: the elements updated, added and removed.
        public static let collectionChanges = Kind("collection changes")
        /// A nested context's `@filter` dropped an element (an `info` issue): it is left out.
        public static let filtered = Kind("filtered")
        /// A record's output does not fit the format a surface writes it in (the Spark rows of
        /// `mappings stream --spark-frames`): a fault of the tool, not of the payload, never expected.
        public static let outputNotInSchema = Kind("output not in schema")
        /// A record — a line of a stream, a line of an NDJSON body — is not JSON.
        public static let invalidJSON = Kind("invalid JSON")
        /// A line of a stream is longer than the stream reads (64 MiB): it is rejected with its first bytes.
        public static let lineTooLong = Kind("line too long")
        /// A record of an input format other than JSON lines (a CSV row, an Avro datum) that the
        /// format cannot read: it is rejected with its bytes, its place and the format's reason.
        public static let unreadableRecord = Kind("unreadable record")
        /// The stream was stopped while the record was being mapped: it was not written.
        public static let interrupted = Kind("interrupted")

        public var description: String { rawValue }
    }

    /// How serious an issue is: an error makes the result unusable as it stands (a stream
    /// rejects the record, the tool exits 1); a warning is reported and the result used.
    ///
    /// A struct rather than an enum, like `Kind`, so that severities can be added without
    /// breaking clients; decide "had problems" with `MappingResult.hasErrors`, which counts
    /// `.error` only. `rawValue` is the name reports print (`"severity":"warning"`).
    public struct Severity: Sendable, Hashable, CustomStringConvertible {
        /// The name reports print (`error`, `warning`).
        public let rawValue: String
        private init(_ rawValue: String) { self.rawValue = rawValue }

        /// The result is not what the contexts promise: a stream rejects the record, the tool exits 1.
        public static let error = Severity("error")
        /// Worth knowing, but the result stands: reported, and the record written.
        public static let warning = Severity("warning")
        /// Not a problem: what mapping did that a reader may want to know (the elements
        /// `@identity` updated, added and removed). Like a warning, it never rejects a record.
        public static let info = Severity("info")

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
    /// How serious it is; every issue is an error unless something (`@unknownKeys: warn`)
    /// makes it a warning.
    public var severity: Severity = .error

    /// `path: message (file:line)` for an error; `path: warning: message (file:line)` for a
    /// warning (the severity word stands where an error has none, so the line parses either way).
    public var description: String {
        let word = severity == .error ? "" : "\(severity.rawValue): "
        return "\(path): \(word)\(message) (\(rule.location.file):\(rule.location.line))"
    }
}

/// What a mapping produced: the object (as complete as it could be made) and the issues.
public struct MappingResult: Sendable {
    /// The object, as complete as it could be made.
    public var value: Value
    /// Every issue found, in payload order: errors and warnings.
    public var issues: [MappingIssue]
    /// Whether the context's `@filter` dropped the payload: there is no object (`value` is
    /// null, or the existing object as it was), and the record is neither written nor rejected.
    public var filtered = false

    public init(value: Value, issues: [MappingIssue], filtered: Bool = false) {
        self.value = value
        self.issues = issues
        self.filtered = filtered
    }

    /// Whether an issue is an error: what decides that a record is rejected, or that the tool
    /// exits 1. Warnings alone leave it `false`.
    public var hasErrors: Bool { issues.contains { $0.severity == .error } }
    /// The issues that are errors, in order.
    public var errors: [MappingIssue] { issues.filter { $0.severity == .error } }
    /// The issues that are warnings, in order.
    public var warnings: [MappingIssue] { issues.filter { $0.severity == .warning } }
}

extension MappingIssue {
    /// An issue of a whole record rather than of a value in it — not JSON, a line too long, cut
    /// off by a stop, not the shape an operation needs: at `$`, for the context's model, from the
    /// context's rule. Every surface builds such issues here, so that they have the shape of any
    /// other (`json`).
    package init(record kind: Kind, message: String, context: CompiledContext) {
        self.init(
            kind: kind, path: "$", property: context.model ?? context.identifier ?? "$", rule: context.provenance,
            value: nil, message: message)
    }

    /// The issue as a JSON object, the one form every surface writes — `--report` files, the
    /// stream's and Spark's rejects, `serve`'s answers, the playground (docs/issue.schema.json):
    /// ```json
    /// {"kind":"missing required value","path":"$.user.name","property":"TweetModel.user.name",
    ///  "rule":"contexts/twitter.mappings:9","provenance":"contexts/twitter.mappings:9","message":"…",
    ///  "severity":"error"}
    /// ```
    /// `severity` comes last, so readers of the older form (without it) read the same fields.
    public var json: JSONValue {
        var members: [(key: String, value: JSONValue)] = [
            ("kind", .string(kind.rawValue)), ("path", .string(path)), ("property", .string(property)),
            ("rule", .string("\(rule.location.file):\(rule.location.line)")), ("provenance", .string(rule.description)),
        ]
        if let value { members.append(("value", .string(value))) }
        members.append(("message", .string(message)))
        members.append(("severity", .string(severity.rawValue)))
        return .object(JSONObject(members))
    }
}
