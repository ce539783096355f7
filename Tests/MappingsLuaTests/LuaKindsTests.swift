import Foundation
import Mappings
import MappingsLua
import Testing

/// What a script's value becomes where the property's type decides: an empty table of no kind
/// takes the kind the property needs, and a `Decimal` entry's numbers reach the script as their
/// exact digits; in process and in worker processes alike.
@Suite("Lua values and the property's type")
struct LuaKindsTests {
    /// A catalog over scripts in a fresh directory: its models, its `$T` context, and the mapper.
    static func mapper(
        scripts files: [String: String], catalog text: String, isolation: LuaIsolation
    ) throws -> (Mapper, URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lua-kinds-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for (name, text) in files { try Data(text.utf8).write(to: directory.appendingPathComponent(name)) }
        let scripts = LuaScripts(
            directory: directory.path, limits: LuaFixture.testLimits, isolation: isolation, log: .standardError)
        var registry = TransformerRegistry()
        registry.add(scripts)
        let catalog = try Catalog.load(["t.mappings"], from: .memory(["t.mappings": text]), transformers: registry)
        return (Mapper(catalog: catalog), directory)
    }

    static let emptyScript = """
        local M = {}
        function M.nothing(v) local out = {} for _, x in ipairs(v) do if x == "keep" then out[#out + 1] = x end end return out end
        function M.marked(v) return json.object() end
        return M
        """

    static let emptyCatalog = """
        { "@models": { "T": { "tags": "[String]", "codes": "{String}", "byName": "[String: Int]", "raw": "JSON",
                              "inner": "I?", "objects": "[String]" }, "I": { "x": "String?" } },
          "$T": { "@class": "T",
                  "tags": { "@keyPath": "list", "@transformClass": "E", "@transformSelector": "nothing" },
                  "codes": { "@keyPath": "list", "@transformClass": "E", "@transformSelector": "nothing" },
                  "byName": { "@keyPath": "list", "@transformClass": "E", "@transformSelector": "nothing" },
                  "raw": { "@keyPath": "list", "@transformClass": "E", "@transformSelector": "nothing" },
                  "inner": { "@keyPath": "list", "@transformClass": "E", "@transformSelector": "nothing" },
                  "objects": { "@keyPath": "list", "@transformClass": "E", "@transformSelector": "marked" } } }
        """

    @Test(
        "an empty table a script leaves unmarked takes the property's kind; one marked json.object() stays an object",
        arguments: [LuaIsolation.inProcess, .process])
    func emptyTableTakesTheKind(_ isolation: LuaIsolation) throws {
        let (mapper, directory) = try Self.mapper(
            scripts: ["E.lua": Self.emptyScript], catalog: Self.emptyCatalog, isolation: isolation)
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try mapper.object(from: try JSONParser.parse(#"{"list": ["a", "b"]}"#), context: "$T")
        let output = JSONWriter.string(result.value)
        #expect(output.contains(#""tags":[]"#), "\(output)")
        #expect(output.contains(#""codes":[]"#), "\(output)")
        #expect(output.contains(#""byName":{}"#), "\(output)")
        #expect(output.contains(#""raw":{}"#), "\(output)")
        #expect(output.contains(#""inner":{"x":null}"#), "\(output)")
        // Marked as an object, it is one: a list property refuses it, as it refuses `{}` in a payload.
        #expect(result.issues.map(\.message) == ["expected [String], found object of 0 keys"], "\(result.issues)")
        // A payload's `{}` is an object still: the kind-less empty is a script's only.
        let payload = try mapper.object(from: try JSONParser.parse(#"{"list": {}}"#), context: "$T")
        #expect(payload.issues.contains { $0.message.contains("found object") })
    }

    static let decimalScript = """
        local M = {}
        function M.check(v)
          if type(v) ~= "string" then error("a " .. json.type(v) .. ", not the digits") end
          return v
        end
        function M.list(v)
          for _, x in ipairs(v) do if type(x) ~= "string" then error("an element is a " .. json.type(x)) end end
          return v
        end
        function M.cents(v) if math.type(v) ~= "integer" then error("expected an integer for an Int entry") end return v end
        function M.float(v) if math.type(v) ~= "float" then error("expected a float for a Double entry") end return v end
        return M
        """

    static let decimalCatalog = """
        { "@models": { "P": { "price": "Decimal", "prices": "[Decimal]", "ratio": "Double", "count": "Int" } },
          "$P": { "@class": "P",
                  "price": { "@keyPath": "price", "@transformClass": "D", "@transformSelector": "check",
                             "@reverseTransformSelector": "check" },
                  "prices": { "@keyPath": "prices", "@transformClass": "D", "@transformSelector": "list",
                              "@reverseTransformSelector": "list" },
                  "ratio": { "@keyPath": "ratio", "@transformClass": "D", "@transformSelector": "float",
                             "@reverseTransformSelector": "float" },
                  "count": { "@keyPath": "count", "@transformClass": "D", "@transformSelector": "cents",
                             "@reverseTransformSelector": "cents" } } }
        """

    @Test(
        "a Decimal entry's numbers reach the script as their exact digits, both ways; other types keep their kinds",
        arguments: [LuaIsolation.inProcess, .process])
    func decimalsAsDigits(_ isolation: LuaIsolation) throws {
        let (mapper, directory) = try Self.mapper(
            scripts: ["D.lua": Self.decimalScript], catalog: Self.decimalCatalog, isolation: isolation)
        defer { try? FileManager.default.removeItem(at: directory) }
        let text = #"{"price": 10.99, "prices": [0.1, 2.50, 123456789012345678901234.5], "ratio": 0.5, "count": 3}"#
        let result = try mapper.object(from: try JSONParser.parse(text), context: "$P")
        #expect(result.issues.isEmpty, "\(result.issues)")
        let output = JSONWriter.string(result.value)
        #expect(output == #"{"price":10.99,"prices":[0.1,2.50,123456789012345678901234.5],"ratio":0.5,"count":3}"#)
        let back = try mapper.payload(from: result.value, context: "$P")
        #expect(back.issues.isEmpty, "\(back.issues)")
        // Digits a script hands back as they came are the number they were.
        #expect(
            JSONWriter.string(back.value)
                == #"{"price":10.99,"prices":[0.1,2.50,123456789012345678901234.5],"ratio":0.5,"count":3}"#)
    }
}
