/// A value that could not be converted to its declared type.
public struct ConversionFailure: Sendable, Hashable {
    /// Where, below the converted value, the failure is: `""` for the value itself,
    /// `.user.name` or `[3]` for a part of it.
    public var relativePath: String
    public var message: String

    public init(relativePath: String = "", message: String) {
        self.relativePath = relativePath
        self.message = message
    }
}
