import Mappings

/// A transformer that calls a Lua function of a `LuaScripts`.
///
/// The entry's user data is encoded once, when the catalog binds the transformer to the
/// entry; each call hands the script a fresh copy of it, so what a call does to it is gone
/// by the next call.
struct LuaTransformer: TypedTransformer, BatchTransformer {
    let scripts: LuaScripts
    let function: Int
    /// `scripts/Geo.lua:12`: where the function is defined.
    let display: String
    var userData: [UInt8]?
    /// Whether the entry's type holds decimals: the numbers of its values then reach the script
    /// as strings of their exact digits (`"10.99"`), never as a float that rounds them.
    var decimalsAsText = false

    init(scripts: LuaScripts, function: Int, display: String, userData: [UInt8]? = nil) {
        self.scripts = scripts
        self.function = function
        self.display = display
        self.userData = userData
    }

    var origin: String? { display }

    func bound(to userData: JSONValue?) -> any Transformer {
        var bound = self
        if let userData, userData != .null { bound.userData = LuaWire.encode(userData) } else { bound.userData = nil }
        return bound
    }

    func bound(to userData: JSONValue?, type: TypeReference?) -> any Transformer {
        guard var bound = bound(to: userData) as? LuaTransformer else { return bound(to: userData) }
        bound.decimalsAsText = type?.holdsDecimals ?? false
        return bound
    }

    func transform(_ value: JSONValue, userData _: JSONValue?) throws -> JSONValue {
        guard decimalsAsText else {
            switch scripts.call(function: function, value: value, userData: userData) {
            case .success(let result): return result
            case .failure(let failure): throw TransformerFailure(describe(failure))
            }
        }
        var numbers: [String: JSONValue] = [:]
        let text = Self.decimalsAsText(value, numbers: &numbers)
        switch scripts.call(function: function, value: text, userData: userData) {
        // Digits handed back as they came are the number they were.
        case .success(let result): return Self.restoringNumbers(result, numbers)
        case .failure(let failure): throw TransformerFailure(describe(failure))
        }
    }

    func transform(jsonText text: UnsafeBufferPointer<UInt8>, userData: JSONValue?) throws -> JSONValue {
        // Digits as text need the value; so does text that is not what the plan promised.
        guard !decimalsAsText else {
            return try transform(JSONParser.parse(text, demand: .everything), userData: userData)
        }
        switch scripts.call(function: function, input: .text(text), userData: self.userData) {
        case .success(let result): return result
        case .failure(let failure): throw TransformerFailure(describe(failure))
        }
    }

    /// A call to a worker process is a round trip: batches save all but one per batch.
    var prefersBatches: Bool { scripts.isolation == .process && !decimalsAsText }

    func transform(batch inputs: [BatchInput]) -> [BatchAnswer] {
        // Digits as text need each value built: one call at a time, as `transform(jsonText:)` does.
        guard !decimalsAsText else {
            return inputs.map { input in
                switch input {
                case .text(let text): BatchAnswer(result: Result { try transform(jsonText: text, userData: nil) })
                case .value(let value): BatchAnswer(result: Result { try transform(value, userData: nil) })
                }
            }
        }
        let wires: [LuaInput] = inputs.map {
            switch $0 {
            case .text(let text): .text(text)
            case .value(let value): .value(value)
            }
        }
        return scripts.callBatch(function: function, inputs: wires, userData: userData).map { answer in
            let scripts = self.scripts
            let log = answer.log
            return BatchAnswer(
                result: answer.result.mapError { TransformerFailure(describe($0)) as any Error },
                emitLog: log.isEmpty ? nil : { scripts.emit(log) })
        }
    }

    /// `value` with every number that is not a whole number as the string of its digits; the
    /// numbers so turned, by their text, in `numbers`.
    static func decimalsAsText(_ value: JSONValue, numbers: inout [String: JSONValue]) -> JSONValue {
        switch value {
        case .number(let number):
            numbers[number.literal] = value
            return .string(number.literal)
        case .double(let double):
            let text = JSONWriter.number(double)
            numbers[text] = value
            return .string(text)
        case .array(let elements):
            return .array(elements.map { decimalsAsText($0, numbers: &numbers) })
        case .object(let object):
            return .object(JSONObject(object.members.map { ($0.key, decimalsAsText($0.value, numbers: &numbers)) }))
        default:
            return value
        }
    }

    /// `result` with each string that is the text of one of `numbers` as that number again.
    static func restoringNumbers(_ result: JSONValue, _ numbers: [String: JSONValue]) -> JSONValue {
        switch result {
        case .string(let text): numbers[text] ?? result
        case .array(let elements): .array(elements.map { restoringNumbers($0, numbers) })
        case .object(let object):
            .object(JSONObject(object.members.map { ($0.key, restoringNumbers($0.value, numbers)) }))
        default: result
        }
    }

    /// The failure as `script:line: message`: Lua's own position when the message has one,
    /// else the line that defines the function. What a script said is made visible on one line
    /// (control and invisible characters escaped), and never empty.
    private func describe(_ failure: LuaFailure) -> String {
        var failure = failure
        failure.message = JSONWriter.visible(failure.message)
        if failure.message.allSatisfy(\.isWhitespace) { failure.message = "the script gave no reason" }
        let limits = scripts.limits
        switch failure.kind {
        case .budget: return "\(display): ran out of its instruction budget (\(limits.instructions) instructions)"
        case .deadline: return "\(display): ran past its deadline (\(limits.timeout))"
        case .memory: return "\(display): ran out of memory (the interpreter's limit is \(limits.memory) bytes)"
        case .badResult: return "\(display): returned a value that is not JSON: \(failure.message)"
        case .badInput: return "\(display): could not be given the value: \(failure.message)"
        case .failed:
            if let place = LuaMessage.place(in: failure.message), let chunk = scripts.inlineChunk(place.file) {
                return "\(chunk.place(ofLine: place.line)): \(place.rest)"
            }
            if let place = LuaMessage.place(in: failure.message), scripts.sources[place.file] != nil {
                return "\(place.file):\(place.line): \(place.rest)"
            }
            return "\(display): \(failure.message)"
        }
    }
}
