import Mappings

/// A transformer that calls a Lua function of a `LuaScripts`.
///
/// The entry's user data is encoded once, when the catalog binds the transformer to the
/// entry; each call hands the script a fresh copy of it, so what a call does to it is gone
/// by the next call.
struct LuaTransformer: Transformer {
    let scripts: LuaScripts
    let function: Int
    /// `scripts/Geo.lua:12`: where the function is defined.
    let display: String
    var userData: [UInt8]?

    init(scripts: LuaScripts, function: Int, display: String, userData: [UInt8]? = nil) {
        self.scripts = scripts
        self.function = function
        self.display = display
        self.userData = userData
    }

    var origin: String? { display }

    func bound(to userData: JSONValue?) -> any Transformer {
        var bound = self
        if let userData, userData != .null { bound.userData = LuaTape.encode(userData) } else { bound.userData = nil }
        return bound
    }

    func transform(_ value: JSONValue, userData _: JSONValue?) throws -> JSONValue {
        switch scripts.call(function: function, value: value, userData: userData) {
        case .success(let result): return result
        case .failure(let failure): throw TransformerFailure(describe(failure))
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
            if let place = LuaMessage.place(in: failure.message), scripts.sources[place.file] != nil {
                return "\(place.file):\(place.line): \(place.rest)"
            }
            return "\(display): \(failure.message)"
        }
    }
}
