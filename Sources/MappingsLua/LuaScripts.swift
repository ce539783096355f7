internal import CLuaSandbox
import Foundation
public import Mappings
package import Synchronization

/// The Lua transformers of a scripts directory: `@transformClass` names `<directory>/<Class>.lua`,
/// which returns a table; the function is the selector up to its first `:`.
///
/// Add it to a `TransformerRegistry` after the Swift closures (a closure registered for the
/// same class and selector wins). The scripts are read once, here: later edits need a new
/// `LuaScripts` and a new catalog. Each script compiles when the catalog loads, so a syntax
/// error or a missing function is a load-time diagnostic:
/// ```swift
/// var transformers = TransformerRegistry()
/// transformers.add(LuaScripts(directory: "scripts"))
/// let catalog = try Catalog.load(["contexts"], transformers: transformers)
/// ```
/// ```
/// error: scripts/Geo.lua does not load: '=' expected near 'x'
///  --> scripts/Geo.lua:3:1
/// ```
/// Calls run in sandboxed interpreters (see docs/lua.md), one thread per interpreter at a time
/// (each thread keeps the one it used; others wait in a pool), so mapping on several threads at
/// once is safe.
public final class LuaScripts: TransformerProvider, Sendable {
    /// The directory the scripts were read from, as given.
    public let directory: String
    /// The limits every call runs under.
    public let limits: LuaLimits
    /// Where calls run: interpreters in this process, or sandbox worker processes.
    public let isolation: LuaIsolation
    /// The text of every script read, by its path (`scripts/Geo.lua`).
    public let sources: [String: String]
    /// Where the lines scripts log go.
    package let log: LuaLog
    /// Every script, by module name (`Geo`, or `lib.strings` for `lib/strings.lua`).
    let modules: [String: LuaModule]
    private let pool: Mutex<Pool>
    /// This instance among those the process made: what threads keep their interpreters by
    /// (`LuaThreadEngines`).
    let number = LuaScripts.made.add(1, ordering: .relaxed).newValue
    private static let made = Atomic<UInt64>(0)
    /// How many threads keep a slot for these scripts (`LuaThreadEngines`): at most `keptIdle`;
    /// past that a thread's interpreter goes back to the pool like any other.
    let threadSlots = Atomic<Int>(0)
    /// `pool.added.count`, read without the lock on every call.
    private let addedCount = Atomic<Int>(0)
    /// Whether calls are counted in `calls` (`mappings serve` counts them for its metrics; off,
    /// a call reads one flag no core writes).
    package static let countsCalls = Atomic<Bool>(false)
    /// Transformer calls made in this process since `countsCalls` was set (a batch counts each value).
    package static let calls = Atomic<Int>(0)

    private struct Pool {
        /// Idle engines by the thread that last used them (`pthread_self`): a thread takes its
        /// own back, so an interpreter's memory is allocated and freed by one thread (two lanes
        /// trading interpreters contended on the allocator's locks and lost a third of a core).
        var idle: [UInt: [any LuaEngine]] = [:]
        var idleCount = 0
        var functions: [LuaFunction] = []
        var ids: [String: Int] = [:]
        /// Modules added after the start (inline code), in order: every engine gets them all.
        var added: [(name: String, module: LuaModule)] = []
        /// The lookup tables added, by name, as `LookupTable.serial` tells them apart.
        var tables: [String: UInt64] = [:]
        /// The inline code behind each added module, by its chunk's name (`@lua#3`).
        var inline: [String: InlineChunk] = [:]
    }

    /// Reads every `*.lua` file under `directory` (a missing directory holds no scripts); calls
    /// run in this process, or with `.process` in sandbox worker processes (`mappings-lua-worker`
    /// next to the program, on `PATH`, or at `MAPPINGS_LUA_WORKER`).
    /// `log(...)` lines go to standard error (docs/lua.md, "Logging").
    public init(directory: String = "scripts", limits: LuaLimits = LuaLimits(), isolation: LuaIsolation = .inProcess) {
        self.directory = directory
        self.log = .standardError
        self.limits = limits
        self.isolation = isolation
        (sources, modules) = Self.read(directory)
        self.pool = Mutex(Pool())
    }

    /// Reads the scripts as the public initializer does; their `log(...)` lines go to `log`.
    package init(directory: String, limits: LuaLimits, isolation: LuaIsolation, log: LuaLog) {
        self.directory = directory
        self.log = log
        self.limits = limits
        self.isolation = isolation
        (sources, modules) = Self.read(directory)
        self.pool = Mutex(Pool())
    }

    /// Reads the scripts as the public initializer does, except that a script whose path (as
    /// diagnostics name it: `directory/Geo.lua`) is a key of `unsaved` has that text instead,
    /// and one that is only there is added: what an editor shows (`mappings lsp`).
    package init(directory: String, limits: LuaLimits, unsaved: [String: String]) {
        self.directory = directory
        self.log = .off
        self.limits = limits
        self.isolation = .inProcess
        var (sources, modules) = Self.read(directory)
        let prefix = directory.hasSuffix("/") ? directory : directory + "/"
        for (path, text) in unsaved where path.hasPrefix(prefix) && path.hasSuffix(".lua") {
            sources[path] = text
            let name = String(path.dropFirst(prefix.count).dropLast(4)).replacingOccurrences(of: "/", with: ".")
            modules[name] = LuaModule(chunkName: "@" + path, text: text)
        }
        (self.sources, self.modules) = (sources, modules)
        self.pool = Mutex(Pool())
    }

    /// How many times views have walked their members through a record's structural index (not
    /// their bytes) on the calling thread, a lookup's walk or an indexing pass: what tests tell
    /// the two paths apart by.
    package static var viewsIndexed: UInt64 { clua_views_indexed_total() }

    /// Why the script of `module` does not load (a syntax error, an error while it runs, a value
    /// that is not a table), or `nil` when it loads or there is no such script.
    package func loadFailure(of module: String) -> Diagnostic? {
        guard modules[module] != nil else { return nil }
        let interpreter: any LuaEngine
        switch checkOut() {
        case .success(let engine): interpreter = engine
        case .failure(let failure): return Diagnostic(message: failure.message)
        }
        // Loading the script is what is asked; the function name matters to no outcome but a missing one.
        let resolution = interpreter.resolve(module: module, function: "", limits: limits)
        emitLog(of: interpreter, record: LuaLog.record, capture: LuaLogCapture.current)
        switch resolution {
        case .failed(let failure):
            return loadDiagnostic(script: path(of: module), failure: failure)
        case .notATable(let typeName):
            checkIn(interpreter)
            return notATable(script: path(of: module), typeName: typeName, function: "f")
        case .function, .missingFunction:
            checkIn(interpreter)
            return nil
        }
    }

    /// The module names of the scripts, sorted.
    package var moduleNames: [String] { modules.keys.sorted() }

    /// Every `*.lua` file under `directory`: its text by path, and its module by name.
    private static func read(_ directory: String) -> (sources: [String: String], modules: [String: LuaModule]) {
        var sources: [String: String] = [:]
        var modules: [String: LuaModule] = [:]
        // Listed through the link when the directory is a symbolic link to a folder (the
        // enumerator does not follow one); paths keep the name the user gave.
        let root = URL(fileURLWithPath: directory).resolvingSymlinksInPath()
        let files = FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String } ?? []
        for relative in files.sorted() where relative.hasSuffix(".lua") {
            guard let data = FileManager.default.contents(atPath: root.appendingPathComponent(relative).path) else {
                continue
            }
            let path = directory.hasSuffix("/") ? directory + relative : directory + "/" + relative
            let text = String(decoding: data, as: UTF8.self)
            sources[path] = text
            let name = String(relative.dropLast(4)).replacingOccurrences(of: "/", with: ".")
            modules[name] = LuaModule(chunkName: "@" + path, text: text)
        }
        return (sources, modules)
    }

    /// The path of a module's script, as diagnostics name it.
    func path(of module: String) -> String {
        let relative = module.replacingOccurrences(of: ".", with: "/") + ".lua"
        return directory.hasSuffix("/") ? directory + relative : directory + "/" + relative
    }

    /// The Lua function `className`.`selector` names, resolved as a catalog's entry would: for
    /// a host that calls a script directly (a test of its own scripts, a benchmark).
    ///
    /// - Throws: `MappingsError` of kind `.invalidMappings` when the script is missing, does not
    ///   compile, or has no such function, with the same diagnostic a catalog would print.
    public func transformer(className: String, selector: String) throws(MappingsError) -> any Transformer {
        switch resolve(TransformerReference(className: className, selector: selector, userData: nil)) {
        case .found(let transformer): return transformer.bound(to: nil)
        case .failed(let diagnostic):
            throw MappingsError(kind: .invalidMappings, diagnostics: [diagnostic], sources: sources)
        case .unknown:
            throw MappingsError(
                kind: .invalidMappings,
                diagnostics: [Diagnostic(message: "no transformer \"\(className).\(selector)\"")])
        }
    }

    package func resolve(_ reference: TransformerReference) -> TransformerResolution {
        if let inline = reference.inline { return resolve(inline) }
        let module = reference.className
        let function = reference.functionName
        let name = "\(module).\(function)"
        let script = path(of: module)
        guard modules[module] != nil else {
            return .failed(
                Diagnostic(
                    message:
                        "no transformer \"\(name)\": no Swift closure is registered for it, and there is no \(script)",
                    help: Suggestion.help(for: module, among: Array(modules.keys)).map { "\($0) (a script name)" }
                        ?? "create \(script) returning a table with a function \"\(function)\""))
        }
        let interpreter: any LuaEngine
        switch checkOut() {
        case .success(let engine): interpreter = engine
        case .failure(let failure): return .failed(Diagnostic(message: failure.message))
        }
        let resolution = interpreter.resolve(module: module, function: function, limits: limits)
        emitLog(of: interpreter, record: LuaLog.record, capture: LuaLogCapture.current)
        switch resolution {
        case .function(_, let source, let line):
            checkIn(interpreter)
            let id = identifier(of: LuaFunction(module: module, name: function, source: source, line: line))
            return .found(LuaTransformer(scripts: self, function: id, display: "\(source):\(line)"))
        case .notATable(let typeName):
            checkIn(interpreter)
            return .failed(notATable(script: script, typeName: typeName, function: function))
        case .missingFunction:
            let names = interpreter.functionNames(module: module, limits: limits)
            emitLog(of: interpreter, record: LuaLog.record, capture: LuaLogCapture.current)
            checkIn(interpreter)
            return .failed(
                Diagnostic(
                    message: "\(script) has no function \"\(function)\" (for \"\(reference.selector)\")",
                    help: Suggestion.help(for: function, among: names)
                        ?? "the table the script returns must hold a function named \"\(function)\""))
        case .failed(let failure):
            return .failed(loadDiagnostic(script: script, failure: failure))
        }
    }

    /// A script that returns something else than the table of its functions.
    private func notATable(script: String, typeName: String, function: String) -> Diagnostic {
        Diagnostic(
            message: "\(script) returns a \(typeName), not a table of functions",
            help: "end the script with \"return { \(function) = \(function) }\"")
    }

    /// A load failure as a diagnostic at the script line its message names.
    private func loadDiagnostic(script: String, failure: LuaFailure) -> Diagnostic {
        var message = failure.message
        var location: SourceLocation?
        // Lua prefixes messages with "path:line:"; point there when the file is one we read.
        if let place = LuaMessage.place(in: message), let text = sources[place.file] {
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            let length = place.line <= lines.count ? lines[place.line - 1].count : 1
            location = SourceLocation(file: place.file, line: place.line, column: 1, length: length)
            message = place.rest
        }
        let what: String
        switch failure.kind {
        case .budget: what = "ran out of its instruction budget while loading"
        case .deadline: what = "ran past its deadline while loading"
        case .memory: what = "ran out of memory while loading"
        default: what = "does not load"
        }
        return Diagnostic(message: "\(script) \(what): \(message)", location: location)
    }

    func identifier(of function: LuaFunction) -> Int {
        pool.withLock { pool in
            let key = function.module + "\0" + function.name
            if let id = pool.ids[key] { return id }
            pool.functions.append(function)
            pool.ids[key] = pool.functions.count - 1
            return pool.functions.count - 1
        }
    }

    /// Calls function `id` with a value and user data (as a wire), on a thread with enough
    /// stack, in an interpreter no other thread is using.
    func call(function id: Int, value: JSONValue, userData: [UInt8]?) -> Result<JSONValue, LuaFailure> {
        call(function: id, input: .value(value), userData: userData)
    }

    /// Calls the function with id `id` on `input` (a value, or JSON text valid for the call).
    func call(function id: Int, input: LuaInput, userData: [UInt8]?) -> Result<JSONValue, LuaFailure> {
        if Self.countsCalls.load(ordering: .relaxed) { Self.calls.add(1, ordering: .relaxed) }
        // Before the call may move to a thread with more stack:
        let record = LuaLog.record
        let capture = LuaLogCapture.current
        let fixtures = TableLookup.fixtureTables
        return LuaThread.withLargeStack {
            let interpreter: any LuaEngine
            switch checkOut(fixtures: fixtures) {
            case .success(let engine): interpreter = engine
            case .failure(let failure): return .failure(failure)
            }
            let reference: Int32
            switch self.reference(of: id, in: interpreter, record: record, capture: capture) {
            case .success(let found): reference = found
            case .failure(let failure): return .failure(failure)
            }
            let result = interpreter.call(reference, input: input, userData: userData, limits: limits)
            emitLog(of: interpreter, record: record, capture: capture)
            if case .failure(let failure) = result, failure.poisonsInterpreter || !interpreter.isAlive {
                return result
            }
            // An engine that holds a test's fixture tables serves no other call.
            if fixtures.isEmpty { checkIn(interpreter) }
            return result
        }
    }

    /// An engine for a call: `checkOut()`'s, or while a test gives fixture tables
    /// (`TableLookup.withFixtures`), one that reads them under their names in `tables`, as
    /// `@lookup` entries do, and that the caller lets go after the call.
    private func checkOut(fixtures: [String: LookupTable]) -> Result<any LuaEngine, LuaFailure> {
        let checkedOut = checkOut()
        guard !fixtures.isEmpty, case .success(let engine) = checkedOut else { return checkedOut }
        for (name, table) in fixtures.sorted(by: { $0.key < $1.key }) {
            guard engine.add(module: name, LuaModule(chunkName: "", text: "", table: LuaTableWire(table))) else {
                return .failure(
                    LuaFailure(kind: .memory, message: "cannot add the lookup table \(name) to an interpreter"))
            }
        }
        return checkedOut
    }

    /// The engine's registry reference of function `id`, resolved in it the first time.
    private func reference(of id: Int, in engine: any LuaEngine, record: Int64, capture: LuaLogCapture?) -> Result<
        Int32, LuaFailure
    > {
        let references = engine.functionReferences
        if id < references.count, references[id] != 0 { return .success(references[id]) }
        let function = pool.withLock { $0.functions[id] }
        let resolution = engine.resolve(module: function.module, function: function.name, limits: limits)
        emitLog(of: engine, record: record, capture: capture)
        switch resolution {
        case .function(let resolved, _, _):
            if engine.functionReferences.count <= id {
                engine.functionReferences += Array(repeating: 0, count: id + 1 - engine.functionReferences.count)
            }
            engine.functionReferences[id] = resolved
            return .success(resolved)
        case .failed(let failure):
            return .failure(failure)
        case .notATable, .missingFunction:
            return .failure(LuaFailure(kind: .failed, message: "the script no longer provides this function"))
        }
    }

    /// Calls function `id` once per input, in batches (one C call, or one worker request, for
    /// many), each value a call of its own with its own limits; an answer for every input, in
    /// order. A value whose failure leaves its engine unfit costs that engine: the rest go on in
    /// a fresh one. The lines each call logged come with its answer, to be written with its record.
    func callBatch(function id: Int, inputs: [LuaInput], userData: [UInt8]?) -> [LuaBatchAnswer] {
        if Self.countsCalls.load(ordering: .relaxed) { Self.calls.add(inputs.count, ordering: .relaxed) }
        let record = LuaLog.record
        let capture = LuaLogCapture.current
        let fixtures = TableLookup.fixtureTables
        return LuaThread.withLargeStack {
            var answers: [LuaBatchAnswer] = []
            answers.reserveCapacity(inputs.count)
            // After a worker was lost in a batch, one value at a time: the loss is then its own.
            var oneAtATime = false
            while answers.count < inputs.count {
                let engine: any LuaEngine
                let reference: Int32
                switch checkOut(fixtures: fixtures).flatMap({ engine in
                    self.reference(of: id, in: engine, record: record, capture: capture).map { (engine, $0) }
                }) {
                case .success(let found): (engine, reference) = found
                case .failure(let failure):
                    // Every value left gets the reason: no engine could be had for them.
                    let left = inputs.count - answers.count
                    answers += repeatElement(LuaBatchAnswer(result: .failure(failure), log: LuaLogBatch()), count: left)
                    return answers
                }
                let left = inputs[answers.count...]
                let ran = engine.callBatch(
                    reference, inputs: oneAtATime ? left.prefix(1) : left, userData: userData, limits: limits)
                if ran.isEmpty {
                    // A lost worker costs one value at a time from here; one value lost alone is its own.
                    if oneAtATime {
                        let failure = LuaFailure(kind: .failed, message: "the Lua worker process gave no answer")
                        answers.append(LuaBatchAnswer(result: .failure(failure), log: LuaLogBatch()))
                    }
                    oneAtATime = true
                }
                answers += ran
                let unfit =
                    if case .failure(let failure)? = ran.last?.result { failure.poisonsInterpreter } else { false }
                if !unfit, engine.isAlive, fixtures.isEmpty { checkIn(engine) }
            }
            return answers
        }
    }

    /// Writes lines a batch's call logged, as the record being mapped now logged them.
    func emit(_ batch: LuaLogBatch) {
        guard !batch.isEmpty else { return }
        log.emit(placingInline(batch), record: LuaLog.record, capture: LuaLogCapture.current)
    }

    /// The function behind id `id`, for messages.
    func function(_ id: Int) -> LuaFunction {
        pool.withLock { $0.functions[id] }
    }

    /// Writes what an engine's last operations logged, and empties it.
    func emitLog(of engine: any LuaEngine, record: Int64, capture: LuaLogCapture?) {
        guard engine.hasLog else { return }
        log.emit(placingInline(engine.log), record: record, capture: capture)
        engine.log = LuaLogBatch()
    }

    /// `batch` with the places of inline code (`@lua#3:1`) as the `.mappings` file's places.
    private func placingInline(_ batch: LuaLogBatch) -> LuaLogBatch {
        guard pool.withLock({ !$0.inline.isEmpty }) else { return batch }
        var placed = batch
        placed.lines = []
        for entry in batch.lines.split(separator: UInt8(ascii: "\n")) {
            let text = String(decoding: entry, as: UTF8.self)
            let parts = text.split(separator: "\t", maxSplits: 1, omittingEmptySubsequences: false)
            var place = String(parts[0])
            if let colon = place.lastIndex(of: ":"), let line = Int(place[place.index(after: colon)...]),
                let chunk = inlineChunk(place[..<colon])
            {
                place = chunk.place(ofLine: line).description
            }
            placed.lines += Array(place.utf8)
            if parts.count > 1 { placed.lines += [UInt8(ascii: "\t")] + Array(parts[1].utf8) }
            placed.lines.append(UInt8(ascii: "\n"))
        }
        return placed
    }

    /// An engine no other thread uses, that knows every module added so far.
    func checkOut() -> Result<any LuaEngine, LuaFailure> {
        let engine: any LuaEngine
        if let own = LuaThreadEngines.current.take(number) {
            if own.addedModules == addedCount.load(ordering: .acquiring) { return .success(own) }
            engine = own
        } else {
            switch idleOrNewEngine() {
            case .success(let found): engine = found
            case .failure(let failure): return .failure(failure)
            }
        }
        guard engine.addedModules < addedCount.load(ordering: .acquiring) else { return .success(engine) }
        let missing = pool.withLock { pool in
            engine.addedModules < pool.added.count ? Array(pool.added[engine.addedModules...]) : []
        }
        for (name, module) in missing {
            guard engine.add(module: name, module) else {
                let what = module.table == nil ? "inline Lua" : "the lookup table \(name)"
                return .failure(LuaFailure(kind: .memory, message: "cannot add \(what) to an interpreter"))
            }
            engine.addedModules += 1
        }
        return .success(engine)
    }

    /// Adds inline code as a module of its own, which every engine, in use or not, gets before
    /// its next call; returns the module's name (`@lua#3`, also its chunk's name).
    func add(_ chunk: InlineChunk) -> String {
        pool.withLock { pool in
            let name = InlineChunk.prefix + String(pool.added.count + 1)
            let text = InlineChunk.text(of: chunk.inline, expression: chunk.isExpression)
            pool.added.append((name, LuaModule(chunkName: "=" + name, text: text)))
            pool.inline[name] = chunk
            addedCount.store(pool.added.count, ordering: .releasing)
            return name
        }
    }

    /// Adds the catalog's lookup tables that engines do not hold yet (a table reloaded replaces
    /// the one of its name): each engine loads each table once, before its next call, and every
    /// call of it reads the same rows (`tables.c`).
    package func provide(tables: [String: LookupTable]) {
        pool.withLock { pool in
            for (name, table) in tables.sorted(by: { $0.key < $1.key }) where pool.tables[name] != table.serial {
                pool.tables[name] = table.serial
                pool.added.append((name, LuaModule(chunkName: "", text: "", table: LuaTableWire(table))))
            }
            addedCount.store(pool.added.count, ordering: .releasing)
        }
    }

    /// The inline code behind a chunk name, when it is one.
    func inlineChunk(_ name: some StringProtocol) -> InlineChunk? {
        guard name.hasPrefix(InlineChunk.prefix) else { return nil }
        return pool.withLock { $0.inline[String(name)] }
    }

    /// The calling thread, as the idle engines are kept by.
    private static var thread: UInt {
        #if os(Linux)
            UInt(pthread_self())
        #else
            UInt(bitPattern: pthread_self())
        #endif
    }

    /// The most idle engines kept: beyond it a thread without its own takes another's.
    static let keptIdle = max(4, 2 * ProcessInfo.processInfo.activeProcessorCount)

    /// An idle engine for this thread: its own; else one of a thread that keeps more than one;
    /// else, when as many as `keptIdle` wait, any; else none (a new one is made).
    private func idleEngine() -> (any LuaEngine)? {
        let thread = Self.thread
        return pool.withLock { pool in
            if let own = pool.idle[thread]?.popLast() {
                pool.idleCount -= 1
                return own
            }
            let spare = pool.idle.first { $0.value.count >= 2 } ?? pool.idle.first { !$0.value.isEmpty }
            guard let (owner, engines) = spare, engines.count >= 2 || pool.idleCount >= Self.keptIdle else {
                return nil
            }
            pool.idleCount -= 1
            return pool.idle[owner]?.popLast()
        }
    }

    private func idleOrNewEngine() -> Result<any LuaEngine, LuaFailure> {
        if let interpreter = idleEngine() { return .success(interpreter) }
        switch isolation {
        case .inProcess:
            guard
                let interpreter = LuaInterpreter(
                    memoryLimit: limits.memory, modules: modules, logLimit: log.callLimit)
            else {
                return .failure(
                    LuaFailure(kind: .memory, message: "cannot create a Lua interpreter within \(limits.memory) bytes"))
            }
            return .success(interpreter)
        case .process:
            do {
                return .success(
                    try LuaWorkerProcess(
                        modules: modules, limits: limits, logLimit: log.callLimit, label: directory))
            } catch {
                return .failure(LuaFailure(kind: .failed, message: error.message))
            }
        }
    }

    func checkIn(_ interpreter: any LuaEngine) {
        guard interpreter.isAlive else { return }
        // An interpreter in this process goes back to the thread's own slot first.
        if let local = interpreter.inProcess, LuaThreadEngines.current.keep(local, for: self) { return }
        let thread = Self.thread
        pool.withLock { pool in
            // Past the most kept, an engine this thread already has a spare of is let go.
            if pool.idleCount >= Self.keptIdle, let own = pool.idle[thread], !own.isEmpty { return }
            pool.idle[thread, default: []].append(interpreter)
            pool.idleCount += 1
        }
    }
}

/// A function of a script, as resolved: where it is defined, for messages.
struct LuaFunction: Sendable {
    var module: String
    var name: String
    var source: String
    var line: Int
}

/// Reading the `path:line:` prefix Lua puts on error messages.
enum LuaMessage {
    /// The place a message names and the message after it. An error raised again with
    /// `error(e)` gets a second prefix (`W.lua:3: W.lua:6: boom`); the innermost one, where
    /// the error happened, is the place, and the others are dropped.
    static func place(in message: String) -> (file: String, line: Int, rest: String)? {
        guard var place = outerPlace(in: message) else { return nil }
        while let inner = outerPlace(in: place.rest) { place = inner }
        return place
    }

    private static func outerPlace(in message: String) -> (file: String, line: Int, rest: String)? {
        let parts = message.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, let line = Int(parts[1]), line > 0 else {
            return nil
        }
        return (String(parts[0]), line, parts[2].drop(while: { $0 == " " }).description)
    }
}
