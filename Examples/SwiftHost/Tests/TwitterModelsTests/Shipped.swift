import Foundation
import Mappings
import MappingsLua

/// The repository's shipped contexts and scripts, and the Twitter example payloads, found
/// from this file (four folders below the repository's root).
enum Shipped {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let contexts = root.appendingPathComponent("contexts").path

    static func payload(_ name: String) throws -> JSONValue {
        try JSONValue(parsing: [UInt8](try Data(contentsOf: root.appendingPathComponent("Examples/twitter/\(name)"))))
    }

    /// The shipped contexts (or `paths`) with the shipped Lua scripts, and `definitions` beside them.
    static func catalog(_ definitions: Definitions = Definitions(), paths: [String]? = nil) throws -> Catalog {
        var transformers = TransformerRegistry()
        transformers.add(LuaScripts(directory: root.appendingPathComponent("scripts").path))
        return try Catalog.load(paths ?? [contexts], transformers: transformers, definitions: definitions)
    }
}
