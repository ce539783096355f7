import CLua
import Foundation
import Mappings
import MappingsLua
import Testing

/// The sandbox's own pattern matcher (sandbox's bounded.c) against Lua's string library: the
/// same script runs in a plain Lua state and in the sandbox, on seeded random subjects and
/// patterns, and every result (or the fact of an error) must agree.
@Suite("the bounded pattern matcher agrees with Lua's")
struct PatternMatcherTests {
    /// Runs find, match, gsub (string, function and table replacements) and gmatch, each under
    /// pcall, and shows every result as text.
    static let probe = """
        local function show(...)
            local parts = {}
            for i = 1, select('#', ...) do parts[i] = tostring((select(i, ...))) end
            return select('#', ...) .. ':' .. table.concat(parts, '|')
        end
        local function run(s, p, init)
            local out = {}
            local function try(name, f)
                local ok, result = pcall(f)
                out[#out + 1] = name .. '=' .. (ok and result or 'error')
            end
            try('find', function() return show(string.find(s, p, init)) end)
            try('plain', function() return show(string.find(s, p, init, true)) end)
            try('match', function() return show(string.match(s, p, init)) end)
            try('gsub', function() return show(string.gsub(s, p, '<%0>')) end)
            try('gsub1', function() return show(string.gsub(s, p, '<%1>', 2)) end)
            try('gsubf', function()
                return show(string.gsub(s, p, function(...) return '[' .. select('#', ...) .. ']' end))
            end)
            try('gsubt', function() return show(string.gsub(s, p, { a = 'A', b = false })) end)
            try('gmatch', function()
                local r = {}
                for a, b in string.gmatch(s, p, init) do
                    r[#r + 1] = tostring(a) .. ',' .. tostring(b)
                    if #r > 40 then break end
                end
                return table.concat(r, ';')
            end)
            return table.concat(out, '\\n')
        end
        return { run = function(v) return run(v.s, v.p, v.init) end }
        """

    /// A Lua state with the full standard library, the reference.
    final class Reference {
        let state: OpaquePointer

        init() throws {
            state = luaL_newstate()
            luaL_openlibs(state)
            let status = PatternMatcherTests.probe.withCString { clua_loadtext(state, $0, strlen($0), "=probe") }
            guard status == 0, clua_pcall(state, 0, 1, 0) == 0 else { throw CancellationError() }
            lua_getfield(state, -1, "run")
            lua_setglobal(state, "probe_run")
            clua_pop(state, 1)
        }

        deinit { lua_close(state) }

        func run(_ s: String, _ p: String, _ initial: Int) -> String {
            let script = "local v = ... return probe_run(v)"
            _ = script.withCString { clua_loadtext(state, $0, strlen($0), "=call") }
            clua_newtable(state)
            lua_pushstring(state, s)
            lua_setfield(state, -2, "s")
            lua_pushstring(state, p)
            lua_setfield(state, -2, "p")
            lua_pushinteger(state, lua_Integer(initial))
            lua_setfield(state, -2, "init")
            guard clua_pcall(state, 1, 1, 0) == 0 else {
                defer { clua_pop(state, 1) }
                return "reference failed: " + String(cString: clua_tostring(state, -1))
            }
            defer { clua_pop(state, 1) }
            return String(cString: clua_tostring(state, -1))
        }
    }

    /// SplitMix64, so every run tries the same cases.
    struct Generator {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((z ^ (z >> 31)) % UInt64(bound))
        }
    }

    static let pieces = [
        "a", "b", "c", ".", "%a", "%d", "%s", "%w", "%A", "%p", "[ab]", "[^a]", "[a-c]", "[%d_]", "[]]", "[^]a]",
        "*", "+", "-", "?", "(", ")", "()", "%1", "%2", "%bab", "%b()", "%f[%w]", "%f[%W]", "^", "$", "%", "[",
        "%.", "x", " ", "1", "-", "%x",
    ]
    static let letters = Array("aabbc( )1_x.-]Z")

    func compare(subject: String, pattern: String, initial: Int, reference: Reference, scripts: LuaScripts) throws {
        let resolution = scripts.resolve(TransformerReference(className: "Probe", selector: "run", userData: nil))
        guard case .found(let transformer) = resolution else {
            Issue.record("the probe does not resolve")
            return
        }
        let input = JSONValue.object(
            JSONObject([("s", .string(subject)), ("p", .string(pattern)), ("init", .integer(Int64(initial)))]))
        let ours = try transformer.transform(input, userData: nil)
        let theirs = reference.run(subject, pattern, initial)
        #expect(
            ours == .string(theirs),
            "string.* of \(subject.debugDescription) with \(pattern.debugDescription), init \(initial)")
    }

    @Test("4000 random patterns and subjects give the same results and the same errors")
    func random() throws {
        let fixture = try LuaFixture(["Probe.lua": Self.probe], entries: ["r": "Probe.run"])
        defer { fixture.remove() }
        let reference = try Reference()
        var generator = Generator(state: 0x5EED)
        for _ in 0..<4000 {
            var pattern = ""
            for _ in 0..<(1 + generator.next(6)) { pattern += Self.pieces[generator.next(Self.pieces.count)] }
            var subject = ""
            for _ in 0..<generator.next(16) { subject.append(Self.letters[generator.next(Self.letters.count)]) }
            let initial = [1, 1, 1, 2, -3, 0, 20][generator.next(7)]
            try compare(
                subject: subject, pattern: pattern, initial: initial, reference: reference, scripts: fixture.scripts)
        }
    }

    @Test(
        "hand-picked corners",
        arguments: [
            ("hello world", "o w"), ("hello", "l+"), ("hello", "^h"), ("hello", "o$"), ("a.b", "%."),
            ("x(y(z))w", "%b()"),
            ("THE (quick) fox", "%f[%a]%a+"), ("abcabc", "(a)(b)c%1"), ("abab", "()ab()"), ("", ""), ("abc", ""),
            ("aaa", "a-"), ("aaa", "a-$"), ("a$b", "$b"), ("key = value", "(%w+)%s*=%s*(%w+)"), ("a^b", "a^b"),
            ("[x]", "[]x[]+"), ("a-b", "[a-]+"), ("%", "%%"), ("abc", "(()"), ("abc", "a)"), ("abc", "%g+"),
        ])
    func corners(_ pair: (String, String)) throws {
        let fixture = try LuaFixture(["Probe.lua": Self.probe], entries: ["r": "Probe.run"])
        defer { fixture.remove() }
        let reference = try Reference()
        for initial in [1, 2, -1] {
            try compare(
                subject: pair.0, pattern: pair.1, initial: initial, reference: reference, scripts: fixture.scripts)
        }
    }
}
