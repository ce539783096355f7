import MappingsJSON
import MappingsModel

/// The `@` keywords of the language, by where they may stand.
package enum Keywords {
    package static let topLevel = ["@import", "@models", "@tables", "@luaPrelude"]
    /// Keywords of a context (besides its entries).
    package static let context = [
        "@class", "@object", "@inherits", "@tests", "@keyStyle", "@unknownKeys", "@conversions", "@filter",
        "@identity",
    ]
    /// Keywords of a long-form entry.
    package static let entry = [
        "@keyPath", "@optional", "@defaultValue", "@transformClass", "@transformSelector", "@transformUserData",
        "@reverseTransformSelector", "@object", "@clearContent", "@insertContentAtBegin", "@type", "@dateFormat",
        "@dateRange", "@inherits", "@valueMap", "@reverseValue", "@identity", "@onElementError", "@onError", "@null",
        "@reverseFanOut", "@reverse", "@lua", "@reverseLua", "@lookup",
    ]
    /// Keywords of an `@object`.
    package static let object = ["@class", "@mappings", "@inherits"]
    /// Keywords of an `@object` that chooses a union's member.
    package static let union = ["@discriminator", "@cases", "@otherwise"]
    /// Every keyword, for suggestions where a keyword stands in the wrong place.
    package static let all = Set(topLevel + context + entry + object + union + ["@self", "@first", "@last", "@count"])
}
