import Foundation
import Mappings
import MappingsLua
import Synchronization
import Testing

/// Hostile and buggy scripts, one per row of the attack table in
/// `reference/lua-sandbox.md` §5 (CPU, memory, stack, escape and persistence, error objects,
/// return values). Each call must end in bounded time with an issue for that value, the
/// process alive, no file touched, and the next call on the same scripts correct.
@Suite("hostile and buggy Lua scripts")
struct HostileScriptTests {
    /// A row: the attack as the body of `f(value, userData)`, and what the issue must say (any of).
    struct Attack: CustomTestStringConvertible, Sendable {
        var row: String
        var body: String
        var expected: [String]
        var testDescription: String { row }
    }

    static let loop = "local function loop() while true do end end"

    static let attacks: [Attack] = [
        // A. CPU and time
        Attack(row: "A1 while true", body: "while true do end", expected: ["instruction budget"]),
        Attack(
            row: "A2 pcall cannot swallow the budget",
            body: "while true do pcall(function() while true do end end) end", expected: ["instruction budget"]),
        Attack(
            row: "A3 xpcall with a looping handler", body: "\(loop) xpcall(loop, loop) return 1",
            expected: ["instruction budget"]),
        Attack(
            row: "A4 endless tail calls", body: "local function f() return f() end return f()",
            expected: ["instruction budget"]),
        Attack(
            row: "A5 coroutines are not there", body: "coroutine.wrap(function() while true do end end)()",
            expected: ["global 'coroutine'"]),
        Attack(
            row: "A6 no yield ping-pong either", body: "local co = coroutine.create(print) coroutine.resume(co)",
            expected: ["global 'coroutine'"]),
        Attack(
            row: "A7 counting to maxinteger", body: "for i = 1, math.maxinteger do end",
            expected: ["instruction budget"]),
        Attack(
            row: "A8 backtracking pattern on a growing subject",
            body: "for n = 10, 100000, 5 do local s = ('a'):rep(n) s:find('a-a-a-a-b') end",
            expected: ["deadline", "instruction budget"]),
        Attack(
            row: "A9 gsub with a C replacement on a huge subject",
            body: "return (('a'):rep(5e6):gsub('a', string.upper))", expected: ["out of memory", "instruction budget"]),
        // One C call that would run long: each counts its steps against the budget and the deadline.
        Attack(
            row: "A9a a backtracking find, lazy quantifiers",
            body: "return string.find(string.rep('a', 120), '.-.-.-.-b')", expected: ["instruction budget"]),
        Attack(
            row: "A9b a backtracking match, greedy quantifiers",
            body: "return string.match(string.rep('a', 5000), '.*.*.*b')", expected: ["instruction budget"]),
        Attack(
            row: "A9c optional items, exponential",
            body: "return string.find(string.rep('a', 60), string.rep('a?', 60) .. string.rep('a', 60) .. 'b')",
            expected: ["instruction budget"]),
        Attack(
            row: "A9d gmatch of a backtracking pattern",
            body: "for x in string.gmatch(string.rep('a', 3000), 'a-a-a-b') do end",
            expected: ["instruction budget"]),
        Attack(
            row: "A9e gsub of a backtracking pattern", body: "return (string.gsub(string.rep('a', 3000), '.-.-b', ''))",
            expected: ["instruction budget"]),
        Attack(
            row: "A9f %b over a long subject, again and again",
            body: "local s = string.rep('(', 1e6) for i = 1, 1e6 do s:find('%b()') end",
            expected: ["instruction budget"]),
        Attack(
            row: "A9g table.concat whose __index is a C function",
            body:
                "local t = setmetatable({}, {__index = table.concat}) return table.concat(t, '', 1, math.maxinteger)",
            expected: ["instruction budget"]),
        Attack(
            row: "A9h table.sort of a table that claims to be huge",
            body:
                "local t = setmetatable({}, {__len = function() return 1 << 30 end, __index = rawlen, __newindex = rawequal}) table.sort(t)",
            expected: ["instruction budget"]),
        Attack(
            row: "A9i table.insert shifting a huge claimed length",
            body:
                "local t = setmetatable({}, {__len = function() return math.maxinteger - 1 end, __index = rawlen, __newindex = rawequal}) table.insert(t, 1, 'x')",
            expected: ["instruction budget"]),
        Attack(
            row: "A9j table.remove shifting a huge claimed length",
            body:
                "local t = setmetatable({}, {__len = function() return math.maxinteger end, __index = rawlen, __newindex = rawequal}) table.remove(t, 1)",
            expected: ["instruction budget"]),
        Attack(
            row: "A9k table.move of maxinteger elements",
            body:
                "local t = setmetatable({}, {__index = table.concat, __newindex = rawequal}) table.move(t, 1, math.maxinteger - 1, 2)",
            expected: ["instruction budget"]),
        Attack(
            row: "A9l a sort whose comparator is a C function",
            body: "local t = {} for i = 1, 3e5 do t[i] = i % 10 end table.sort(t, rawequal) error('sorted')",
            expected: ["instruction budget", "sorted", "out of memory"]),
        Attack(
            row: "A9m a pathological pattern while the module loads is bounded too",
            body: "return require('Slow')", expected: ["instruction budget"]),
        Attack(
            row: "A10 an invalid order function",
            body:
                "local t = {} for i = 1, 200 do t[i] = i % 7 end table.sort(t, function() return true end) error('sorted')",
            expected: ["invalid order function", "sorted"]),
        Attack(
            row: "A11 a looping __gc", body: "setmetatable({}, {__gc = function() while true do end end})",
            expected: ["__gc is not allowed"]),
        Attack(
            row: "A12 a __gc set to false first", body: "local mt = {__gc = false} setmetatable({}, mt)",
            expected: ["__gc is not allowed"]),
        // B. Memory
        Attack(row: "B13 a gigabyte string", body: "return string.rep('x', 1e9)", expected: ["out of memory"]),
        Attack(
            row: "B13a a terabyte string, refused before it is made", body: "return #string.rep('xy', 1 << 40)",
            expected: ["out of memory"]),
        Attack(
            row: "B13b a huge format, refused before it is made",
            body:
                "local s = ('x'):rep(4e6) return string.format(('%s'):rep(100), table.unpack((function() local t = {} for i = 1, 100 do t[i] = s end return t end)()))",
            expected: ["out of memory"]),
        Attack(
            row: "B13c a huge pack, refused before it is made", body: "return #string.pack('c1000000000', '')",
            expected: ["out of memory"]),
        Attack(
            row: "B13d concatenating maxinteger separators", body: "return table.concat({}, 'x', 1, math.maxinteger)",
            expected: ["out of memory"]),
        Attack(
            row: "B14 a string too large to count", body: "return string.rep('x', math.maxinteger, 'y')",
            expected: ["resulting string too large"]),
        Attack(
            row: "B15 an endless table", body: "local t = {} for i = 1, 1e9 do t[i] = i end",
            expected: ["out of memory"]),
        Attack(
            row: "B16 quadratic concatenation", body: "local s = '' for i = 1, 1e7 do s = s .. 'x' end",
            expected: ["out of memory", "instruction budget", "deadline"]),
        Attack(
            row: "B17 collectgarbage is not there", body: "collectgarbage('stop')",
            expected: ["global 'collectgarbage'"]),
        Attack(
            row: "B18 catching out-of-memory in a loop", body: "while true do pcall(string.rep, 'x', 1e9) end",
            expected: ["out of memory"]),
        // A limit that tripped decides the call, whatever the script did after: every way back to the caller.
        Attack(
            row: "B18a a tail call hands back what pcall caught of the budget",
            body: "return pcall(function() while true do end end)", expected: ["instruction budget"]),
        Attack(
            row: "B18b xpcall whose handler loops too, returned",
            body: "return xpcall(function() while true do end end, function() while true do end end)",
            expected: ["instruction budget"]),
        Attack(
            row: "B18c xpcall whose handler returns normally",
            body:
                "local ok, message = xpcall(function() while true do end end, function(m) return 'fine' end) return message",
            expected: ["instruction budget"]),
        Attack(
            row: "B18d pcall of pcall", body: "local ok = pcall(pcall, function() while true do end end) return ok",
            expected: ["instruction budget"]),
        Attack(
            row: "B18e out-of-memory caught and returned", body: "return pcall(string.rep, 'x', 1e9)",
            expected: ["out of memory"]),
        Attack(
            row: "B18f out-of-memory caught by an xpcall handler",
            body:
                "return xpcall(function() local t = {} for i = 1, 1e8 do t[i] = {} end end, function(m) return m end)",
            expected: ["out of memory"]),
        Attack(
            row: "B18g out-of-memory caught, then a value",
            body: "pcall(function() local t = {} for i = 1, 1e9 do t[i] = i end end) return 1",
            expected: ["out of memory"]),
        Attack(
            row: "B19 a million closures",
            body: "local t = {} for i = 1, 1e6 do t[i] = function() return i end end",
            expected: ["out of memory"]),
        Attack(
            row: "B20 unpacking too much", body: "return table.unpack({}, 1, 1e7)",
            expected: ["too many results to unpack"]),
        Attack(
            row: "B22 concatenating 100 MB",
            body: "local t = {} for i = 1, 100 do t[i] = ('x'):rep(1 << 20) end return table.concat(t)",
            expected: ["out of memory"]),
        // C. Stack
        Attack(
            row: "C23 Lua recursion", body: "local function f() return 1 + f() end return f()",
            expected: ["stack overflow", "out of memory"]),
        Attack(
            row: "C24 recursion through gsub",
            body: "local function f() string.gsub('a', '.', f) end f()", expected: ["stack overflow"]),
        Attack(
            row: "C25 recursion through __index",
            body: "local t = setmetatable({}, {__index = function(t, k) return t[k] end}) return t.x",
            expected: ["stack overflow"]),
        Attack(
            row: "C28 a pattern too complex",
            body: "return string.match(('a'):rep(2000), ('.?'):rep(2000))", expected: ["pattern too complex"]),
        Attack(
            row: "C29 __close is refused", body: "local x <close> = setmetatable({}, {__close = function() end})",
            expected: ["__close is not allowed"]),
        Attack(
            row: "C30 xpcall of a loop with a looping handler",
            body: "\(loop) return select(2, xpcall(loop, loop))", expected: ["instruction budget"]),
        // D. Escape and persistence
        Attack(row: "D31 os.execute", body: "return os.execute('id')", expected: ["field 'execute'"]),
        Attack(row: "D31 os.exit", body: "os.exit(1)", expected: ["field 'exit'"]),
        Attack(row: "D31 os.getenv", body: "return os.getenv('HOME')", expected: ["field 'getenv'"]),
        Attack(row: "D31 os.remove", body: "return os.remove(value.path)", expected: ["field 'remove'"]),
        Attack(row: "D32 io.open", body: "return io.open(value.path, 'w')", expected: ["global 'io'"]),
        Attack(row: "D32 io.popen", body: "return io.popen('id')", expected: ["global 'io'"]),
        Attack(row: "D33 require a C module", body: "return require('ffi')", expected: ["module 'ffi' not found"]),
        Attack(
            row: "D33 require a library", body: "return require('os').execute('id')",
            expected: ["module 'os' not found"]),
        Attack(
            row: "D33 package.loadlib", body: "return package.loadlib('libc.so.6', 'system')",
            expected: ["global 'package'"]),
        Attack(row: "D34 dofile", body: "return dofile('/etc/passwd')", expected: ["global 'dofile'"]),
        Attack(row: "D34 loadfile", body: "return loadfile('/etc/passwd')", expected: ["global 'loadfile'"]),
        Attack(
            row: "D35 string.dump and binary chunks", body: "return load(string.dump(function() end))",
            expected: ["field 'dump'"]),
        Attack(row: "D35 dump through a method", body: "return ('').dump(print)", expected: ["field 'dump'"]),
        Attack(row: "D36 load", body: "return load('return os')()", expected: ["global 'load'"]),
        Attack(row: "D37 debug", body: "return debug.getregistry()", expected: ["global 'debug'"]),
        Attack(
            row: "D38 the string metatable", body: "getmetatable('').__index.upper = function() return 'pwned' end",
            expected: ["index a boolean value"]),
        Attack(
            row: "D39 changing a library", body: "string.upper = function() return 'pwned' end",
            expected: ["read-only table"]),
        Attack(
            row: "D39 rawset into a library", body: "rawset(string, 'upper', function() return 'pwned' end)",
            expected: ["read-only table"]),
        Attack(
            row: "D39 removing a library function", body: "table.insert = nil", expected: ["read-only table"]),
        Attack(
            row: "D40 globals do not survive", body: "leaked = 1 rawset(_G, 'leaked', 2) error('set')",
            expected: ["set"]),
        Attack(
            row: "D41 a metatable on the globals",
            body: "setmetatable(_G, {__index = function() while true do end end})",
            expected: ["protected metatable"]),
        Attack(
            row: "D42 keeping the input in a global", body: "leaked = value return nil, 'kept'", expected: ["kept"]),
        // print and log keep a few cut lines of a call for the host; the budget still ends a loop.
        Attack(
            row: "D43 print in a loop", body: "while true do print(('x'):rep(1e6)) end",
            expected: ["instruction budget"]),
        Attack(
            row: "D43 log in a pcall loop", body: "while true do pcall(log, {value, value}) end",
            expected: ["instruction budget"]),
        Attack(row: "D43 warn", body: "warn('@on') warn('x')", expected: ["global 'warn'"]),
        Attack(row: "D44 randomseed", body: "math.randomseed(0)", expected: ["field 'randomseed'"]),
        // E. Error objects
        Attack(
            row: "E45 an error object whose __tostring errors",
            body: "error(setmetatable({}, {__tostring = function() error('boom') end}))",
            expected: ["(error object is a table value)"]),
        Attack(
            row: "E46 an error object whose __index loops",
            body: "error(setmetatable({}, {__index = function() while true do end end}))",
            expected: ["(error object is a table value)"]),
        Attack(row: "E47 error(nil)", body: "error(nil)", expected: ["error called with nil"]),
        Attack(row: "E47 error()", body: "error()", expected: ["error called with nil"]),
        Attack(
            row: "E48 a refusal whose message is a table", body: "return nil, {}",
            expected: ["refused without a message (its second value is a table"]),
        Attack(
            row: "E48 a refusal whose message is json.null", body: "return nil, json.null",
            expected: ["refused without a message"]),
        Attack(
            row: "E49 an error raised again names one place",
            body: "local ok, e = pcall(function() error('inner') end) error(e)", expected: ["Attack.lua:1: inner"]),
        // F. Return values
        Attack(
            row: "F50 deep nesting", body: "local t = {} for i = 1, 1e5 do t = {t} end return t",
            expected: ["nested too deeply"]),
        Attack(row: "F51 a cycle", body: "local a = {} a[1] = a return a", expected: ["cycle"]),
        Attack(row: "F52 a function", body: "return tostring", expected: ["a function is not a JSON value"]),
        Attack(
            row: "F52 a function inside a table", body: "return { f = type }",
            expected: ["a function is not a JSON value"]),
        Attack(row: "F54 NaN", body: "return 0/0", expected: ["NaN is not a JSON number"]),
        Attack(row: "F54 infinity", body: "return -1/0", expected: ["infinite number"]),
        Attack(row: "F56 invalid UTF-8", body: "return '\\xff\\xfe'", expected: ["not valid UTF-8"]),
        Attack(
            row: "F56 a code point past Unicode", body: "return utf8.char(0x7FFFFFFF)", expected: ["not valid UTF-8"]),
        Attack(row: "F57 a sparse array", body: "return {[1] = 1, [1e6] = 2}", expected: ["holes"]),
        Attack(row: "F57 mixed keys", body: "return {1, 2, x = 3}", expected: ["mixes array and object keys"]),
        Attack(
            row: "F57 an array marked with a string key", body: "local a = json.array() a.x = 1 return a",
            expected: ["keys other than 1..n"]),
        Attack(
            row: "F58 a result over 16 MiB", body: "return ('x'):rep(20 * 1024 * 1024)",
            expected: ["too large", "out of memory"]),
        Attack(
            row: "F58 a result with too many values",
            body: "local t = {} for i = 1, 300000 do t[i] = true end return t",
            expected: ["too large", "out of memory"]),
        // G. Views of the input (the value is a view over its JSON text; module state through
        // `require`, which returns the loaded module's own table).
        Attack(
            row: "G59 a view read in a loop past the budget", body: "while true do local _ = value.path end",
            expected: ["instruction budget"]),
        Attack(
            row: "G60 a view walked with pairs past the budget",
            body: "while true do for key, v in pairs(value) do local _ = #key end end", expected: ["instruction budget"]
        ),
        Attack(
            row: "G61 a view grown without end",
            body: "local i = 0 while true do i = i + 1 value[i] = ('x'):rep(64) end",
            expected: ["instruction budget", "out of memory"]),
        Attack(
            row: "G62 a view kept past its call and read in the next",
            body: "local M = require('Attack') if M.kept then return M.kept.path end M.kept = value return nil, 'kept'",
            expected: ["kept", "belongs to an earlier call"]),
        Attack(
            row: "G63 a pairs iterator kept and resumed after its call",
            body:
                "local M = require('Attack') if M.step then return M.step() end local f, s, k = pairs(value) M.step = function() return f(s, k) end return nil, 'kept'",
            expected: ["kept", "belongs to an earlier call"]),
        Attack(
            row: "G64 a view changed, kept, and returned by a later call",
            body:
                "local M = require('Attack') if M.kept then return M.kept end value.extra = 1 M.kept = value return nil, 'kept'",
            expected: ["kept", "a value of an earlier call"]),
        Attack(
            row: "G65 a nested view kept in a global survives no call",
            body: "if leakedView then return leakedView.path end leakedView = value return nil, 'kept'",
            expected: ["kept"]),
    ]

    /// How far past its deadline a call may end (docs/lua.md, "Limits").
    static let margin = Duration.seconds(1)

    static let check = """
        return { check = function(value)
            return { upper = ("ok"):upper(), rep = string.rep("a", 2), leaked = json.type(leaked), mt = getmetatable("") }
        end }
        """
    static let checked = #"{"leaked":"null","mt":false,"rep":"aa","upper":"OK"}"#

    @Test(
        "each attack is an issue for that value, in bounded time, and the next call is correct",
        arguments: attacks, LuaIsolation.allCases)
    func attack(_ attack: Attack, isolation: LuaIsolation) throws {
        let fixture = try LuaFixture(
            [
                "Attack.lua": "return { f = function(value, userData) \(attack.body) end }", "Check.lua": Self.check,
                "Slow.lua": "string.find(string.rep('a', 200), '.-.-.-.-.-b') return {}",
            ],
            entries: ["attack": "Attack.f", "check": "Check.check"], isolation: isolation)
        defer { fixture.remove() }
        let sentinel = fixture.directory.appendingPathComponent("sentinel.txt")
        try Data("untouched".utf8).write(to: sentinel)
        let input = JSONValue.object(JSONObject([("path", .string(sentinel.path))]))
        for round in 1...2 {
            let started = ContinuousClock.now
            let (output, issues) = try fixture.map(input)
            // The deadline plus the documented margin (docs/lua.md): every row ends by then.
            let bound = LuaFixture.testLimits.timeout + Self.margin
            #expect(ContinuousClock.now - started < bound, "round \(round) took \(ContinuousClock.now - started)")
            #expect(issues.count == 1, "round \(round): \(issues)")
            let message = issues.first ?? ""
            // Which limit trips first depends on the machine's speed: either one ends the call.
            let accepted = attack.expected + (attack.expected.contains("instruction budget") ? ["deadline"] : [])
            #expect(accepted.contains { message.contains($0) }, "round \(round): \(message)")
            #expect(message.contains("Attack.lua:"), "the issue names the script: \(message)")
            #expect(message.utf8.count < 1200)
            #expect(output.contains(#""check":\#(Self.checked)"#), "round \(round): \(output)")
        }
        #expect(try String(contentsOf: sentinel, encoding: .utf8) == "untouched")
    }

    @Test(
        "calls that once ran for seconds in one C call return their value at once",
        arguments: [
            ("return #string.rep('', math.maxinteger)", "0"),
            ("return #string.rep('', 1e15, '')", "0"),
            (
                "local h = ('a'):rep(2 << 20) local n = ('a'):rep((1 << 20) - 1) .. 'b' return json.type(h:find(n, 1, true))",
                #""null""#
            ),
            (
                "local h = ('ab'):rep(1 << 20) local n = ('ab'):rep(1 << 19) .. 'c' return json.type(h:find(n))",
                #""null""#
            ),
            ("return (('x'):rep(1e6):find('x', 1e6, true))", "1000000"),
        ])
    func boundedValues(_ row: (String, String)) throws {
        let fixture = try LuaFixture(
            ["Fast.lua": "return { f = function() \(row.0) end }"], entries: ["v": "Fast.f"])
        defer { fixture.remove() }
        let started = ContinuousClock.now
        let (output, issues) = try fixture.map()
        #expect(ContinuousClock.now - started < .milliseconds(500))
        #expect(issues == [])
        #expect(output == #"{"v":\#(row.1)}"#)
    }

    @Test("a long error message is cut, not carried whole")
    func longError() throws {
        let fixture = try LuaFixture(
            ["Attack.lua": "return { f = function() error(('x'):rep(3e6)) end }"], entries: ["a": "Attack.f"])
        defer { fixture.remove() }
        let (_, issues) = try fixture.map()
        #expect(issues.count == 1)
        #expect((issues.first?.utf8.count ?? 0) < 1200)
        #expect(issues.first?.contains("bytes in all)") == true, "\(issues.first?.suffix(200) ?? "")")
    }

    @Test(
        "a script logging in a loop: the call keeps 16 cut lines, counts the rest, and its budget still trips",
        arguments: LuaIsolation.allCases)
    func loggingLoop(isolation: LuaIsolation) throws {
        let lines = Mutex<[String]>([])
        let log = LuaLog { line in lines.withLock { $0.append(line) } }
        let fixture = try LuaFixture(
            [
                "Loud.lua": """
                return { f = function(value)
                    local t = setmetatable({}, {__index = function() while true do end end, __tostring = error})
                    while true do log(("x"):rep(1e6), t) end
                end }
                """
            ], entries: ["a": "Loud.f"], isolation: isolation, log: log)
        defer { fixture.remove() }
        let started = ContinuousClock.now
        let (_, issues) = try fixture.map()
        #expect(ContinuousClock.now - started < LuaFixture.testLimits.timeout + Self.margin)
        #expect(issues.count == 1)
        // Which limit trips first depends on the machine's speed: either one ends the call.
        #expect(issues.first.map { $0.contains("instruction budget") || $0.contains("deadline") } == true, "\(issues)")
        let logged = lines.withLock { $0 }
        #expect(logged.count == LuaLog.linesPerCall)
        for line in logged {
            #expect(line.hasPrefix("\(fixture.directory.path)/Loud.lua:3: xxx"))
            #expect(line.hasSuffix("… (cut at 512 bytes)\n"))
            #expect(line.utf8.count < 512 + fixture.directory.path.utf8.count + 64)
        }
        // Every call past the 16th costs its 1,000 steps and is counted, not kept.
        #expect(log.dropped > 0)
    }

    @Test("metamethods of a returned table never run; it is read raw")
    func rawResult() throws {
        let fixture = try LuaFixture(
            [
                "R.lua": """
                return { f = function()
                    return setmetatable({1, 2}, {
                        __index = function() while true do end end,
                        __len = function() error("len") end,
                        __pairs = function() error("pairs") end,
                    })
                end }
                """
            ], entries: ["r": "R.f"])
        defer { fixture.remove() }
        let (output, issues) = try fixture.map()
        #expect(issues == [])
        #expect(output == #"{"r":[1,2]}"#)
    }

    @Test("an interpreter filled to its cap by one call does not take the host down on the next input")
    func heapAtCap() throws {
        let fixture = try LuaFixture(
            [
                "Hog.lua": """
                local hoard = {}
                return { fill = function(value)
                    if value.fill then
                        while pcall(function() hoard[#hoard + 1] = ('x'):rep(1 << 16) end) do end
                        return "full"
                    end
                    return #value.items
                end }
                """
            ], entries: ["n": "Hog.fill"])
        defer { fixture.remove() }
        let full = try fixture.map(json: #"{"fill": true}"#)
        #expect(full.issues.count <= 1)
        let items = JSONValue.array(Array(repeating: .string(String(repeating: "y", count: 64)), count: 20_000))
        let big = try fixture.map(.object(JSONObject([("fill", .bool(false)), ("items", items)])))
        #expect(big.issues.count <= 1)
        let small = try fixture.map(json: #"{"fill": false, "items": [1, 2, 3]}"#)
        #expect(small.issues == [])
        #expect(small.output == #"{"n":3}"#)
    }

    @Test("C recursion on a thread with a small stack is an error, not a crash")
    func smallStack() throws {
        let fixture = try LuaFixture(
            ["Deep.lua": "return { f = function() local function f() string.gsub('a', '.', f) end f() end }"],
            entries: ["d": "Deep.f"])
        defer { fixture.remove() }
        final class Outcome: @unchecked Sendable { var issues: [String] = [] }
        let outcome = Outcome()
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            outcome.issues = (try? fixture.map().issues) ?? ["map threw"]
            done.signal()
        }
        thread.stackSize = 256 << 10
        thread.start()
        done.wait()
        #expect(outcome.issues.count == 1)
        #expect(outcome.issues.first?.contains("stack overflow") == true, "\(outcome.issues)")
    }
}
