import Foundation
import Mappings
import MappingsLua
import Testing

/// A scripts directory in a fresh temporary folder, with the catalog and mapper that use it.
struct LuaFixture {
    let directory: URL
    let scripts: LuaScripts
    let mapper: Mapper

    /// Writes `files` (name → Lua text) and loads a context `$X` whose entries call
    /// `Class.function` on the whole payload: `entries` maps a property to `Class.function`.
    init(
        _ files: [String: String], entries: [String: String], userData: String? = nil,
        limits: LuaLimits = LuaFixture.testLimits, isolation: LuaIsolation = .inProcess,
        log: LuaLog = .standardError
    ) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("lua-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for (name, text) in files {
            let file = directory.appendingPathComponent(name)
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: file)
        }
        scripts = LuaScripts(directory: directory.path, limits: limits, isolation: isolation, log: log)
        var registry = TransformerRegistry()
        registry.add(scripts)
        let rules = entries.sorted { $0.key < $1.key }.map { property, target in
            let parts = target.split(separator: ".", maxSplits: 1)
            let data = userData.map { #", "@transformUserData": \#($0)"# } ?? ""
            return
                #""\#(property)": { "@keyPath": "@self", "@optional": true, "@transformClass": "\#(parts[0])", "@transformSelector": "\#(parts[1])"\#(data) }"#
        }
        let text = "{ \"$X\": { \(rules.joined(separator: ", ")) } }"
        let catalog = try Catalog.load(["x.mappings"], from: .memory(["x.mappings": text]), transformers: registry)
        mapper = Mapper(catalog: catalog)
    }

    /// Limits small enough that every attack ends fast.
    static let testLimits = LuaLimits(memory: 16 << 20, instructions: 2_000_000, timeout: .milliseconds(500))

    /// Maps `input` and returns the output JSON and the issue messages.
    func map(_ input: JSONValue = .object(JSONObject())) throws -> (output: String, issues: [String]) {
        let result = try mapper.object(from: input, context: "$X")
        return (JSONWriter.string(result.value), result.issues.map(\.message))
    }

    /// Maps `input` from JSON text.
    func map(json: String) throws -> (output: String, issues: [String]) {
        try map(try JSONParser.parse(json))
    }

    func remove() {
        try? FileManager.default.removeItem(at: directory)
    }
}
