internal import CLuaSandbox
import Foundation
import Mappings
import MappingsJSON

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One `mappings-lua-worker` process: a sandboxed interpreter behind a Unix socket.
///
/// The host writes one request and reads its response; when the response does not come by
/// the call's deadline (plus a margin), the worker is killed and the value gets a deadline
/// issue. A worker is used by one thread at a time: `LuaScripts` pools them like interpreters.
final class LuaWorkerProcess: LuaEngine, @unchecked Sendable {
    private let pid: pid_t
    /// The host's end of the channel; the worker has the other as its stdin and stdout.
    private let channel: Int32
    /// The worker's registry reference of each function, by its id in `LuaScripts`; 0 until resolved.
    var functionReferences: [Int32] = []
    var log = LuaLogBatch()
    var hasLog: Bool { !log.isEmpty }
    var inProcess: LuaInterpreter? { nil }
    var addedModules = 0
    private var dead = false
    /// The object keys results held lately (see `LuaWire.KeyCache`).
    let resultKeys = LuaWire.KeyCache()

    /// How long past a call's deadline the host waits before it kills the worker.
    static let margin = Duration.milliseconds(250)

    /// Why a worker could not be started.
    struct StartFailure: Error {
        var message: String
    }

    /// The worker executable: `MAPPINGS_LUA_WORKER`, else `mappings-lua-worker` next to this
    /// program, else on `PATH`.
    static var executable: String? {
        if let path = ProcessInfo.processInfo.environment["MAPPINGS_LUA_WORKER"], !path.isEmpty { return path }
        return CompanionExecutable.find("mappings-lua-worker")
    }

    /// Starts a worker that knows `modules`, within `limits`; `label` (the scripts directory)
    /// is its last argument, so `ps` tells whose worker it is.
    init(modules: [String: LuaModule], limits: LuaLimits, logLimit: Int32, label: String) throws(StartFailure) {
        guard let executable = Self.executable else {
            throw StartFailure(
                message:
                    "cannot start a Lua worker process: mappings-lua-worker is not next to this program nor on PATH (set MAPPINGS_LUA_WORKER)"
            )
        }
        (pid, channel) = try Self.spawn(executable, label: label)
        var setup = Frame()
        setup.u64(UInt64(limits.memory))
        setup.u64(UInt64(limits.instructions))
        setup.u64(UInt64(limits.timeoutNanoseconds))
        setup.u64(UInt64(limits.result))
        setup.u64(3600)
        setup.u32(UInt32(logLimit))
        setup.u32(UInt32(modules.count))
        for (name, module) in modules.sorted(by: { $0.key < $1.key }) {
            setup.string(name)
            setup.string(module.chunkName)
            setup.string(module.text)
        }
        // Loading every script's text into the worker is quick; allow ten seconds all the same.
        // (Its answer also says whether its seccomp filter is on; /proc/PID/status shows it too.)
        guard send(setup.bytes), receive(until: .now + .seconds(10)) != nil else {
            stop()
            throw StartFailure(message: "the Lua worker process did not start")
        }
    }

    /// Starts `executable` with one end of a socket pair as its standard input and output;
    /// returns its process id and the other end.
    private static func spawn(_ executable: String, label: String) throws(StartFailure) -> (pid_t, Int32) {
        #if os(Linux) || os(macOS)
            var ends: [Int32] = [0, 0]
            guard clua_worker_channel(&ends) == 0 else { throw StartFailure(message: "cannot create a socket pair") }
            #if os(Linux)
                var actions = posix_spawn_file_actions_t()
            #else
                var actions: posix_spawn_file_actions_t? = nil  // Darwin's is an opaque pointer
            #endif
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_adddup2(&actions, ends[1], 0)
            posix_spawn_file_actions_adddup2(&actions, ends[1], 1)
            let arguments = [executable, String(getpid()), label]
            var argv = arguments.map { strdup($0) } + [nil]
            defer { for argument in argv { free(argument) } }
            var environment: [UnsafeMutablePointer<CChar>?] = [nil]
            var child: pid_t = 0
            let status = posix_spawn(&child, executable, &actions, nil, &argv, &environment)
            close(ends[1])
            guard status == 0 else {
                close(ends[0])
                throw StartFailure(message: "cannot start \(executable): \(String(cString: strerror(status)))")
            }
            return (child, ends[0])
        #else
            // iOS and its kin start no processes: isolation there is the in-process sandbox's.
            throw StartFailure(message: "cannot start a Lua worker process: this system starts no processes")
        #endif
    }

    deinit {
        stop()
    }

    /// Kills the worker (when it still runs) and reaps it.
    func stop() {
        guard !dead else { return }
        dead = true
        kill(pid, SIGKILL)
        close(channel)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
    }

    /// Why the last request got no answer: the deadline, or the worker ending by itself.
    private(set) var lastLoss = ""

    /// What the worker answered.
    struct Response {
        var status: Int32
        var message: String
        var a: Int32
        var b: Int32
        var output: [UInt8]
    }

    /// Sends a request and waits for its answer until `deadline`; nil (and the worker killed)
    /// when it does not come by then or the worker died.
    func request(_ frame: Frame, until deadline: ContinuousClock.Instant, spin: Duration = Reader.spin) -> Response? {
        guard !dead, send(frame.bytes), let response = receive(until: deadline, spin: spin) else {
            lastLoss =
                ContinuousClock.now >= deadline
                ? "deadline passed (the worker process was ended)"
                : "the worker process ended before it answered (its address space or CPU limit, or a crash)"
            stop()
            return nil
        }
        return response
    }

    /// `send`'s flag that turns a closed peer into EPIPE rather than SIGPIPE; Darwin has none
    /// (its channel ends set SO_NOSIGPIPE instead, in clua_worker_channel).
    #if os(Linux)
        private static let noSignal = Int32(MSG_NOSIGNAL)
    #else
        private static let noSignal: Int32 = 0
    #endif

    private func send(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = SystemCall.send(channel, raw.baseAddress! + offset, raw.count - offset, Self.noSignal)
                if written < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += written
            }
            return true
        }
    }

    private func receive(until deadline: ContinuousClock.Instant, spin: Duration = Reader.spin) -> Response? {
        var reader = Reader(descriptor: channel, deadline: deadline, spin: spin)
        guard let status = reader.u32(), let message = reader.bytes(), let a = reader.u32(), let b = reader.u32(),
            let output = reader.bytes(), let lines = reader.bytes(), let dropped = reader.u32()
        else { return nil }
        if !lines.isEmpty || dropped > 0 {
            log.lines += lines
            log.dropped += Int(dropped)
        }
        return Response(
            status: Int32(bitPattern: status), message: String(decoding: message, as: UTF8.self),
            a: Int32(bitPattern: a), b: Int32(bitPattern: b), output: output)
    }

    /// A request or setup message, as the worker reads it (worker.c).
    struct Frame {
        var bytes: [UInt8] = []

        mutating func u8(_ value: UInt8) { bytes.append(value) }
        mutating func u32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }
        mutating func u64(_ value: UInt64) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }
        mutating func string(_ text: String) { data(Array(text.utf8)) }

        mutating func data(_ data: [UInt8]) {
            u32(UInt32(data.count))
            bytes.append(contentsOf: data)
        }
    }

    /// Reads a response with a deadline on every wait, in as few reads as the pipe allows.
    struct Reader {
        /// How long a read looks for the answer before it sleeps until it comes.
        static let spin = Duration.microseconds(200)
        let descriptor: Int32
        let deadline: ContinuousClock.Instant
        /// `spin`, or none for an answer that takes longer than a wake-up (a batch's).
        let spinning: Duration
        var buffer: [UInt8] = []
        var offset = 0

        init(descriptor: Int32, deadline: ContinuousClock.Instant, spin: Duration = Reader.spin) {
            self.descriptor = descriptor
            self.deadline = deadline
            self.spinning = spin
        }

        /// Reads until `count` bytes past `offset` are buffered; false at the deadline or the end.
        mutating func need(_ count: Int) -> Bool {
            while buffer.count - offset < count {
                let left = deadline - .now
                guard left > .zero else { return false }
                let (seconds, attoseconds) = left.components
                let milliseconds = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
                var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                // A call's answer usually comes within microseconds: look for it a little while
                // before sleeping, since waking up costs more than the wait (most on a VM).
                var ready: Int32 = 0
                let spinUntil = ContinuousClock.now + spinning
                repeat {
                    ready = poll(&poller, 1, 0)
                } while ready == 0 && ContinuousClock.now < spinUntil
                if ready == 0 { ready = poll(&poller, 1, milliseconds) }
                if ready < 0, errno == EINTR { continue }
                guard ready > 0 else { continue }
                let wanted = max(count - (buffer.count - offset), 1 << 16)
                let old = buffer.count
                let descriptor = self.descriptor
                buffer.append(contentsOf: repeatElement(0, count: wanted))
                let got = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + old, wanted) }
                buffer.removeLast(wanted - max(0, got))
                if got < 0, errno == EINTR { continue }
                guard got > 0 else { return false }
            }
            return true
        }

        mutating func u32() -> UInt32? {
            guard need(4) else { return nil }
            defer { offset += 4 }
            return UInt32(buffer[offset]) | UInt32(buffer[offset + 1]) << 8 | UInt32(buffer[offset + 2]) << 16
                | UInt32(buffer[offset + 3]) << 24
        }

        mutating func bytes() -> [UInt8]? {
            guard let count = u32().map(Int.init), need(count) else { return nil }
            defer { offset += count }
            return Array(buffer[offset..<offset + count])
        }
    }
}

extension LuaWorkerProcess {
    /// How long a request may take: the call's timeout and the margin.
    static func deadline(for limits: LuaLimits) -> ContinuousClock.Instant {
        .now + limits.timeout + margin
    }

    /// Resolves `function` of `module` in this worker.
    func resolve(module: String, function: String, limits: LuaLimits) -> LuaInterpreter.Resolution {
        var frame = Frame()
        frame.u8(UInt8(ascii: "R"))
        frame.string(module)
        frame.string(function)
        guard let response = request(frame, until: Self.deadline(for: limits)) else {
            let kind: LuaFailure.Kind = lastLoss.hasPrefix("deadline") ? .deadline : .failed
            return .failed(LuaFailure(kind: kind, message: lastLoss))
        }
        guard response.status == CLUA_OK else {
            return .failed(LuaFailure(status: response.status, message: response.message))
        }
        let source = String(decoding: response.output, as: UTF8.self)
        switch response.a {
        case CLUA_RESOLVE_NOT_A_TABLE: return .notATable(typeName: source)
        case CLUA_RESOLVE_MISSING_FUNCTION: return .missingFunction
        default: return .function(reference: response.a, source: source, line: Int(response.b))
        }
    }

    /// The function names `module` returns, for suggestions.
    func functionNames(module: String, limits: LuaLimits) -> [String] {
        var frame = Frame()
        frame.u8(UInt8(ascii: "N"))
        frame.string(module)
        frame.string("")
        guard let response = request(frame, until: Self.deadline(for: limits)), response.status == CLUA_OK else {
            return []
        }
        return String(decoding: response.output, as: UTF8.self).split(separator: "\n").map(String.init).sorted()
    }

    /// Calls the function with the worker's reference `reference` as `f(value, userData)`.
    func call(_ reference: Int32, input given: LuaInput, userData: [UInt8]?, limits: LuaLimits) -> Result<
        JSONValue, LuaFailure
    > {
        var frame = Frame()
        frame.u8(UInt8(ascii: "C"))
        frame.string("")
        frame.string("")
        frame.u32(UInt32(bitPattern: reference))
        var input: [UInt8] = []
        given.append(to: &input)
        frame.data(input)
        if let userData {
            frame.u8(1)
            frame.data(userData)
        } else {
            frame.u8(0)
        }
        guard let response = request(frame, until: Self.deadline(for: limits)) else {
            // Killed at its deadline, or it ended by itself: either way the call did not finish
            // within its limits.
            let kind: LuaFailure.Kind = lastLoss.hasPrefix("deadline") ? .deadline : .failed
            return .failure(LuaFailure(kind: kind, message: lastLoss))
        }
        guard response.status == CLUA_OK else {
            return .failure(LuaFailure(status: response.status, message: response.message))
        }
        let decoded = response.output.withUnsafeBytes { bytes in
            Result { () throws(LuaWire.Failure) in try LuaWire.decode(bytes, keys: resultKeys, input: given) }
        }
        return decoded.mapError { LuaFailure(kind: .badResult, message: $0.message) }
    }

    /// Registers one more module in this worker (inline code compiled after it started).
    func add(module name: String, _ module: LuaModule) -> Bool {
        var frame = Frame()
        frame.u8(UInt8(ascii: module.table == nil ? "S" : "T"))
        frame.string(name)
        frame.string(module.chunkName)
        if let wire = module.table?.bytes { frame.data(wire) } else { frame.string(module.text) }
        guard let response = request(frame, until: .now + .seconds(10)) else { return false }
        return response.status == CLUA_OK
    }

    /// Compiles `text` as a chunk named `chunkName` in this worker, without running it.
    func compile(_ text: String, chunkName: String, limits: LuaLimits) -> LuaFailure? {
        var frame = Frame()
        frame.u8(UInt8(ascii: "K"))
        frame.string("")
        frame.string(chunkName)
        frame.string(text)
        guard let response = request(frame, until: Self.deadline(for: limits)) else {
            return LuaFailure(kind: .failed, message: lastLoss)
        }
        return response.status == CLUA_OK ? nil : LuaFailure(status: response.status, message: response.message)
    }

    /// Whether the worker can serve another call.
    var isAlive: Bool { !dead }
}
