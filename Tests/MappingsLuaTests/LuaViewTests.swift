import Foundation
import Mappings
import MappingsLua
import Synchronization
import Testing

/// A call's input object or array reaches the script as a view over its JSON text: read like the
/// table it stands for, converted as it is read, changed by copying on write, and dead once its
/// call is over; in process and in worker processes alike.
@Suite("Lua views of a call's input")
struct LuaViewTests {
    static let payload = #"""
        {"id": 7, "name": "Ann", "user": {"name": "Ann Lee", "screen_name": "ann", "followers_count": 1200,
         "verified": true, "tags": ["a", "b"]}, "tags": ["x", "y", "z"], "price": 2.50, "one": 1.0, "big": 18446744073709551617,
         "exp": 1e2, "nothing": null, "caf\u00e9": "na\u00efve \ud83d\ude80", "empty": {}, "list": []}
        """#

    static let script = """
        local M = {}
        local kept
        function M.read(v)
            return table.concat({
                v.user.name, tostring(#v.tags), json.type(v), json.type(v.tags), type(v), type(v.user),
                math.type(v.id), math.type(v.price), math.type(v.one), type(v.big), math.type(v.exp),
                tostring(v.nothing == json.null), v["café"], tostring(v.missing),
                tostring(rawget(v, "id")), tostring(rawlen(v.tags)), tostring(v.user == v.user),
                tostring(#v.list), json.type(v.empty), tostring(next(v.empty)), tostring(v.tags[1.0]),
            }, "|")
        end
        function M.walk(v)
            local out = {}
            for key, value in pairs(v) do out[#out + 1] = key .. "=" .. json.type(value) end
            for index, value in ipairs(v.tags) do out[#out + 1] = index .. ":" .. value end
            local key, value = next(v)
            out[#out + 1] = "next:" .. key
            return table.concat(out, ",")
        end
        function M.same(v) return v end
        function M.user(v) return v.user end
        function M.wrapped(v) return { whole = v, user = v.user } end
        function M.edit(v)
            v.name = "Bea"
            v.user.name = "Bea Lee"
            v.added = true
            v.nothing = nil
            v.tags[#v.tags + 1] = "w"
            table.insert(v.user.tags, 1, "first")
            return v
        end
        function M.hole(v) v.tags[2] = nil return v end
        function M.keep(v) kept = v return 1 end
        function M.stale(v) return kept.name end
        function M.stale_returned(v) return { old = kept } end
        function M.stale_caught(v) local ok, message = pcall(function() return kept.name end) return message end
        function M.copy(v) kept = json.copy(v) return 1 end
        function M.copied(v) return kept.user.name .. "," .. kept.tags[3] .. "," .. json.type(kept.list) end
        function M.spin(v) local n = 0 while true do n = n + #v.user.name end end
        function M.scan(v) local n = 0 for round = 1, 1e9 do for _, tag in ipairs(v.tags) do n = n + #tag end end return n end
        function M.cycle(v) v.self = v return v end
        function M.mark(v) return json.array(v) end
        function M.logs(v) log(v.user) return 1 end
        return M
        """

    static func fixture(_ function: String, isolation: LuaIsolation, limits: LuaLimits = LuaFixture.testLimits)
        throws -> LuaFixture
    {
        try LuaFixture(["V.lua": script], entries: ["v": "V.\(function)"], limits: limits, isolation: isolation)
    }

    static let isolations: [LuaIsolation] = [.inProcess, .process]

    @Test("a view reads like the table it stands for: fields, lengths, kinds, numbers, escapes", arguments: isolations)
    func reading(_ isolation: LuaIsolation) throws {
        let fixture = try Self.fixture("read", isolation: isolation)
        defer { fixture.remove() }
        let (output, issues) = try fixture.map(json: Self.payload)
        #expect(issues.isEmpty, "\(issues)")
        #expect(
            output.contains(
                #""v":"Ann Lee|3|object|array|table|table|integer|float|float|string|float|true|naïve 🚀|nil|7|3|true|0|object|nil|x""#
            ), "\(output)")
    }

    @Test(
        "an object that writes a key twice, or a value nested past 128 levels, is refused where the script reads it",
        arguments: isolations)
    func repeatsAndDepth(_ isolation: LuaIsolation) throws {
        let script = """
            return {
                name = function(v) return v.user.name end,
                deep = function(v) local c = v.deep for i = 1, 200 do c = c[1] end return 1 end,
            }
            """
        let deep = String(repeating: "[", count: 200) + String(repeating: "]", count: 200)
        // The repeat and the depth sit where `name` never reads: nothing to report.
        let elsewhere = #"{"user": {"name": "Ann"}, "other": {"k": 1, "k": 2}, "deep": \#(deep)}"#
        let repeated = #"{"user": {"name": "Ann", "name": "Bea"}}"#
        for (function, payload, says) in [
            ("name", elsewhere, nil), ("name", repeated, "duplicate key \"name\""),
            ("deep", elsewhere, "the value nests deeper than 128 levels"),
        ] {
            let fixture = try LuaFixture(["R.lua": script], entries: ["v": "R.\(function)"], isolation: isolation)
            defer { fixture.remove() }
            let (output, issues) = try fixture.map(json: payload)
            if let says {
                #expect(issues.count == 1, "\(function): \(issues)")
                #expect(issues.first?.contains(says) == true, "\(function): \(issues)")
            } else {
                #expect(issues.isEmpty && output == #"{"v":"Ann"}"#, "\(function): \(output) \(issues)")
            }
        }
    }

    /// A key written twice is an issue where the script reads it — a lookup of that key, or an
    /// iteration over its object — and nothing where it reads only the object's other keys:
    /// before the object is indexed (lookups that walk its members) and after (past four
    /// lookups, or once iterated), a key written with escapes as with plain bytes.
    @Test(
        "a key written twice is an issue where the script looks it up or iterates, nothing elsewhere",
        arguments: isolations)
    func repeatsWhereRead(_ isolation: LuaIsolation) throws {
        let script = """
            return {
                name = function(v) return v.user.name end,
                role = function(v) return v.user.role end,
                many = function(v) local u = v.user
                    return u.a .. u.b .. u.c .. u.d .. u.e .. u.name end,
                manyRole = function(v) local u = v.user
                    return u.a .. u.b .. u.c .. u.d .. u.e .. u.role end,
                keys = function(v) local n = 0 for k in pairs(v.user) do n = n + 1 end return tostring(n) end,
                length = function(v) return tostring(#v.user) end,
                copied = function(v) return json.copy(v.user) end,
                changed = function(v) local u = v.user u.extra = 1 return u end,
                after = function(v) for k in pairs(v.other) do end return v.user.name end,
            }
            """
        let plain =
            #"{"user": {"a": "1", "b": "2", "c": "3", "d": "4", "e": "5", "name": "Ann", "role": "user", "role": "admin"}, "other": {}}"#
        let escaped =
            #"{"user": {"a": "1", "b": "2", "c": "3", "d": "4", "e": "5", "name": "Ann", "r\u006fle": "user", "role": "admin"}, "other": {}}"#
        let says = #"duplicate key "role""#
        for payload in [plain, escaped] {
            for (function, expected) in [
                ("name", "Ann"), ("many", "12345Ann"), ("after", "Ann"), ("role", nil), ("manyRole", nil),
                ("keys", nil), ("length", nil), ("copied", nil), ("changed", nil),
            ] {
                let fixture = try LuaFixture(["R.lua": script], entries: ["v": "R.\(function)"], isolation: isolation)
                defer { fixture.remove() }
                let (output, issues) = try fixture.map(json: payload)
                if let expected {
                    #expect(issues.isEmpty && output == #"{"v":"\#(expected)"}"#, "\(function): \(output) \(issues)")
                } else {
                    #expect(
                        issues.count == 1 && issues.first?.contains(says) == true, "\(function): \(issues) \(output)")
                }
            }
        }
    }

    @Test(
        "a key written twice in an object no lookup reaches stays unread, whatever the script reads around it",
        arguments: isolations)
    func repeatsUnread(_ isolation: LuaIsolation) throws {
        let script = "return { f = function(v) return v.user.name .. v.user.name end }"
        let payload = #"{"user": {"k": 1, "name": "Ann", "k": 2}, "name": 3, "name": 4}"#
        do {
            let fixture = try LuaFixture(["R.lua": script], entries: ["v": "R.f"], isolation: isolation)
            defer { fixture.remove() }
            let (output, issues) = try fixture.map(json: payload)
            #expect(issues.isEmpty && output == #"{"v":"AnnAnn"}"#, "\(output) \(issues)")
        }
    }

    /// Every level a script reads is a view kept in its parent's slots: returning the value
    /// walks them all (a walk that once pushed past Lua's stack and broke the host's memory at
    /// 15 levels). Up to the limit a value read, changed or copied at its deepest level comes
    /// back exactly; one level past it is an issue that names the limit, never a null.
    @Test(
        "a value read to its deepest level is returned exactly up to 128 levels; past them, an issue names the limit",
        arguments: isolations)
    func depthLimit(_ isolation: LuaIsolation) throws {
        let script = """
            local function down(v, n) for i = 1, n do v = v[1] end return v end
            return {
                walk = function(v, levels) down(v, levels - 1) return v end,
                change = function(v, levels) local inner = down(v, levels - 1) inner[1] = 5 return v end,
                copy = function(v) return json.copy(v) end,
            }
            """
        func nested(_ levels: Int, innermost: String = "0") -> String {
            String(repeating: "[", count: levels) + innermost + String(repeating: "]", count: levels)
        }
        for levels in [1, 15, 16, 64, 127, 128, 129, 200] {
            for function in ["walk", "change", "copy"] {
                let fixture = try LuaFixture(
                    ["D.lua": script], entries: ["v": "D.\(function)"], userData: String(levels), isolation: isolation)
                defer { fixture.remove() }
                let (output, issues) = try fixture.map(json: nested(levels))
                if levels <= 128 {
                    let expected = function == "change" ? nested(levels, innermost: "5") : nested(levels)
                    #expect(issues.isEmpty && output == #"{"v":\#(expected)}"#, "\(function) \(levels): \(issues)")
                } else {
                    #expect(output == "{}" && issues.count == 1, "\(function) \(levels): \(output) \(issues)")
                    #expect(issues.first?.contains("128 levels") == true, "\(function) \(levels): \(issues)")
                }
            }
        }
    }

    @Test("pairs keeps the payload's order, ipairs its elements, next its first key", arguments: isolations)
    func walking(_ isolation: LuaIsolation) throws {
        let fixture = try Self.fixture("walk", isolation: isolation)
        defer { fixture.remove() }
        let (output, _) = try fixture.map(json: #"{"b": 1, "a": [1], "c": {"d": null}, "tags": ["p", "q"]}"#)
        #expect(output.contains(#""v":"b=integer,a=array,c=object,tags=array,1:p,2:q,next:b""#), "\(output)")
    }

    @Test("returned unchanged, a view is its value exactly: order, spellings, nesting", arguments: isolations)
    func returnedWhole(_ isolation: LuaIsolation) throws {
        let text = #"{"z": 2.50, "a": [1.0, -0.0, 1e2, 18446744073709551617], "user": {"k": "\u00e9"}}"#
        let whole = #"{"z":2.50,"a":[1.0,-0.0,1e2,18446744073709551617],"user":{"k":"é"}}"#
        for (function, expected) in [
            ("same", whole), ("user", #"{"k":"é"}"#), ("wrapped", #"{"user":{"k":"é"},"whole":\#(whole)}"#),
        ] {
            let fixture = try Self.fixture(function, isolation: isolation)
            defer { fixture.remove() }
            let (output, issues) = try fixture.map(json: text)
            #expect(issues.isEmpty, "\(function): \(issues)")
            #expect(output == #"{"v":\#(expected)}"#, "\(function): \(output)")
        }
    }

    @Test(
        "writing to a view copies on write: changes, additions, removals, appends, nested changes",
        arguments: isolations)
    func copyOnWrite(_ isolation: LuaIsolation) throws {
        let fixture = try Self.fixture("edit", isolation: isolation)
        defer { fixture.remove() }
        let (output, issues) = try fixture.map(
            json: #"{"name": "Ann", "nothing": null, "user": {"name": "Ann Lee", "tags": ["t"]}, "tags": ["x"]}"#)
        #expect(issues.isEmpty, "\(issues)")
        #expect(
            output
                == #"{"v":{"name":"Bea","user":{"name":"Bea Lee","tags":["first","t"]},"tags":["x","w"],"added":true}}"#,
            "\(output)")
    }

    @Test("what a table refuses, a view refuses: holes, cycles, the other kind's mark", arguments: isolations)
    func refusals(_ isolation: LuaIsolation) throws {
        for (function, says) in [
            ("hole", "a table marked as an array has keys other than 1..n"),
            ("cycle", "the value contains itself (a cycle)"),
            ("mark", "json.array: the value is a JSON object"),
        ] {
            let fixture = try Self.fixture(function, isolation: isolation)
            defer { fixture.remove() }
            let (_, issues) = try fixture.map(json: #"{"tags": ["a", "b", "c"]}"#)
            #expect(issues.count == 1 && issues[0].contains(says), "\(function): \(issues)")
        }
    }

    @Test(
        "a view kept past its call fails with a message when read or returned; json.copy keeps", arguments: isolations)
    func keptPastItsCall(_ isolation: LuaIsolation) throws {
        let script = """
            local M = {}
            local kept
            function M.keep(v) kept = v return 1 end
            function M.copy(v) kept = json.copy(v) return 1 end
            function M.read(v) return kept.name end
            function M.returned(v) return { old = kept } end
            function M.caught(v) local ok, message = pcall(function() return kept.name end) return message end
            function M.copied(v) return kept.user.name .. "," .. kept.tags[2] .. "," .. json.type(kept.list) end
            return M
            """
        let payload = #"{"name": "Ann", "user": {"name": "Ann Lee"}, "tags": ["x", "y"], "list": []}"#
        for (first, second, expected) in [
            ("keep", "read", "this value belongs to an earlier call"),
            ("keep", "returned", "it holds a value of an earlier call (keep json.copy(value) instead)"),
            ("keep", "caught", #""b":"#),
            ("copy", "copied", #""b":"Ann Lee,y,array""#),
        ] {
            // Entries run in key order: `a` keeps, `b` reads in the next call.
            let fixture = try LuaFixture(
                ["K.lua": script], entries: ["a": "K.\(first)", "b": "K.\(second)"], isolation: isolation)
            defer { fixture.remove() }
            let (output, issues) = try fixture.map(json: payload)
            let all = output + " " + issues.joined(separator: " ")
            #expect(all.contains(expected), "\(first) then \(second): \(all)")
            if second == "caught" {
                #expect(output.contains("earlier call"), "\(output)")
            }
        }
    }

    @Test("every limit holds while a script reads a view: budget, deadline", arguments: isolations)
    func limits(_ isolation: LuaIsolation) throws {
        for function in ["spin", "scan"] {
            let fixture = try Self.fixture(function, isolation: isolation)
            defer { fixture.remove() }
            let started = ContinuousClock.now
            let (_, issues) = try fixture.map(json: Self.payload)
            #expect(
                issues.contains { $0.contains("instruction budget") || $0.contains("deadline") },
                "\(function): \(issues)")
            #expect(ContinuousClock.now - started < .seconds(5))
        }
        // A view's index is the interpreter's memory: an object of many members under a small cap.
        let members = (0..<40_000).map { #""k\#($0)": \#($0)"# }.joined(separator: ",")
        let fixture = try Self.fixture(
            "walk", isolation: isolation,
            limits: LuaLimits(memory: 1 << 20, instructions: 50_000_000, timeout: .seconds(2)))
        defer { fixture.remove() }
        let (_, issues) = try fixture.map(json: "{\(members)}")
        #expect(issues.contains { $0.contains("memory") }, "\(issues)")
    }

    @Test("log shows a view as the table it stands for")
    func logging() throws {
        let lines = Mutex<[String]>([])
        let log = LuaLog { line in lines.withLock { $0.append(line) } }
        let fixture = try LuaFixture(["V.lua": Self.script], entries: ["v": "V.logs"], log: log)
        defer { fixture.remove() }
        _ = try fixture.map(json: #"{"user": {"name": "Ann", "tags": ["a"]}}"#)
        let text = lines.withLock { $0.joined(separator: "\n") }
        #expect(text.contains(#"{name="Ann", tags={"a"}}"#), "\(text)")
    }
}
