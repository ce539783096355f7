import Foundation
import Mappings
import MappingsLua
import MappingsTestSupport

/// The shipped contexts and scripts (paths from `Fixtures`), loaded as the Lua tests need them.
enum Shipped {
    static let root = Fixtures.root
    static let contexts = Fixtures.contexts
    static let scripts = Fixtures.scripts

    static func payload(_ name: String) throws -> JSONValue {
        try Fixtures.twitterPayload(name)
    }

    /// The shipped contexts with the Lua scripts, and `definitions` beside them.
    static func catalog(_ definitions: Definitions = Definitions(), paths: [String]? = nil) throws -> Catalog {
        var transformers = TransformerRegistry()
        transformers.add(LuaScripts(directory: scripts))
        return try Catalog.load(paths ?? [contexts], transformers: transformers, definitions: definitions)
    }
}
