import MappingsCompiler
import MappingsJSON

/// The transformer calls made while mapping one record, kept so that mapping the record again
/// (a fast plan that gives the record to the general engine) does not call them again: the
/// same answers, script log lines once, one share of the Lua budget.
///
/// A transformer's answer depends on its input and user data only (scripts run sandboxed,
/// without a clock or randomness to read), so a call is known by its reference and its input.
package final class TransformerMemo: @unchecked Sendable {
    // `@unchecked`: a memo belongs to one record on one thread; it is never shared.
    private var calls: [(reference: TransformerReference, input: JSONValue, result: Result<JSONValue, any Error>)] =
        []

    package init() {}

    /// What `transformer` answers for `input`: the answer kept from an earlier call with the
    /// same reference and input, or a new call's, kept.
    func call(_ transformer: any Transformer, _ reference: TransformerReference, _ input: JSONValue) throws
        -> JSONValue
    {
        if let kept = calls.first(where: { $0.reference == reference && $0.input == input }) {
            return try kept.result.get()
        }
        let result = Result { try transformer.transform(input, userData: reference.userData) }
        calls.append((reference, input, result))
        return try result.get()
    }
}
