public import MappingsCompiler
import MappingsJSON
import MappingsModel

/// What one rule did while mapping a payload: where the property's value came from, or why
/// it has none. `Mapper.explain(_:using:)` returns one per rule applied.
public struct Explanation: Sendable, CustomStringConvertible {
    /// What happened to the property.
    public enum Outcome: Sendable {
        /// A value was found (and transformed, when the rule names a transformer): its JSON text,
        /// or `"A" → "active" (@valueMap)` when the entry's value map translated it.
        case mapped(String)
        /// No value: the default was used.
        case defaulted(String)
        /// No value, optional and no default: the property was left as it was.
        case skipped(String)
        /// The rule failed; the report has the issue.
        case failed(String)
    }

    /// The target property path: `TweetModel.user.name`.
    public var property: String
    /// The payload path the rule read: `$.user.name`.
    public var source: String
    /// What happened to the property.
    public var outcome: Outcome
    /// The rule, with where it was declared.
    public var rule: Provenance
    /// `MyTransformers.coordinate2DFromDictionary`, when the rule names a transformer.
    public var transformer: String?
    /// Where that transformer is defined (`scripts/MyTransformers.lua:13`), when known.
    public var transformerOrigin: String?

    /// `TweetModel.identifier <- $.id_str = "1"  [contexts/twitter.mappings:33]`
    public var description: String {
        var text = property
        switch outcome {
        case .mapped(let value): text += " <- \(source)" + via + " = " + shortened(value)
        case .defaulted(let why): text += " = default (\(source) \(why))"
        case .skipped(let why): text += " skipped: \(source) \(why), optional"
        case .failed(let message): text += " FAILED at \(source)" + via + ": " + message
        }
        return text + "  [\(rule)]"
    }

    private var via: String {
        guard let transformer else { return "" }
        return " via \(transformer)" + (transformerOrigin.map { " (\($0))" } ?? "")
    }

    private func shortened(_ text: String) -> String {
        text.count > 60 ? String(text.prefix(57)) + "…" : text
    }
}
