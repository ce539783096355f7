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
        /// `source` is a key no entry of the context reads (`"@unknownKeys"`), reported with
        /// this severity; `rule` is where `"@unknownKeys"` is written.
        case unknownKey(MappingIssue.Severity)
        /// `@identity` matched the payload's elements with those the collection held: which were
        /// updated, added and removed (`by id: 2 updated (1, 2), 1 added (4)`).
        case changed(String)
        /// An issue the run reported that no other line of the explanation shows (a repeated
        /// set value, an element skipped by `@onElementError`, a failure inside a nested
        /// object): its severity and message, so that `explain` lists every issue `map` reports.
        case reported(MappingIssue.Severity, String)
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
    /// The key paths the entry tries in order when its `@keyPath` lists several (the first
    /// present and not null wins); empty for an entry with one key path.
    public var keyPaths: [String] = []
    /// Which of `keyPaths` the value came from (0 for the first); `nil` when none was present,
    /// or the entry has one key path.
    public var keyPathIndex: Int?
    /// The `@keyStyle` an automatic entry was derived from (no entry of the context names the
    /// property); `nil` for an entry written out.
    public var keyStyle: KeyStyle?
    /// The entry's `@lookup` and the row it found: `@lookup countries.name (the row of "FR",
    /// tables/countries.csv:2)`; `nil` for an entry without one.
    public var lookup: String?

    /// `TweetModel.identifier <- $.id_str = "1"  [contexts/twitter.mappings:33]`; with fallback
    /// key paths, `TweetModel.text <- $.extended_tweet.full_text (key path 2 of 3) = "…"`, or
    /// `…; tried full_text, extended_tweet.full_text, text` when none was present. An automatic
    /// entry says so: `User.imageUrl <- $.image_url = "…"  [automatic snake_case, users.mappings:4]`;
    /// a key no entry reads: `UserModel: unknown key $.extra, read by no entry (warning)  [users.mappings:3]`.
    public var description: String {
        var text = property
        switch outcome {
        case .mapped(let value): text += " <- \(source)" + which + via + " = " + shortened(value)
        case .defaulted(let why): text += " = default (\(source) \(why)" + tried + ")"
        case .skipped(let why): text += " skipped: \(source) \(why), optional" + tried
        case .failed(let message): text += " FAILED at \(source)" + which + via + ": " + message + tried
        case .unknownKey(let severity): text += ": unknown key \(source), read by no entry (\(severity))"
        case .changed(let changes): text += " <- \(source) " + changes
        case .reported(let severity, let message):
            text += severity == .error ? " FAILED at \(source): " + message : " \(severity) at \(source): " + message
        }
        return text + "  [" + (keyStyle.map { "automatic \($0.rawValue), " } ?? "") + "\(rule)]"
    }

    /// ` (key path 2 of 3)` when the value came from one of several key paths.
    private var which: String {
        guard let keyPathIndex, !keyPaths.isEmpty else { return "" }
        return " (key path \(keyPathIndex + 1) of \(keyPaths.count))"
    }

    /// `; tried full_text, text` when the entry has several key paths and none was present.
    private var tried: String {
        guard keyPathIndex == nil, !keyPaths.isEmpty else { return "" }
        return "; tried " + keyPaths.joined(separator: ", ")
    }

    private var via: String {
        let lookup = lookup.map { " via " + $0 } ?? ""
        guard let transformer else { return lookup }
        return " via \(transformer)" + (transformerOrigin.map { " (\($0))" } ?? "") + lookup
    }

    private func shortened(_ text: String) -> String {
        text.count > 60 ? String(text.prefix(57)) + "…" : text
    }
}
