import Foundation
import MappingsTestSupport
import Testing

/// A value nested past what a script is given, through an identity transformer that reads it to
/// its deepest level: written exactly up to the limit, an issue naming it past, by the fast plan
/// and the general engine, in process and in worker processes alike.
@Suite("values nested to the Lua limit and past it, through a stream")
struct LuaDepthCommandTests {
    @Test("128 levels come back exactly, 129 are an issue naming the limit, in both engines and isolations")
    func depth() throws {
        let script = """
            local function copy(v)
                if type(v) ~= "table" and json.type(v) ~= "array" and json.type(v) ~= "object" then return v end
                local out = json.type(v) == "array" and json.array({}) or json.object({})
                for k, x in pairs(v) do out[k] = copy(x) end
                return out
            end
            return { same = function(v) return copy(v) end }
            """
        let context =
            #"{ "$D": { "v": { "@keyPath": "a", "@transformClass": "Id", "@transformSelector": "same", "@type": "JSON" } } }"#
        func nested(_ levels: Int) -> String {
            String(repeating: "[", count: levels) + "0" + String(repeating: "]", count: levels)
        }
        let input = [127, 128, 129, 200].map { #"{"a": \#(nested($0))}"# }.joined(separator: "\n") + "\n"
        let directory = try ToolRunner.directory(with: [
            "contexts/d.mappings": context, "scripts/Id.lua": script, "in.ndjson": input,
        ])
        defer { try? FileManager.default.removeItem(at: directory) }
        for isolation in ["none", "process"] {
            var outputs: [String] = []
            for engine in [[], ["--general-engine"]] {
                let result = try ToolRunner.run(
                    ["stream", "--context", "$D", "--lua-isolation", isolation, "--rejects", "rejects.ndjson"]
                        + engine + ["in.ndjson"], in: directory)
                #expect(result.status == 1, "\(result.stderr)")
                #expect(result.stdout == #"{"v":\#(nested(127))}"# + "\n" + #"{"v":\#(nested(128))}"# + "\n")
                let rejects = try String(
                    contentsOf: directory.appendingPathComponent("rejects.ndjson"), encoding: .utf8)
                let lines = rejects.split(separator: "\n")
                #expect(lines.count == 2, "\(rejects)")
                #expect(lines.allSatisfy { $0.contains("128 levels") }, "\(rejects)")
                outputs.append(result.stdout + rejects)
            }
            #expect(outputs[0] == outputs[1], "the plan and the general engine differ (\(isolation))")
        }
    }
}
