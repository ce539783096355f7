internal import CLua
internal import CLuaSandbox
import Mappings

/// One sandboxed Lua interpreter, owned: created in `init`, closed in `deinit`.
///
/// Every operation that can raise a Lua error runs in C under `lua_pcall` (`sandbox.h`); this
/// class only sets up calls and reads their status. An interpreter is used by one thread at a
/// time: `LuaScripts` hands it out from its thread's slot or its pool (so its properties go
/// without the run-time exclusivity checks: one thread holds it at a time by construction).
final class LuaInterpreter: LuaEngine, @unchecked Sendable {
    let state: OpaquePointer
    /// The registry reference of each function, by the function's id in `LuaScripts`; 0 until resolved.
    @exclusivity(unchecked) var functionReferences: [Int32] = []
    /// The most `log(...)` lines one operation keeps (0: logging off).
    let logLimit: Int32
    @exclusivity(unchecked) var log = LuaLogBatch()
    var hasLog: Bool { !log.isEmpty }
    var inProcess: LuaInterpreter? { self }
    /// The call every transformer call reuses, with its output block: no allocation per call.
    let reused: UnsafeMutablePointer<clua_call>
    /// Where each call's input wire is written, its capacity kept from call to call.
    @exclusivity(unchecked) private var inputWire: [UInt8] = []
    /// The last timeout calls ran under, and it in nanoseconds: worked out once, not per call.
    @exclusivity(unchecked) private var timeout: (duration: Duration, nanoseconds: Int64) = (.zero, 0)
    /// The object keys results held lately.
    let resultKeys = LuaWire.KeyCache()

    /// What resolving a function found.
    enum Resolution {
        case function(reference: Int32, source: String, line: Int)
        case notATable(typeName: String)
        case missingFunction
        case failed(LuaFailure)
    }

    /// Creates an interpreter that knows `modules` (name → chunk name and text), or `nil` when
    /// even that does not fit in `memoryLimit`.
    init?(memoryLimit: Int, modules: [String: LuaModule], logLimit: Int32) {
        guard let state = clua_sandbox_open(memoryLimit) else { return nil }
        self.state = state
        self.logLimit = logLimit
        reused = UnsafeMutablePointer<clua_call>.allocate(capacity: 1)
        reused.initialize(to: clua_call())
        for (name, module) in modules {
            guard add(module: name, module) else { return nil }
        }
    }

    @exclusivity(unchecked) var addedModules = 0

    /// Registers one more module (inline code compiled after the interpreter started).
    func add(module name: String, _ module: LuaModule) -> Bool {
        var call = clua_call()
        if let wire = module.table?.bytes {
            defer { clua_call_release(&call) }
            let status = wire.withUnsafeBufferPointer { wire in
                name.withCString { name in
                    call.input = wire.baseAddress
                    call.input_count = wire.count
                    call.module = name
                    return clua_sandbox_run(state, clua_tables_add_protected, &call, 0, 0)
                }
            }
            return status == CLUA_OK
        }
        let status = module.text.withCString { text in
            name.withCString { name in
                module.chunkName.withCString { chunk in
                    call.input = UnsafeRawPointer(text).assumingMemoryBound(to: UInt8.self)
                    call.input_count = module.text.utf8.count
                    call.module = name
                    call.function = chunk
                    return clua_sandbox_run(state, clua_sandbox_add_source_protected, &call, 0, 0)
                }
            }
        }
        return status == CLUA_OK
    }

    /// Compiles `text` as a chunk named `chunkName` without running it: `nil`, or why it does not compile.
    func compile(_ text: String, chunkName: String, limits: LuaLimits) -> LuaFailure? {
        var call = clua_call()
        defer { clua_call_release(&call) }
        let status = text.withCString { source in
            chunkName.withCString { chunk in
                call.input = UnsafeRawPointer(source).assumingMemoryBound(to: UInt8.self)
                call.input_count = text.utf8.count
                call.function = chunk
                return clua_sandbox_run(
                    state, clua_sandbox_compile_protected, &call, Int64(limits.instructions), limits.timeoutNanoseconds)
            }
        }
        return status == CLUA_OK ? nil : LuaFailure(status: status, call: call)
    }

    deinit {
        clua_sandbox_close(state)
        clua_call_release(reused)
        reused.deallocate()
    }

    /// Bytes the interpreter holds.
    var memoryInUse: Int { clua_sandbox_memory(state) }

    var isAlive: Bool { true }

    /// Loads `module` (once) and finds `function` in the table it returns.
    func resolve(module: String, function: String, limits: LuaLimits) -> Resolution {
        var call = clua_call()
        call.log_limit = logLimit
        defer {
            keepLog(of: call)
            clua_call_release(&call)
        }
        let status = module.withCString { module in
            function.withCString { function in
                call.module = module
                call.function = function
                return clua_sandbox_run(
                    state, clua_sandbox_resolve_protected, &call, Int64(limits.instructions), limits.timeoutNanoseconds)
            }
        }
        guard status == CLUA_OK else { return .failed(LuaFailure(status: status, call: call)) }
        switch call.function_ref {
        case CLUA_RESOLVE_NOT_A_TABLE: return .notATable(typeName: Self.text(of: &call.source))
        case CLUA_RESOLVE_MISSING_FUNCTION: return .missingFunction
        default:
            return .function(
                reference: call.function_ref, source: Self.text(of: &call.source), line: Int(call.line_defined))
        }
    }

    /// The names of the functions the table `module` returns holds, for suggestions.
    func functionNames(module: String, limits: LuaLimits) -> [String] {
        var call = clua_call()
        call.log_limit = logLimit
        defer {
            keepLog(of: call)
            clua_call_release(&call)
        }
        let status = module.withCString { module in
            call.module = module
            return clua_sandbox_run(
                state, clua_sandbox_functions_protected, &call, Int64(limits.instructions), limits.timeoutNanoseconds)
        }
        guard status == CLUA_OK, let output = call.output else { return [] }
        let text = String(decoding: UnsafeBufferPointer(start: output, count: call.output_count), as: UTF8.self)
        return text.split(separator: "\n").map(String.init).sorted()
    }

    /// Calls the function with registry reference `reference` as `f(value, userData)`.
    func call(
        _ reference: Int32, input: LuaInput, userData: [UInt8]?, limits: LuaLimits
    ) -> Result<JSONValue, LuaFailure> {
        let call = reused
        clua_call_reuse(call)
        defer { keepLog(of: call.pointee) }
        if timeout.duration != limits.timeout { timeout = (limits.timeout, limits.timeoutNanoseconds) }
        let timeoutNanoseconds = timeout.nanoseconds
        call.pointee.log_limit = logLimit
        call.pointee.function_ref = reference
        call.pointee.output_limit = limits.result
        let status: Int32
        if case .text(let text) = input {
            // Text of the record this thread maps, read where it is (no wire, no copy): the
            // sandbox finds the record's index through it.
            call.pointee.input = text.baseAddress
            call.pointee.input_count = text.count
            call.pointee.input_origin = text.baseAddress
            call.pointee.input_is_text = 1
            status = run(call, userData: userData, limits: limits, timeoutNanoseconds: timeoutNanoseconds)
        } else {
            inputWire.removeAll(keepingCapacity: inputWire.capacity <= 1 << 16)
            input.append(to: &inputWire)
            status = inputWire.withUnsafeBufferPointer { input in
                call.pointee.input = input.baseAddress
                call.pointee.input_count = input.count
                return run(call, userData: userData, limits: limits, timeoutNanoseconds: timeoutNanoseconds)
            }
        }
        guard status == CLUA_OK else { return .failure(LuaFailure(status: status, call: call.pointee)) }
        do {
            return .success(
                try LuaWire.decode(
                    UnsafeRawBufferPointer(start: call.pointee.output, count: call.pointee.output_count),
                    keys: resultKeys, input: input))
        } catch {
            return .failure(LuaFailure(kind: .badResult, message: error.message))
        }
    }

    /// Runs the call `call` describes, with `userData` as its second argument.
    private func run(
        _ call: UnsafeMutablePointer<clua_call>, userData: [UInt8]?, limits: LuaLimits, timeoutNanoseconds: Int64
    ) -> Int32 {
        withExtendedLifetime(userData) {
            guard let userData else {
                return clua_sandbox_run(
                    state, clua_sandbox_call_protected, call, Int64(limits.instructions), timeoutNanoseconds)
            }
            return userData.withUnsafeBufferPointer { userData in
                call.pointee.user_data = userData.baseAddress
                call.pointee.user_data_count = userData.count
                return clua_sandbox_run(
                    state, clua_sandbox_call_protected, call, Int64(limits.instructions), timeoutNanoseconds)
            }
        }
    }

    /// Keeps what an operation logged in `log`, for `LuaScripts` to write.
    private func keepLog(of call: clua_call) {
        guard call.log_count > 0 || call.log_dropped > 0 else { return }
        if let lines = call.log {
            log.lines += UnsafeRawBufferPointer(start: lines, count: call.log_count)
        }
        log.dropped += Int(call.log_dropped)
    }

    private static func text<T>(of tuple: inout T) -> String {
        withUnsafeBytes(of: &tuple) { raw in
            let bytes = raw.prefix { $0 != 0 }
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    fileprivate static func message(of call: inout clua_call) -> String {
        text(of: &call.message)
    }
}

/// What runs Lua calls: an interpreter in this process, or a worker process.
protocol LuaEngine: AnyObject, Sendable {
    /// The engine's registry reference of each function, by its id in `LuaScripts`; 0 until resolved.
    var functionReferences: [Int32] { get set }
    /// What the operations since it was last emptied logged.
    var log: LuaLogBatch { get set }
    /// Whether `log` holds anything: read after every call, without copying it.
    var hasLog: Bool { get }
    /// The engine as an interpreter in this process (which a thread may keep), or `nil`.
    var inProcess: LuaInterpreter? { get }
    func resolve(module: String, function: String, limits: LuaLimits) -> LuaInterpreter.Resolution
    func functionNames(module: String, limits: LuaLimits) -> [String]
    /// How many of `LuaScripts`' modules added after the start (inline code) it knows.
    var addedModules: Int { get set }
    /// Registers one more module; `false` when it cannot (the engine is then dropped).
    func add(module name: String, _ module: LuaModule) -> Bool
    /// Compiles `text` as a chunk named `chunkName` without running it: `nil`, or why not.
    func compile(_ text: String, chunkName: String, limits: LuaLimits) -> LuaFailure?
    /// Calls a function once per input (`LuaBatch.swift`): the answers of those that ran, in order.
    func callBatch(_ reference: Int32, inputs: ArraySlice<LuaInput>, userData: [UInt8]?, limits: LuaLimits)
        -> [LuaBatchAnswer]
    func call(_ reference: Int32, input: LuaInput, userData: [UInt8]?, limits: LuaLimits) -> Result<
        JSONValue, LuaFailure
    >
    /// Whether it can serve another call (a worker process that was killed cannot).
    var isAlive: Bool { get }
}

/// A Lua script's text and the chunk name its errors carry (`@scripts/Geo.lua`).
struct LuaModule: Sendable {
    var chunkName: String
    var text: String
    /// For a lookup table of `tables` rather than a script: the wire of its keyed rows
    /// (`LookupTable.keyedRows`); `chunkName` and `text` are then empty.
    var table: LuaTableWire? = nil
}

/// Why a sandboxed operation failed, as `sandbox.h` reported it.
struct LuaFailure: Error {
    enum Kind {
        /// `error(...)`, a runtime error, or `nil, "message"`.
        case failed
        case budget, deadline, memory
        /// The result is not a JSON value (a function, a cycle, NaN, invalid UTF-8, …).
        case badResult
        /// The host's input wire was malformed: a bug in the host.
        case badInput
    }

    var kind: Kind
    var message: String

    init(kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    fileprivate init(status: Int32, call: clua_call) {
        var call = call
        self.init(status: status, message: LuaInterpreter.message(of: &call))
    }

    init(status: Int32, message: String) {
        self.message = message
        switch status {
        case CLUA_BUDGET: kind = .budget
        case CLUA_DEADLINE: kind = .deadline
        case CLUA_MEMORY: kind = .memory
        case CLUA_BAD_RESULT: kind = .badResult
        case CLUA_BAD_INPUT: kind = .badInput
        default: kind = .failed
        }
    }

    /// Whether the interpreter should be replaced after this failure: after a trip of a limit
    /// it holds whatever the script left half-built.
    var poisonsInterpreter: Bool {
        switch kind {
        case .budget, .deadline, .memory, .badInput: true
        case .failed: message == "error in error handling"
        case .badResult: false
        }
    }
}
