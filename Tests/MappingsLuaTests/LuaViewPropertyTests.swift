import Foundation
import Mappings
import MappingsLua
import MappingsTestSupport
import Testing

/// A view must read, and change, exactly like the plain table it stands for: random values,
/// walked and edited the same way through the view and through `json.copy` of it, give the same
/// answers and the same results.
@Suite("Lua views behave as the tables they stand for")
struct LuaViewPropertyTests {
    /// Walks a value the same way whatever it is: kinds, lengths, every member in key order
    /// (pairs, collected and sorted), every element (ipairs, then `#`), scalars as text.
    /// `edit` applies the same random edits, driven by a seed, to whatever it is given.
    static let script = """
        local P = {}
        local function walk(v, out, depth)
            local kind = json.type(v)
            out[#out + 1] = kind .. ":" .. type(v)
            if kind == "object" then
                local keys = {}
                for key in pairs(v) do keys[#keys + 1] = key end
                table.sort(keys)
                out[#out + 1] = "#" .. #keys .. "/" .. rawlen(v)
                for _, key in ipairs(keys) do
                    out[#out + 1] = "k=" .. key
                    walk(v[key], out, depth + 1)
                    if rawget(v, key) ~= v[key] and json.type(v[key]) ~= "object" and json.type(v[key]) ~= "array" then
                        out[#out + 1] = "rawget differs"
                    end
                end
                out[#out + 1] = "missing:" .. tostring(v["no such key"])
            elseif kind == "array" then
                out[#out + 1] = "#" .. #v
                local count = 0
                for index, element in ipairs(v) do
                    count = count + 1
                    out[#out + 1] = "i=" .. index
                    walk(element, out, depth + 1)
                end
                out[#out + 1] = "ipairs " .. count .. " beyond:" .. tostring(v[#v + 1])
            elseif kind == "integer" or kind == "float" then
                out[#out + 1] = string.format("%.17g", v) .. ":" .. tostring(math.type(v))
            elseif kind == "string" then
                out[#out + 1] = string.format("%q", v)
            else
                out[#out + 1] = tostring(v)
            end
            return out
        end
        function P.walk(v) return table.concat(walk(v, {}, 0), "\\n") end
        function P.walkCopy(v) return table.concat(walk(json.copy(v), {}, 0), "\\n") end

        -- A small generator of its own, so both sides make the same edits.
        local function edits(v, seed)
            local state = seed
            local function random(n) state = (state * 1103515245 + 12345) % 2147483648 return state % n + 1 end
            local containers = {}
            local function collect(x, depth)
                local kind = json.type(x)
                if kind == "object" or kind == "array" then
                    containers[#containers + 1] = x
                    if depth < 3 then
                        if kind == "array" then for _, e in ipairs(x) do collect(e, depth + 1) end
                        else
                            local keys = {}
                            for key in pairs(x) do keys[#keys + 1] = key end
                            table.sort(keys)
                            for _, key in ipairs(keys) do collect(x[key], depth + 1) end
                        end
                    end
                end
            end
            collect(v, 0)
            for _ = 1, 6 do
                local target = containers[random(#containers)]
                local choice = random(5)
                if json.type(target) == "array" then
                    if choice == 1 then target[#target + 1] = "added" .. random(9)
                    elseif choice == 2 and #target > 0 then target[#target] = nil
                    elseif choice == 3 and #target > 0 then target[random(#target)] = random(100)
                    elseif choice == 4 then table.insert(target, 1, "first")
                    else target[#target + 1] = { nested = true } end
                else
                    local keys = {}
                    for key in pairs(target) do keys[#keys + 1] = key end
                    table.sort(keys)
                    if choice == 1 then target["new" .. random(9)] = random(1000)
                    elseif choice == 2 and #keys > 0 then target[keys[random(#keys)]] = nil
                    elseif choice == 3 and #keys > 0 then target[keys[random(#keys)]] = "changed"
                    elseif choice == 4 and #keys > 0 then local key = keys[random(#keys)] target[key] = target[key]
                    else target.list = { 1, 2.5, "three" } end
                end
            end
            return v
        end
        function P.edit(v, seed) return edits(v, seed) end
        function P.editCopy(v, seed) return edits(json.copy(v), seed) end
        return P
        """

    /// A random JSON value: objects and arrays (some empty), strings with escapes and non-ASCII,
    /// integers, floats of several spellings, big literals, booleans, null.
    static func value(_ random: inout SeededGenerator, depth: Int = 0, exotic: Bool = true) -> String {
        let choice = Int.random(in: 0..<(depth < 4 ? 10 : 6), using: &random)
        switch choice {
        case 0: return ["true", "false", "null"].randomElement(using: &random)!
        case 1: return String(Int64.random(in: -1_000_000...1_000_000, using: &random))
        case 2:
            // Numbers no Lua number holds reach scripts as strings (docs/lua.md), which a copy
            // keeps as strings while a view returned unchanged keeps the number: only walked.
            let big = exotic ? ["123456789.123456789", "18446744073709551617"] : []
            return (["1.5", "-0.0", "1.0", "2.50", "1e2", "0.1", "-7"] + big).randomElement(using: &random)!
        case 3, 4, 5:
            return [
                #""plain""#, #""caf\u00e9""#, #""tab\tnew\nline""#, #""\ud83d\ude80 rocket""#, #""""#, #""q\"uote""#,
            ]
            .randomElement(using: &random)!
        case 6, 7:
            let count = Int.random(in: 0...4, using: &random)
            var keys: [String] = []
            for _ in 0..<count {
                let key = ["a", "b", "name", "caf\\u00e9", "x y", "1", "list"].randomElement(using: &random)!
                if !keys.contains(key) { keys.append(key) }
            }
            return "{"
                + keys.map { "\"\($0)\": " + value(&random, depth: depth + 1, exotic: exotic) }
                .joined(separator: ", ") + "}"
        default:
            let count = Int.random(in: 0...4, using: &random)
            return "["
                + (0..<count).map { _ in value(&random, depth: depth + 1, exotic: exotic) }
                .joined(separator: ", ") + "]"
        }
    }

    @Test("600 random values: a view reads as its copy does, and the same edits give the same value")
    func viewsAgreeWithTables() throws {
        var random = SeededGenerator(seed: 0x0717_0029)
        let fixture = try LuaFixture(
            ["P.lua": Self.script],
            entries: ["a": "P.walk", "b": "P.walkCopy"])
        defer { fixture.remove() }
        var edited = 0
        for round in 0..<600 {
            // The input is an object, so that the entries' "@self" hands the script a view.
            let text = #"{"v": \#(Self.value(&random)), "w": \#(Self.value(&random))}"#
            let (output, issues) = try fixture.map(json: text)
            #expect(issues.isEmpty, "\(text): \(issues)")
            guard case .object(let answers) = try JSONParser.parse(output) else { continue }
            #expect(answers["a"] != nil && answers["a"] == answers["b"], "round \(round): \(text)\n\(output)")
            // The same edits on the view and on a copy: the same value back (keys sorted: a
            // view keeps the payload's order, a table has none).
            let plain = #"{"v": \#(Self.value(&random, exotic: false)), "w": \#(Self.value(&random, exotic: false))}"#
            let seed = Int.random(in: 1..<1_000_000, using: &random)
            let editing = try LuaFixture(
                ["P.lua": Self.script], entries: ["a": "P.edit", "b": "P.editCopy"], userData: String(seed))
            defer { editing.remove() }
            let (result, problems) = try editing.map(json: plain)
            guard case .object(let results) = try JSONParser.parse(result) else { continue }
            if problems.isEmpty {
                #expect(
                    Self.canonical(results["a"]) == Self.canonical(results["b"]),
                    "round \(round) seed \(seed): \(plain)\n\(result)")
                edited += 1
            } else {
                // What one refuses (a hole an edit made), the other refuses too.
                #expect(problems.count == 2, "round \(round) seed \(seed): \(plain)\n\(problems)")
            }
        }
        #expect(edited > 400)
    }

    /// The value's JSON text with every object's keys sorted.
    static func canonical(_ value: JSONValue?) -> String {
        guard let value else { return "<none>" }
        func sorted(_ value: JSONValue) -> JSONValue {
            switch value {
            case .object(let object):
                .object(JSONObject(object.members.sorted { $0.key < $1.key }.map { ($0.key, sorted($0.value)) }))
            case .array(let elements): .array(elements.map(sorted))
            default: value
            }
        }
        return JSONWriter.string(sorted(value))
    }
}
