import Foundation
import MappingsTestSupport
import Testing

/// Without `--scripts`, the tool finds a project's scripts where `mappings init` puts them and
/// the Python module looks: the `scripts` folder beside the contexts' folder.
@Suite("scripts beside the contexts' folder")
struct ScriptsBesideContextsTests {
    static let project: [String: String] = [
        "shop/contexts/models.mappings": #"{ "@models": { "P": { "name": "String" } } }"#,
        "shop/contexts/p.mappings": #"""
        { "$P": { "@class": "P",
            "name": { "@keyPath": "n", "@transformClass": "Text", "@transformSelector": "upper" } } }
        """#,
        "shop/scripts/Text.lua": "return { upper = function(value) return string.upper(value) end }\n",
    ]

    @Test(
        "map finds PROJECT/scripts for --mappings PROJECT/contexts, a file in it, or . inside it",
        arguments: [
            ([], ["shop/contexts"]), ([], ["shop/contexts/p.mappings", "shop/contexts/models.mappings"]),
            (["shop", "contexts"], ["."]),
        ])
    func found(folder: [String], mappings: [String]) throws {
        let root = try ToolRunner.directory(with: Self.project)
        defer { try? FileManager.default.removeItem(at: root) }
        let here = folder.reduce(root) { $0.appendingPathComponent($1) }
        let arguments = ["map", "--context", "$P"] + mappings.flatMap { ["--mappings", $0] } + ["-"]
        let result = try ToolRunner.run(arguments, in: here, input: #"{"n": "ann"}"#)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == #"{"name":"ANN"}"# + "\n")
    }

    @Test("--scripts still names the folder, and without a folder beside the contexts, scripts where you stand")
    func explicitOrHere() throws {
        var files = Self.project
        files["shop/contexts/p.mappings"] = files["shop/contexts/p.mappings"]!.replacingOccurrences(
            of: "Text", with: "Other")
        files["elsewhere/Other.lua"] = "return { upper = function(value) return value .. '!' end }\n"
        files["scripts/Other.lua"] = "return { upper = function(value) return value .. '?' end }\n"
        let root = try ToolRunner.directory(with: files)
        defer { try? FileManager.default.removeItem(at: root) }
        let named = try ToolRunner.run(
            ["map", "--context", "$P", "--mappings", "shop/contexts", "--scripts", "elsewhere", "-"], in: root,
            input: #"{"n": "ann"}"#)
        #expect(named.stdout == #"{"name":"ann!"}"# + "\n", "\(named.stderr)")
        try FileManager.default.removeItem(at: root.appendingPathComponent("shop/scripts"))
        let here = try ToolRunner.run(
            ["map", "--context", "$P", "--mappings", "shop/contexts", "-"], in: root, input: #"{"n": "ann"}"#)
        #expect(here.stdout == #"{"name":"ann?"}"# + "\n", "\(here.stderr)")
    }
}
