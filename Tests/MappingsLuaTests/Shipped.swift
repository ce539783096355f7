import Foundation
import Mappings
import MappingsLua

/// The repository's root, its shipped contexts and scripts, and the Twitter example payloads.
enum Shipped {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let contexts = root.appendingPathComponent("contexts").path
    static let scripts = root.appendingPathComponent("scripts").path

    static func payload(_ name: String) throws -> JSONValue {
        let data = try Data(contentsOf: root.appendingPathComponent("Examples/twitter/\(name)"))
        return try JSONParser.parse([UInt8](data))
    }

    /// The shipped contexts with the Lua scripts, and `definitions` beside them.
    static func catalog(_ definitions: Definitions = Definitions(), paths: [String]? = nil) throws -> Catalog {
        var transformers = TransformerRegistry()
        transformers.add(LuaScripts(directory: scripts))
        return try Catalog.load(paths ?? [contexts], transformers: transformers, definitions: definitions)
    }
}
