import MappingsJSON
import MappingsModel

/// What one entry of a context writes: the source key path of a short-form entry, or the
/// `@` keywords of a long-form one, each read for its own shape but not yet checked against
/// the others.
///
/// Reading an entry reports what is wrong with each option in the order the options are
/// written; the checks that follow (transformer, collection flags, date format, object,
/// default value) see only the options that read well, so one mistake is reported once.
struct EntryOptions {
    /// `@keyPath`, or the short form's string; empty when the entry names none.
    var source = PayloadKeyPath(components: [], text: "")
    /// The key paths after the first when `@keyPath` is an array of them.
    var fallbacks: [PayloadKeyPath] = []
    /// `@keyPath` as an object: a keyed selection.
    var selection: [SelectedKey]?
    /// `@optional`.
    var isOptional = false
    /// Where `"@optional": false` is written, which a `@defaultValue` contradicts.
    var explicitRequired: SourceLocation?
    /// `@defaultValue` as written.
    var defaultValue: SyntaxNode?
    var transformClass: SyntaxMember?
    var transformSelector: SyntaxMember?
    var transformUserData: SyntaxMember?
    var reverseTransformSelector: SyntaxMember?
    /// `@lua` and `@reverseLua`: inline code instead of a named transformer.
    var lua: SyntaxMember?
    var reverseLua: SyntaxMember?
    /// `@lookup`: a table's row, or one of its columns, found by the value's key.
    var lookup: SyntaxMember?
    /// `@object`, compiled once the entry's type is known.
    var object: SyntaxMember?
    /// `@clearContent`, read once the entry's type is known.
    var clearContent: SyntaxMember?
    /// `@insertContentAtBegin`, read once the entry's type is known.
    var insertContentAtBegin: SyntaxMember?
    /// `@dateFormat`: patterns and named formats, in the order they are tried.
    var dateFormat: [String]?
    /// `@dateRange`: the dates the value may be.
    var dateRange: DateFormats.DateRange?
    /// `@type`, which only a context without a model may write.
    var type: TypeReference?
    /// `@valueMap`, compiled once the entry's type is known.
    var valueMap: SyntaxMember?
    /// `@reverseValue`, read with `@valueMap`.
    var reverseValue: SyntaxMember?
    /// `@reverseFanOut`, read once the entry's type is known.
    var reverseFanOut: SyntaxMember?
    /// `@reverse`, when written; `forwardOnly` is its value negated.
    var reverse: SyntaxMember?
    /// `"@reverse": false`: serialize leaves the entry out.
    var forwardOnly = false
    /// `@identity`, `@onElementError`, `@onError` and `@null`, compiled once the entry's type
    /// is known (`ContextCompiler+Policies.swift`).
    var policies: [SyntaxMember] = []
    /// Whether every option read well; `false` once one was reported.
    var isValid = true
}
