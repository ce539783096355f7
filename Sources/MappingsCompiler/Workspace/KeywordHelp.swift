/// A few lines on each keyword of the language, for hover and completion; `docs/language.md`
/// says it all, under the heading named by `section`.
package enum KeywordHelp {
    package struct Entry {
        /// What the keyword does, in a sentence or two (Markdown).
        package let summary: String
        /// The values it takes, when they are a fixed set.
        package let values: [String]
        /// The heading of docs/language.md that explains it.
        package let section: String
    }

    package static func entry(_ keyword: String) -> Entry? {
        if let entry = entries[keyword] { return entry }
        if keyword.hasPrefix("@when") || ["@debug", "@release", "@ios", "@iphone", "@ipad"].contains(keyword) {
            return Entry(
                summary:
                    "A selector: the members of its object apply only when the condition on the traits "
                    + "(`--trait KEY=VALUE`) holds, such as `\"@when apiVersion >= 2\"`. Selectors test traits, "
                    + "never the payload.",
                values: [], section: "Selectors")
        }
        return nil
    }

    /// Markdown for a hover over `keyword`.
    package static func markdown(_ keyword: String) -> String? {
        guard let entry = entry(keyword) else { return nil }
        var text = "**`\(keyword)`** — \(entry.summary)"
        if !entry.values.isEmpty {
            text += "\n\nValues: " + entry.values.map { "`\"\($0)\"`" }.joined(separator: ", ")
        }
        return text + "\n\n*docs/language.md: \(entry.section)*"
    }

    private static let entries: [String: Entry] = [
        "@import": Entry(
            summary:
                "Other `.mappings` files to load: a path or an array of paths, relative to this file "
                + "(`.mappings` added when the name has no extension). Each file loads once.",
            values: [], section: "@import"),
        "@models": Entry(
            summary:
                "Model declarations: each key a model name, each value an object of property types "
                + "(`\"String\"`, `\"[UserModel]?\"`), or an array of strings for an enum.",
            values: [], section: "@models"),
        "@tables": Entry(
            summary:
                "Lookup tables, each `{ \"file\": \"tables/countries.csv\", \"key\": \"code\" }` (CSV with a "
                + "header, or JSON lines; `\"columns\"` declares types), loaded with the contexts: what "
                + "`@lookup` and scripts' `tables` read.",
            values: [], section: "@tables: lookup tables"),
        "@luaPrelude": Entry(
            summary: "Lua that every piece of inline Lua of this file sees: local helpers, tables.",
            values: [], section: "@lua and @reverseLua: inline Lua"),
        "@lookup": Entry(
            summary:
                "The value is a key of a table of `@tables`: the entry takes that row's cell "
                + "(`\"countries.name\"`) or the whole row (`\"countries\"`); a key with no row is a missing value.",
            values: [], section: "@lookup: reading a lookup table"),
        "@class": Entry(
            summary: "The model a context (or an `@object`) builds; its entries map that model's properties.",
            values: [], section: "@class"),
        "@object": Entry(
            summary:
                "Maps the value as a nested object: `{ \"@mappings\": \"$Context\" }`, an inline context, or a "
                + "union's `@discriminator` and `@cases`.",
            values: [], section: "@object"),
        "@mappings": Entry(
            summary: "Inside `@object`: the context that maps the nested value, by name or written inline.",
            values: [], section: "@object"),
        "@inherits": Entry(
            summary:
                "Copies the members of another context (`\"$Base\"`, or `\"$Templates.user\"` for a member of "
                + "one); what this one writes overrides them.",
            values: [], section: "@inherits"),
        "@tests": Entry(
            summary:
                "Examples run by `mappings test` and `mappings check`: each an object with a `name`, an "
                + "`input` payload, and the `output` or `issues` expected.",
            values: [], section: "@tests"),
        "@keyStyle": Entry(
            summary: "Maps every property no entry names from the key derived from its name.",
            values: ["snake_case", "camelCase", "kebab-case", "same"], section: "@keyStyle: automatic entries"),
        "@unknownKeys": Entry(
            summary: "What a payload key that no entry of the context reads is.",
            values: ["ignore", "warn", "error"], section: "@unknownKeys"),
        "@conversions": Entry(
            summary:
                "Whether values convert leniently (`\"42\"` → 42) or only when they already have the "
                + "property's JSON type.",
            values: ["lenient", "strict"], section: "Conversions, strict or lenient"),
        "@filter": Entry(
            summary:
                "Lua that keeps a payload (any answer but `false`/`nil`) or drops it before mapping; it "
                + "sees the payload as `value`.",
            values: [], section: "@filter: keeping or dropping payloads"),
        "@keyPath": Entry(
            summary:
                "Where the entry reads in the payload: keys joined by `.` (`user.name`), `@self`, an index, "
                + "fallbacks with `|`; an object of key paths is a keyed selection.",
            values: [], section: "@keyPath"),
        "@optional": Entry(
            summary: "`true`: a missing value is no issue (the property keeps its value or takes `@defaultValue`).",
            values: [], section: "@optional"),
        "@defaultValue": Entry(
            summary:
                "The value a missing source value stands for; converted to the property's type when the file loads.",
            values: [], section: "@defaultValue"),
        "@transformClass": Entry(
            summary:
                "The script (`scripts/<name>.lua`) or Swift class of the transformer; with `@transformSelector`.",
            values: [], section: "@transformClass, @transformSelector, @transformUserData"),
        "@transformSelector": Entry(
            summary:
                "The transformer's function: the selector up to its first `:` names a function of the table "
                + "the script returns.",
            values: [], section: "@transformClass, @transformSelector, @transformUserData"),
        "@transformUserData": Entry(
            summary: "Any JSON handed to the transformer with each value.",
            values: [], section: "@transformClass, @transformSelector, @transformUserData"),
        "@reverseTransformSelector": Entry(
            summary:
                "The function of the same script that undoes the transformer when `serialize` writes the value back.",
            values: [], section: "@reverseTransformSelector"),
        "@clearContent": Entry(
            summary: "`true`: mapping into an existing collection empties it first.",
            values: [], section: "@clearContent and @insertContentAtBegin"),
        "@insertContentAtBegin": Entry(
            summary: "`true`: new elements go to the front of an existing array, in source order.",
            values: [], section: "@clearContent and @insertContentAtBegin"),
        "@type": Entry(
            summary: "In a context without `@class`: the type the entry's value converts to, in the model type syntax.",
            values: [], section: "@type"),
        "@dateFormat": Entry(
            summary: "How a `Date` is read and written: a pattern (`yyyy-MM-dd`), `iso8601`, or Unix time.",
            values: [], section: "@dateFormat"),
        "@dateRange": Entry(
            summary:
                "The first and last dates a `Date` may be (`[\"1990-01-01\", \"2100-01-01\"]`): outside is an error.",
            values: [], section: "@dateFormat"),
        "@valueMap": Entry(
            summary: "Translates source values before they convert: an object from payload value to property value.",
            values: [], section: "@valueMap and @reverseValue"),
        "@reverseValue": Entry(
            summary: "The payload value `serialize` writes for a property value that several `@valueMap` keys give.",
            values: [], section: "@valueMap and @reverseValue"),
        "@identity": Entry(
            summary:
                "The properties that identify an element of a collection of models: mapping into it updates "
                + "the element with the same identity instead of appending. On a context: what identifies its "
                + "record, the key a database destination upserts by.",
            values: [], section: "@identity: upsert and sync"),
        "@onElementError": Entry(
            summary: "What a failing element of a collection does.",
            values: ["keep", "skip", "fail"], section: "@onElementError and @onError"),
        "@onError": Entry(
            summary: "What a failing optional property does.",
            values: ["fail", "skip"], section: "@onElementError and @onError"),
        "@null": Entry(
            summary: "Whether an explicit `null` counts as missing or clears the property.",
            values: ["missing", "clear"], section: "@null: clearing with null"),
        "@reverseFanOut": Entry(
            summary:
                "How `serialize` writes a collection whose key path ends in two keys: `true` as an array of "
                + "objects, `false` as nested objects.",
            values: [], section: "@reverseFanOut"),
        "@reverse": Entry(
            summary: "`false`: a forward-only entry, which `serialize` leaves out.",
            values: [], section: "@reverse: forward-only entries"),
        "@lua": Entry(
            summary:
                "Inline Lua computing the value from `value` (and `userData`): an expression or statements ending in `return`.",
            values: [], section: "@lua and @reverseLua: inline Lua"),
        "@reverseLua": Entry(
            summary: "Inline Lua that undoes `@lua` for `serialize`.",
            values: [], section: "@lua and @reverseLua: inline Lua"),
        "@discriminator": Entry(
            summary: "In a union's `@object`: the key path inside each object whose value chooses the case.",
            values: [], section: "Unions: polymorphic objects"),
        "@cases": Entry(
            summary: "In a union's `@object`: from each discriminator value to the context that maps it.",
            values: [], section: "Unions: polymorphic objects"),
        "@otherwise": Entry(
            summary: "In a union's `@object`: the context for a discriminator value no case names.",
            values: [], section: "Unions: polymorphic objects"),
        "@self": Entry(
            summary: "In a key path: the whole current source value.", values: [], section: "Key paths"),
        "@first": Entry(
            summary: "In a key path: the first element of an array.", values: [], section: "Key paths"),
        "@last": Entry(
            summary: "In a key path: the last element of an array.", values: [], section: "Key paths"),
        "@count": Entry(
            summary: "In a key path: the number of elements of an array.", values: [], section: "Key paths"),
    ]
}
