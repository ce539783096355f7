import Foundation
import Mappings
import MappingsLua
import Testing

/// Values across the Lua bridge, both ways: nothing changes kind or loses precision.
@Suite("the Lua value bridge")
struct BridgeTests {
    static let roundTrips: [String] = [
        "null", "true", "false", "0", "-1", "9007199254740993", "9223372036854775807", "-9223372036854775808",
        "1.5", "-0.0", "1e+300", "5e-324", #""""#, #""héllo ✓""#, #""a\u0000b""#, "[]", "{}",
        #"{"a":[],"b":null}"#, "[null,null,[[]],{}]", #"[1,1.0,"1"]"#, #"{"nested":{"deep":[{"x":[1,2,{"y":null}]}]}}"#,
        #"{"":1,"1":2,"a b":3}"#, "2.50", "-0", "1E2", "[1.0,2.50,-0.0,0.10]", #"{"a":{"b":[1.0]}}"#,
    ]

    private static let identity = ["Id.lua": "return { same = function(value) return value end }"]

    @Test("identity round trips keep every value and kind", arguments: roundTrips)
    func roundTrip(_ json: String) throws {
        let fixture = try LuaFixture(Self.identity, entries: ["v": "Id.same"])
        defer { fixture.remove() }
        let reference = TransformerReference(className: "Id", selector: "same", userData: nil)
        guard case .found(let transformer) = fixture.scripts.resolve(reference) else {
            Issue.record("Id.same did not resolve")
            return
        }
        let input = try JSONParser.parse(json)
        let output = try transformer.bound(to: nil).transform(input, userData: nil)
        #expect(Self.identical(output, input), "\(output) is not \(input)")
        // And written exactly as it came: kinds, signs and spellings (`1.0`, `2.50`, `-0.0`).
        #expect(JSONWriter.string(output) == JSONWriter.string(input))
    }

    /// Equal, with integers apart from floats and the sign of zero kept.
    static func identical(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): true
        case (.bool(let x), .bool(let y)): x == y
        case (.integer(let x), .integer(let y)): x == y
        case (.double(let x), .double(let y)): x.bitPattern == y.bitPattern
        // A literal kept as written (`1.0`) comes back as the float Lua held: the same value.
        case (.double(let x), .number(let y)), (.number(let y), .double(let x)):
            y.isExactDouble && y.double.bitPattern == x.bitPattern
        case (.number(let x), .number(let y)): x.double.bitPattern == y.double.bitPattern
        case (.string(let x), .string(let y)): x == y
        case (.array(let x), .array(let y)): x.count == y.count && zip(x, y).allSatisfy { identical($0, $1) }
        case (.object(let x), .object(let y)):
            x.count == y.count
                && x.members.allSatisfy { member in y[member.key].map { identical(member.value, $0) } ?? false }
        default: false
        }
    }

    @Test("scripts see JSON kinds: null, integers and floats, arrays and objects (even empty)")
    func kindsInLua() throws {
        let fixture = try LuaFixture(
            [
                "K.lua": """
                return { kinds = function(value)
                    local out = json.array()
                    for _, v in ipairs(value) do out[#out + 1] = json.type(v) end
                    out[#out + 1] = tostring(value[1] == null)
                    out[#out + 1] = math.type(value[2]) .. "/" .. math.type(value[3])
                    out[#out + 1] = #value[8]
                    return out
                end }
                """
            ], entries: ["k": "K.kinds"])
        defer { fixture.remove() }
        let (output, issues) = try fixture.map(json: #"[null, 9007199254740993, 2.0, "s", true, [], {}, "a\u0000b"]"#)
        #expect(issues == [])
        #expect(
            output
                == #"{"k":["null","integer","float","string","boolean","array","object","string","true","integer/float",3]}"#
        )
    }

    @Test("numbers beyond a Lua integer or float reach scripts as their literal text; exact ones as numbers")
    func bigNumbers() throws {
        let fixture = try LuaFixture(
            [
                "N.lua": """
                return { see = function(value)
                    local out = json.array()
                    for _, v in ipairs(value) do out[#out + 1] = (math.type(v) or type(v)) .. " " .. tostring(v) end
                    out[#out + 1] = value[1] * 1
                    return out
                end }
                """
            ], entries: ["n": "N.see"])
        defer { fixture.remove() }
        let (output, issues) = try fixture.map(json: "[18446744073709551617, 123456789.123456789, 2.50, 1e400]")
        #expect(issues == [])
        #expect(
            output
                == #"{"n":["string 18446744073709551617","string 123456789.123456789","float 2.5","string 1e400",1.8446744073709552e+19]}"#
        )
    }

    @Test("results: integers stay integers, floats stay floats, wraparound is Lua's, NUL survives, keys sorted")
    func results() throws {
        let fixture = try LuaFixture(
            [
                "R.lua": """
                return {
                    wrap = function() return math.maxinteger + 1 end,
                    big = function() return 2^63 end,
                    pair = function() return { 1, 1.0, -0.0 } end,
                    nul = function() return "a\\0b" end,
                    keys = function() return { b = 1, a = json.array(), c = json.object(), d = null } end,
                    nothing = function() return nil end,
                }
                """
            ],
            entries: [
                "a": "R.wrap", "b": "R.big", "c": "R.pair", "d": "R.nul", "e": "R.keys", "f": "R.nothing",
            ])
        defer { fixture.remove() }
        let (output, issues) = try fixture.map()
        #expect(issues == [])
        // Floats stay of the float kind (`1.0`) and keep the sign of zero.
        #expect(
            output
                == #"{"a":-9223372036854775808,"b":9.223372036854776e+18,"c":[1,1.0,-0.0],"d":"a\u0000b","e":{"a":[],"b":1,"c":{},"d":null}}"#
        )
    }

    @Test("objects of any width come back whole and in bytewise key order, call after call")
    func wideResults() throws {
        let fixture = try LuaFixture(
            [
                "W.lua": """
                return {
                    wide = function(n)
                        local t = {}
                        for i = 1, n do t["k" .. string.format("%03d", (i * 37) % n)] = i end
                        t["\u{e9}t\u{e9}"] = "\u{fc}"
                        t.nested = { b = { n, n .. "" }, a = { z = true } }
                        return t
                    end,
                    badKey = function() return { ok = 1, ["\\xff"] = 2 } end,
                }
                """
            ],
            entries: ["v": "W.wide"])
        defer { fixture.remove() }
        let wide = try fixture.scripts.transformer(className: "W", selector: "wide")
        // 1…80 members: inline and spilled traversals; the same and then new keys, for the key cache.
        for n in [3, 10, 10, 31, 32, 33, 80, 10, 1] {
            let result = try wide.transform(.integer(Int64(n)), userData: nil)
            guard case .object(let object) = result else {
                Issue.record("W.wide(\(n)) returned \(result)")
                continue
            }
            let expected = (Set((1...n).map { String(format: "k%03d", ($0 * 37) % n) }).sorted() + ["nested", "été"])
                .sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
            #expect(object.keys == expected)
            #expect(object["été"] == .string("ü"))
            #expect(
                object["nested"]
                    == .object(
                        JSONObject([
                            ("a", .object(JSONObject([("z", .bool(true))]))),
                            ("b", .array([.integer(Int64(n)), .string("\(n)")])),
                        ])))
        }
        let badKey = try fixture.scripts.transformer(className: "W", selector: "badKey")
        do {
            let result = try badKey.transform(.null, userData: nil)
            Issue.record("a key that is not UTF-8 came back as \(result)")
        } catch {
            #expect("\(error)".contains("not valid UTF-8"), "\(error)")
        }
    }

    @Test("user data is converted once per entry and each call gets a fresh copy of it")
    func userData() throws {
        let fixture = try LuaFixture(
            [
                "U.lua": """
                return { take = function(value, userData)
                    local seen = userData.count
                    userData.count = userData.count + 1
                    table.insert(userData.list, value.n)
                    return { count = seen, list = userData.list, null = userData.none == null }
                end }
                """
            ], entries: ["u": "U.take"], userData: #"{"count": 1, "list": [], "none": null}"#)
        defer { fixture.remove() }
        for n in 1...3 {
            let (output, issues) = try fixture.map(json: #"{"n": \#(n)}"#)
            #expect(issues == [])
            #expect(output == #"{"u":{"count":1,"list":[\#(n)],"null":true}}"#)
        }
    }

    @Test("a failure names script:line: error(), nil plus a message, error with level 0, runtime errors")
    func failures() throws {
        let fixture = try LuaFixture(
            [
                "F.lua": """
                local F = {}
                function F.raise(value) error("no " .. value.x) end
                function F.refuse(value)
                    return nil, "refused"
                end
                function F.bare() error("bare", 0) end
                function F.runtime(value) return value.x.y.z end
                return F
                """
            ], entries: ["a": "F.raise", "b": "F.refuse", "c": "F.bare", "d": "F.runtime"])
        defer { fixture.remove() }
        let (output, issues) = try fixture.map(json: #"{"x": "way"}"#)
        let path = fixture.directory.appendingPathComponent("F.lua").path
        #expect(output == "{}")
        #expect(
            issues == [
                "F.raise failed: \(path):2: no way",
                "F.refuse failed: \(path):3: refused",
                "F.bare failed: \(path):6: bare",
                "F.runtime failed: \(path):7: attempt to index a nil value (field 'y')",
            ])
    }

    @Test("require loads other scripts of the directory, once, as text; load-time globals stay, call globals go")
    func requireAndGlobals() throws {
        let fixture = try LuaFixture(
            [
                "lib/text.lua": "loads = (loads or 0) + 1 return { shout = function(s) return s:upper() .. '!' end }",
                "Main.lua": """
                local text = require("lib.text")
                local again = require("lib.text")
                greeting = "hi"
                return { f = function(value)
                    local before = scratch
                    scratch = 1
                    return { shout = again.shout(greeting), same = text == again, loads = loads, before = json.type(before) }
                end }
                """,
            ], entries: ["m": "Main.f"])
        defer { fixture.remove() }
        for _ in 1...2 {
            let (output, issues) = try fixture.map()
            #expect(issues == [])
            #expect(output == #"{"m":{"before":"null","loads":1,"same":true,"shout":"HI!"}}"#)
        }
    }

    @Test("mapping on several threads at once is safe and gives the same results")
    func concurrency() throws {
        let fixture = try LuaFixture(
            [
                "C.lua":
                    "return { f = function(v) local s = 0 for i = 1, v.n do s = s + i end return { n = v.n, sum = s } end }"
            ],
            entries: ["c": "C.f"])
        defer { fixture.remove() }
        let expected = (0..<200).map { n in #"{"c":{"n":\#(n),"sum":\#(n * (n + 1) / 2)}}"# }
        final class Results: @unchecked Sendable {
            let lock = NSLock()
            var outputs: [[String]] = []
        }
        let results = Results()
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            let outputs = (0..<200).map { n in (try? fixture.map(json: #"{"n": \#(n)}"#).output) ?? "failed" }
            results.lock.lock()
            results.outputs.append(outputs)
            results.lock.unlock()
        }
        #expect(results.outputs.count == 4)
        for outputs in results.outputs { #expect(outputs == expected) }
    }
}
