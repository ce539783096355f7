import Foundation
import Mappings
import MappingsLua
import Testing

/// Every way a call across the Lua bridge can fail gives an issue with a reason: never an empty
/// one, never a raw control or invisible character (a script's message can hold any), one line.
@Suite("the Lua bridge's failures, each with a reason")
struct BridgeFailureTests {
    /// A function per failure path, and what the issue's message must contain.
    static let failures: [(function: String, says: String)] = [
        ("empty_error", "error called with nil"),
        ("nil_error", "error called with nil"),
        ("table_error", "error object is a table value"),
        ("nil_and_empty", "the script gave no reason"),
        ("nil_and_table", "refused without a message (its second value is a table, not a string)"),
        ("escape_error", #"\u001b[31mRED\nsecond line\u202e"#),
        ("returns_function", "returned a value that is not JSON"),
        ("returns_cycle", "returned a value that is not JSON"),
        ("returns_nan", "returned a value that is not JSON"),
        ("returns_bad_utf8", "returned a value that is not JSON"),
        ("returns_deep", "returned a value that is not JSON"),
        ("loops", "ran out of its instruction budget"),
        ("eats_memory", "ran out of memory"),
        ("reads_deep", "the value nests deeper than 128 levels, more than a script is given"),
    ]

    static let script = """
        local function deep(n) local t = {} local c = t for i = 1, n do c.x = {} c = c.x end return t end
        return {
            empty_error = function() error() end,
            nil_error = function() error(nil) end,
            table_error = function() error({}) end,
            nil_and_empty = function() return nil, "" end,
            nil_and_table = function() return nil, {} end,
            escape_error = function() error("\\27[31mRED\\nsecond line\\u{202E}", 0) end,
            returns_function = function() return print end,
            returns_cycle = function() local t = {} t.t = t return t end,
            returns_nan = function() return 0/0 end,
            returns_bad_utf8 = function() return "\\255" end,
            returns_deep = function() return deep(200) end,
            loops = function() while true do end end,
            eats_memory = function() local t = {} for i = 1, 1e8 do t[i] = ("x"):rep(64) .. i end return t end,
            reads_deep = function(v) local c = v for i = 1, 200 do c = c.x end return 1 end,
        }
        """

    /// A payload nested past what a script is given (the parser takes up to 512 levels).
    static let deepPayload: JSONValue = {
        var value: JSONValue = 1
        for _ in 0..<200 { value = .object(JSONObject([("x", value)])) }
        return value
    }()

    @Test("no failure of the bridge has an empty or unprintable reason", arguments: [LuaIsolation.inProcess, .process])
    func everyFailure(isolation: LuaIsolation) throws {
        let limits = LuaLimits(memory: 8 << 20, instructions: 2_000_000, timeout: .milliseconds(800))
        for (function, says) in Self.failures {
            let fixture = try LuaFixture(
                ["F.lua": Self.script], entries: ["v": "F.\(function)"], limits: limits, isolation: isolation)
            defer { fixture.remove() }
            let (_, issues) = try fixture.map(function == "reads_deep" ? Self.deepPayload : .object(JSONObject()))
            #expect(issues.count == 1, "\(function): \(issues)")
            guard let message = issues.first else { continue }
            let reason = message.components(separatedBy: " failed: ").dropFirst().joined(separator: " failed: ")
            // After "F.lua:N: " there is a reason.
            let afterPlace = reason.split(separator: ": ", maxSplits: 1).dropFirst().first ?? ""
            #expect(!afterPlace.trimmingCharacters(in: .whitespaces).isEmpty, "\(function): \(message)")
            #expect(!message.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, "\(function): \(message)")
            #expect(!message.unicodeScalars.contains { $0.properties.generalCategory == .format }, "\(function)")
            #expect(message.contains(says), "\(function): \(message)")
        }
    }
}
