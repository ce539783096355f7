import MappingsJSON

/// A value that could not be converted to its declared type.
public struct ConversionFailure: Sendable, Hashable {
    /// Where, below the converted value, the failure is: `""` for the value itself,
    /// `.user.name` or `[3]` for a part of it.
    public var relativePath: String
    /// What went wrong, in words.
    public var message: String
    /// Whether a required property of a model built by name had no value (the rest are
    /// values that did not convert).
    public var isMissingValue: Bool
    /// Whether it is only worth a warning: the value converted (a duplicate in a set, kept once).
    package var isWarning = false
    /// Whether it is a repeated element of a set (kept once): the issue kind `duplicate element`.
    package var isDuplicate = false
    /// The failing part's own value, described (`number 2`), when it is not the whole value
    /// converted: reports give it instead of the whole value's description.
    package var partValue: String?

    /// A failure at `relativePath` (`.user.name`, `[2]`), missing value or not.
    public init(relativePath: String = "", message: String, isMissingValue: Bool = false) {
        self.relativePath = relativePath
        self.message = message
        self.isMissingValue = isMissingValue
    }
}
