import Foundation
import Mappings
import MappingsLua
import Testing

/// Scripts compile when the catalog loads: every problem is a load-time diagnostic that
/// names the script line and the entry that asked for it.
@Suite("loading Lua scripts")
struct ScriptLoadingTests {
    /// The rendered diagnostics of loading `$X` (entries `a` and `b` call `S.f`) with these scripts.
    private func failure(_ files: [String: String], selector: String = "f") throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lua-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for (name, text) in files { try Data(text.utf8).write(to: directory.appendingPathComponent(name)) }
        var registry = TransformerRegistry()
        registry.add(LuaScripts(directory: directory.path, limits: LuaLimits(instructions: 100_000)))
        let text = """
            { "$X": {
                "a": { "@keyPath": "a", "@transformClass": "S", "@transformSelector": "\(selector):" },
                "b": { "@keyPath": "b", "@transformClass": "S", "@transformSelector": "\(selector):" }
            } }
            """
        do {
            _ = try Catalog.load(["x.mappings"], from: .memory(["x.mappings": text]), transformers: registry)
            Issue.record("the load succeeded")
            return ""
        } catch {
            return error.description.replacingOccurrences(of: directory.path, with: "scripts")
        }
    }

    @Test("a syntax error points at the script line, with a note for each entry that asked")
    func syntaxError() throws {
        #expect(
            try failure(["S.lua": "local M = {}\nfunction M.f(v)\n  return v +\nend\nreturn M\n"]) == """
                error: scripts/S.lua does not load: unexpected symbol near 'end'
                 --> scripts/S.lua:4:1
                  |
                4 | end
                  | ^^^
                  = note: asked for by this entry
                 --> x.mappings:2:5
                  |
                2 |     "a": { "@keyPath": "a", "@transformClass": "S", "@transformSelector": "f:" },
                  |     ^^^
                  = note: asked for by this entry
                 --> x.mappings:3:5
                  |
                3 |     "b": { "@keyPath": "b", "@transformClass": "S", "@transformSelector": "f:" }
                  |     ^^^
                """)
    }

    @Test("a missing function suggests the closest one")
    func missingFunction() throws {
        let text = try failure(["S.lua": "return { upper = function(v) return v end }"], selector: "uper")
        #expect(text.hasPrefix(#"error: scripts/S.lua has no function "uper" (for "uper:")"#))
        #expect(text.contains(#"= help: did you mean "upper"?"#))
    }

    @Test("a missing script names the path it looked for")
    func missingScript() throws {
        let text = try failure(["Other.lua": "return {}"])
        #expect(
            text.hasPrefix(
                #"error: no transformer "S.f": no Swift closure is registered for it, and there is no scripts/S.lua"#))
        #expect(text.contains(#"= help: create scripts/S.lua returning a table with a function "f""#))
    }

    @Test(
        "scripts that fail while loading are load-time errors",
        arguments: [
            ("return 5", "returns a number, not a table of functions"),
            ("error('not today')", "does not load: not today"),
            ("while true do end", "ran out of its instruction budget while loading"),
            ("\u{1B}Lua\u{54}\u{00}", "attempt to load a binary chunk"),
            (
                "return " + String(repeating: "(", count: 300) + "1" + String(repeating: ")", count: 300),
                "does not load"
            ),
            ("local x = require('missing')", "module 'missing' not found in the scripts directory"),
            ("return setmetatable({}, {__gc = function() end})", "__gc is not allowed"),
        ])
    func loadFailures(script: String, expected: String) throws {
        let text = try failure(["S.lua": script])
        #expect(text.contains(expected), "\(text)")
        #expect(text.contains("x.mappings:2:5"))
    }

    @Test("a Swift closure registered for the same class and selector wins over the script")
    func swiftWins() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lua-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data("return { f = function() return 'lua' end, g = function() return 'lua' end }".utf8).write(
            to: directory.appendingPathComponent("S.lua"))
        var registry = TransformerRegistry()
        registry.register(className: "S", selector: "f:") { _, _ in .string("swift") }
        registry.add(LuaScripts(directory: directory.path))
        let text = """
            { "$X": { "a": { "@keyPath": "@self", "@transformClass": "S", "@transformSelector": "f:" },
                      "b": { "@keyPath": "@self", "@transformClass": "S", "@transformSelector": "g:" } } }
            """
        let catalog = try Catalog.load(["x.mappings"], from: .memory(["x.mappings": text]), transformers: registry)
        let result = try Mapper(catalog: catalog).object(from: .bool(true), context: "$X")
        #expect(JSONWriter.string(result.value) == #"{"a":"swift","b":"lua"}"#)
    }

    @Test("a scripts directory that is a symbolic link to a folder is read through the link")
    func linkedDirectory() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lua-\(UUID().uuidString)")
        let link = FileManager.default.temporaryDirectory.appendingPathComponent("lua-link-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: folder)
        defer {
            try? FileManager.default.removeItem(at: link)
            try? FileManager.default.removeItem(at: folder)
        }
        try Data("return { up = function(v) return string.upper(v) end }".utf8).write(
            to: folder.appendingPathComponent("Text.lua"))
        let scripts = LuaScripts(directory: link.path)
        #expect(scripts.sources.keys.sorted() == [link.path + "/Text.lua"])
        let upper = try scripts.transformer(className: "Text", selector: "up")
        #expect(try upper.transform("a", userData: nil) == "A")
    }
}
