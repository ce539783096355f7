package import MappingsCompiler
import MappingsJSON

/// The transformer calls made while a fast plan mapped one record, kept so that the general
/// engine, mapping the record again (the plan gave it back), does not make them again: the
/// same answers, script log lines once, one share of the Lua budget.
///
/// The plan records every call it makes, in order; the general engine then takes, for each
/// call it would make, the first recorded answer of the same transformer (reference and user
/// data) for the same input that it has not taken yet, and calls the transformer only when
/// there is none. Each engine thus calls exactly as often as it would alone. (A transformer's
/// answer depends on its input and user data only: scripts run sandboxed, without a clock or
/// randomness to read.)
package final class TransformerMemo: @unchecked Sendable {
    // `@unchecked`: a memo belongs to one record on one thread; it is never shared.
    private struct Call {
        var reference: TransformerReference
        /// The input, or `nil` while it is known only as `text` (built when a replay compares it).
        var input: JSONValue?
        /// The input's text in the record being mapped (`call(_:_:text:)`).
        var text: UnsafeBufferPointer<UInt8>?
        /// The input's text, copied (`call(_:_:copying:)`).
        var copied: [UInt8]?
        var result: Result<JSONValue, any Error>
        var taken = false
        /// Made ahead by a batch (`prefill`): not taken yet by either engine.
        var prefilled = false
        /// Writes what the call logged: called when the answer is first taken (a batch's call
        /// ran before its record was mapped).
        var emitLog: (() -> Void)?

        /// The input as a value.
        mutating func value() -> JSONValue? {
            if input == nil, let text { input = try? JSONParser.parse(text, demand: .everything) }
            if input == nil, let copied { input = try? JSONParser.parse(copied, demand: .everything) }
            return input
        }
    }

    private var calls: [Call] = []
    /// How many answers made ahead the plan has not taken: none for a record no batch prepared,
    /// whose calls then look for none.
    private var prefilled = 0
    private var replaying = false

    package init() {}

    /// From now on, calls take the recorded answers (the general engine's turn).
    func replay() { replaying = true }

    /// An answer a batch made ahead for a call the plan or the general engine will make.
    package func prefill(_ reference: TransformerReference, _ input: BatchInput, _ answer: BatchAnswer) {
        var call: Call
        switch input {
        case .text(let text): call = Call(reference: reference, input: nil, text: text, result: answer.result)
        case .value(let value): call = Call(reference: reference, input: value, result: answer.result)
        }
        call.prefilled = true
        call.emitLog = answer.emitLog
        calls.append(call)
        prefilled += 1
    }

    /// Takes call `index`'s answer: it is not given again, and what it logged is written now.
    private func take(_ index: Int) throws -> JSONValue {
        calls[index].taken = true
        if calls[index].prefilled { prefilled -= 1 }
        calls[index].prefilled = false
        if let emit = calls[index].emitLog {
            calls[index].emitLog = nil
            emit()
        }
        return try calls[index].result.get()
    }

    /// The plan takes the answer a batch made ahead for call `index`; it stays for the general
    /// engine to take again when it replays the record.
    private func takeAhead(_ index: Int) throws -> JSONValue {
        let answer = Result { try take(index) }
        calls[index].taken = false
        return try answer.get()
    }

    /// What `transformer` answers for `input`.
    func call(_ transformer: any Transformer, _ reference: TransformerReference, _ input: JSONValue) throws
        -> JSONValue
    {
        if replaying,
            let index = calls.indices.first(where: { index in
                !calls[index].taken && calls[index].reference == reference && calls[index].value() == input
            })
        {
            return try take(index)
        }
        if !replaying, prefilled > 0,
            let index = calls.indices.first(where: { index in
                calls[index].prefilled && calls[index].text == nil && calls[index].reference == reference
                    && calls[index].input == input
            })
        {
            return try takeAhead(index)
        }
        let result = Result { try transformer.transform(input, userData: reference.userData) }
        if !replaying { calls.append(Call(reference: reference, input: input, result: result)) }
        return try result.get()
    }

    /// What `transformer` answers for the value whose JSON text is `text` (a Lua script reads
    /// it through a view). The plan's side only: the general engine replays with values. `text`
    /// is a span of the record being mapped, which outlives the memo (one record's), so it is
    /// kept, not copied.
    func call(
        _ transformer: any TextTransformer, _ reference: TransformerReference, text: UnsafeBufferPointer<UInt8>
    ) throws -> JSONValue {
        if prefilled > 0,
            let index = calls.indices.first(where: { index in
                calls[index].prefilled && calls[index].reference == reference
                    && calls[index].text?.baseAddress == text.baseAddress && calls[index].text?.count == text.count
            })
        {
            return try takeAhead(index)
        }
        let result = Result { try transformer.transform(jsonText: text, userData: reference.userData) }
        calls.append(Call(reference: reference, input: nil, text: text, result: result))
        return try result.get()
    }

    /// `call(_:_:text:)` for text that does not outlive the call (a keyed selection put
    /// together in scratch space): the memo keeps a copy.
    func call(
        _ transformer: any TextTransformer, _ reference: TransformerReference, copying text: UnsafeBufferPointer<UInt8>
    ) throws -> JSONValue {
        let result = Result { try transformer.transform(jsonText: text, userData: reference.userData) }
        calls.append(Call(reference: reference, input: nil, copied: Array(text), result: result))
        return try result.get()
    }
}
