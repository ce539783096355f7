import CLuaFloor
import Foundation
import Mappings
import MappingsLua

// The cost of one transformer call, for a scalar and for a 10-field object: a Lua function
// through the sandboxed bridge, a Swift closure doing the same, and the bare Lua C-API floor
// (push, lua_pcall, read back) in the same run. Build with -c release:
//   swift run -c release --package-path Benchmarks lua-call-benchmark [iterations] [scalar|object]
// A value kind as second argument measures that value only, in one run (for callgrind).

let iterations = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 200_000
let only = CommandLine.arguments.dropFirst(2).first
let runs = only == nil ? 5 : 1

let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lua-bench-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }
try Data("return { same = function(v) return v end }".utf8).write(to: directory.appendingPathComponent("Bench.lua"))
let scripts = LuaScripts(directory: directory.path)
let luaTransformer = try scripts.transformer(className: "Bench", selector: "same")

/// The Swift closure the Lua call is compared with: it returns its value, as `Bench.same` does.
struct SameTransformer: Transformer {
    func transform(_ value: JSONValue, userData: JSONValue?) throws -> JSONValue { value }
}
let swiftTransformer = SameTransformer()

let keys = ["id", "name", "text", "lang", "count", "score", "url", "when", "flag", "kind"]
let object = JSONValue.object(
    JSONObject(keys.enumerated().map { index, key in (key, index % 2 == 1 ? .integer(Int64(index)) : .string(key)) }))
let scalar = JSONValue.integer(42)

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

func nanosecondsPerCall(_ transformer: any Transformer, _ value: JSONValue) -> Double {
    var checksum = 0
    let started = DispatchTime.now().uptimeNanoseconds
    for _ in 0..<iterations {
        if case .object(let result) = try! transformer.transform(value, userData: nil) { checksum &+= result.count }
    }
    let elapsed = DispatchTime.now().uptimeNanoseconds - started
    precondition(checksum >= 0)
    return Double(elapsed) / Double(iterations)
}

print("Lua transformer call cost, \(iterations) calls, median of \(runs) runs (ns per call)")
print("value        | Lua (sandbox) | Swift closure | C-API floor | Lua / floor | Lua / Swift")
for (name, value, isObject) in [("scalar", scalar, 0), ("10-field obj", object, 1)]
where only == nil || only == (isObject == 1 ? "object" : "scalar") {
    let luaTimes = (0..<runs).map { _ in nanosecondsPerCall(luaTransformer, value) }
    let swiftTimes = (0..<runs).map { _ in nanosecondsPerCall(swiftTransformer, value) }
    let floorTimes = (0..<runs).map { _ in lua_floor_ns_per_call(Int32(iterations), Int32(isObject)) }
    let (l, s, f) = (median(luaTimes), median(swiftTimes), median(floorTimes))
    let label = name.padding(toLength: 12, withPad: " ", startingAt: 0)
    print(label + String(format: " | %13.0f | %13.0f | %11.0f | %10.1fx | %10.1fx", l, s, f, l / f, l / max(s, 1)))
}
