public import MappingsJSON
import MappingsModel

/// The entries and tests of a context declared in Swift: what a context object of a
/// `.mappings` file says, one call per entry (AppCoreKit's `setKeyPath:fromKeyPath:…`).
///
/// ```swift
/// definitions.context("$Tweet", class: "TweetModel") { tweet in
///     tweet.map("identifier", from: "id_str")
///     tweet.map("user", from: "user", object: .context("$User"))
///     tweet.map("createdAt", from: "created_at", optional: true, dateFormat: "EEE MMM dd HH:mm:ss Z yyyy")
///     tweet.map("retweets", from: "retweet_count", defaultValue: 0)
///     tweet.map("coordinates", from: "coordinates", optional: true,
///               transform: .closure { value, _ in value })
/// }
/// ```
/// Every call records the Swift file and line it is written on: a load-time problem with the
/// entry (an unknown property, a default that cannot convert) is reported there.
public struct ContextBuilder {
    private var members: [SyntaxMember] = []
    private(set) var closures: [(reference: TransformerReference, transformer: any Transformer)] = []
    private(set) var sourcePaths: [String: String] = [:]
    private var tests: [SyntaxNode] = []
    private let location: SourceLocation

    init(modelName: String?, inherits: [String], location: SourceLocation) {
        self.location = location
        if let modelName {
            members.append(
                SyntaxMember(key: "@class", keyLocation: location, value: SyntaxNode(.string(modelName), at: location)))
        }
        if !inherits.isEmpty {
            let list = inherits.map { SyntaxNode(.string($0), at: location) }
            members.append(
                SyntaxMember(key: "@inherits", keyLocation: location, value: SyntaxNode(.array(list), at: location)))
        }
    }

    /// The context as the loader reads it.
    var node: SyntaxNode {
        var all = members
        if !tests.isEmpty {
            all.append(
                SyntaxMember(key: "@tests", keyLocation: location, value: SyntaxNode(.array(tests), at: location)))
        }
        return SyntaxNode(.object(all), at: location)
    }

    /// Maps every property of the context's model that no `map` call names from the key
    /// `style` derives from its name (`"@keyStyle"`): `imageUrl` from `image_url` in
    /// `.snakeCase`, required unless its type is optional, a nested model through its
    /// `$<Model>` context when there is one.
    ///
    /// ```swift
    /// definitions.context("$User", class: "UserModel") { user in
    ///     user.keyStyle(.snakeCase)                        // "image_url" → imageUrl, …
    ///     user.map("name", from: "screen_name")            // an entry written out wins
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - style: how a property's name becomes its payload key.
    ///   - fileID: where the call is written, for diagnostics; left to its default.
    ///   - filePath: the same file's full path, to show its line in diagnostics; left to its default.
    ///   - line: the call's line, for diagnostics; left to its default.
    public mutating func keyStyle(
        _ style: KeyStyle, fileID: String = #fileID, filePath: String = #filePath, line: Int = #line
    ) {
        let at = SourceLocation(file: fileID, line: line, column: 1)
        sourcePaths[fileID] = filePath
        members.removeAll { $0.key == "@keyStyle" }
        members.append(
            SyntaxMember(key: "@keyStyle", keyLocation: at, value: SyntaxNode(.string(style.rawValue), at: at)))
    }

    /// Keeps or drops each payload this context maps (`"@filter"`): Lua of `value` (the payload)
    /// that answers `false` or `nil` to drop it. A dropped record is neither written nor
    /// rejected (`MappingResult.filtered`); a dropped element of a collection is left out with
    /// an `info` issue. Needs `LuaScripts` in the registry.
    ///
    /// - Parameters:
    ///   - code: a Lua expression (`"not value.draft"`) or statements that end in `return`.
    ///   - fileID: where the call is written, for diagnostics; left to its default.
    ///   - filePath: the same file's full path, to show its line in diagnostics; left to its default.
    ///   - line: the call's line, for diagnostics; left to its default.
    public mutating func filter(
        _ code: String, fileID: String = #fileID, filePath: String = #filePath, line: Int = #line
    ) {
        let at = SourceLocation(file: fileID, line: line, column: 1)
        sourcePaths[fileID] = filePath
        members.removeAll { $0.key == "@filter" }
        members.append(SyntaxMember(key: "@filter", keyLocation: at, value: SyntaxNode(.string(code), at: at)))
    }

    /// Converts this context's values only from their own JSON kind (`true`), or as the
    /// conversion table says (`false`): `"@conversions": "strict"` or `"lenient"`. Contexts it
    /// maps nested objects with inherit it unless they say otherwise.
    ///
    /// - Parameters:
    ///   - strict: strict (`true`) or lenient (`false`).
    ///   - fileID: where the call is written, for diagnostics; left to its default.
    ///   - filePath: the same file's full path, to show its line in diagnostics; left to its default.
    ///   - line: the call's line, for diagnostics; left to its default.
    public mutating func strictConversions(
        _ strict: Bool = true, fileID: String = #fileID, filePath: String = #filePath, line: Int = #line
    ) {
        let at = SourceLocation(file: fileID, line: line, column: 1)
        sourcePaths[fileID] = filePath
        members.removeAll { $0.key == "@conversions" }
        members.append(
            SyntaxMember(
                key: "@conversions", keyLocation: at, value: SyntaxNode(.string(strict ? "strict" : "lenient"), at: at))
        )
    }

    /// Maps the property `property` (a dotted target path) from the payload's `keyPath`.
    ///
    /// - Parameters:
    ///   - property: the target property, a dotted path for a nested model's property.
    ///   - keyPath: the source key path (`user.name`, `entities.hashtags.text`, `@first`…);
    ///     `"@self"` is the whole current payload.
    ///   - fallbacks: key paths tried in order after `keyPath` when it is missing or null (written
    ///     `"@keyPath": [keyPath, fallbacks…]` in a file); serialize still writes to `keyPath`.
    ///   - optional: a missing value is not an issue (`@optional`).
    ///   - defaultValue: the value to use when the source is missing or null (`@defaultValue`);
    ///     converted like a payload value, and implies `optional`.
    ///   - type: the type to convert to in a context without a model (`@type`), such as `"Date"`.
    ///   - dateFormat: the date pattern of the source (`@dateFormat`).
    ///   - transform: a transformer applied before the conversion.
    ///   - object: how to build a nested object, or each element of a collection (`@object`).
    ///   - clearContent: empty the collection before adding (`@clearContent`).
    ///   - insertContentAtBegin: add at the front, in source order (`@insertContentAtBegin`).
    ///   - valueMap: source values translated before conversion (`@valueMap`), keyed by the
    ///     source value's text (`"A"`, `"1"`, `"true"`); values no key matches pass through.
    ///   - reverseValue: for a mapped value two keys map to, the key serialize writes back
    ///     (`@reverseValue`), such as `["active": "A"]`.
    ///   - identity: how the elements of a collection built by `object` are matched with those
    ///     it already holds when populating an existing object (`@identity`): updated in place,
    ///     added, and with `clearContent` the others removed.
    ///   - onElementError: what an element that fails does to its collection (`@onElementError`):
    ///     `"keep"` (the default), `"skip"` (left out, its issues warnings) or `"fail"`.
    ///   - onError: `"default"` uses `defaultValue` in place of a present value that fails its
    ///     conversion or transformer, as a warning (`@onError`); `"fail"` is the default.
    ///   - null: `"clear"` makes an explicit JSON `null` set the property to nil (`@null`);
    ///     `"missing"` (the default) treats it as a missing value.
    ///   - reverseFanOut: how serialize writes a collection read through a key path of two keys
    ///     or more (`@reverseFanOut`): `true` as an array of objects at the key before the last
    ///     (`labels.name` → `{"labels": [{"name": …}, …]}`), `false` as nested objects; `nil`
    ///     (the default) fans out collections of single values and nests the others.
    ///   - reverse: `false` maps the entry forward only (`"@reverse": false`): serialize leaves it
    ///     out without an issue, and it needs no reverse transformer nor a one-to-one `valueMap`.
    ///   - lua: inline Lua applied before the conversion (`@lua`): an expression of `value`
    ///     (`"value:lower()"`) or statements that end in `return`; it sees `value` (a host's
    ///     code has no file, so no `@luaPrelude`, and its `userData` is nil). Needs `LuaScripts`
    ///     in the registry; not beside `transform`.
    ///   - reverseLua: the inverse of `lua`, for serialize (`@reverseLua`).
    ///   - selecting: a keyed selection (`"@keyPath": { "amount": "amount", … }`): the value is an
    ///     object of these keys, each the value at its key path (null where there is none), for
    ///     `lua` or `transform`; it takes the place of `keyPath`, which stays at its default.
    ///   - fileID: where the call is written, for diagnostics; left to its default.
    ///   - filePath: the same file's full path, to show its line in diagnostics; left to its default.
    ///   - line: the call's line, for diagnostics; left to its default.
    public mutating func map(
        _ property: String, from keyPath: String = "@self", fallbacks: [String] = [], optional: Bool = false,
        defaultValue: JSONValue? = nil, type: String? = nil, dateFormat: String? = nil,
        transform: Transform? = nil, object: NestedObject? = nil, clearContent: Bool = false,
        insertContentAtBegin: Bool = false,
        valueMap: [String: JSONValue]? = nil, reverseValue: [String: String]? = nil,
        identity: ElementIdentity? = nil, onElementError: String? = nil, onError: String? = nil, null: String? = nil,
        reverseFanOut: Bool? = nil, reverse: Bool = true, lua: String? = nil, reverseLua: String? = nil,
        selecting: KeyValuePairs<String, String> = [:],
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line
    ) {
        let at = SourceLocation(file: fileID, line: line, column: 1)
        sourcePaths[fileID] = filePath
        func string(_ text: String) -> SyntaxNode { SyntaxNode(.string(text), at: at) }
        var options: [(String, SyntaxNode)] = []
        if !fallbacks.isEmpty {
            options.append(("@keyPath", SyntaxNode(.array(([keyPath] + fallbacks).map(string)), at: at)))
        } else if keyPath != "@self" || (object == nil && selecting.isEmpty) {
            options.append(("@keyPath", string(keyPath)))
        }
        if !selecting.isEmpty {
            let selection = selecting.map { SyntaxMember(key: $0.key, keyLocation: at, value: string($0.value)) }
            options.append(("@keyPath", SyntaxNode(.object(selection), at: at)))
        }
        if optional { options.append(("@optional", SyntaxNode(.bool(true), at: at))) }
        if let defaultValue { options.append(("@defaultValue", SyntaxNode(json: defaultValue, at: at))) }
        if let type { options.append(("@type", string(type))) }
        if let dateFormat { options.append(("@dateFormat", string(dateFormat))) }
        if let transform { options += transformOptions(transform, fileID: fileID, line: line, at: at) }
        if let lua { options.append(("@lua", string(lua))) }
        if let reverseLua { options.append(("@reverseLua", string(reverseLua))) }
        if let object { options.append(("@object", objectNode(object, at: at))) }
        if clearContent { options.append(("@clearContent", SyntaxNode(.bool(true), at: at))) }
        if insertContentAtBegin { options.append(("@insertContentAtBegin", SyntaxNode(.bool(true), at: at))) }
        if let reverseFanOut { options.append(("@reverseFanOut", SyntaxNode(.bool(reverseFanOut), at: at))) }
        if !reverse { options.append(("@reverse", SyntaxNode(.bool(false), at: at))) }
        if let valueMap {
            let pairs = valueMap.sorted { $0.key < $1.key }.map { ($0.key, SyntaxNode(json: $0.value, at: at)) }
            options.append(("@valueMap", Self.object(pairs, at: at)))
        }
        if let reverseValue {
            let pairs = reverseValue.sorted { $0.key < $1.key }.map { ($0.key, string($0.value)) }
            options.append(("@reverseValue", Self.object(pairs, at: at)))
        }
        if let identity {
            options.append(
                (
                    "@identity",
                    identity.names.count == 1
                        ? string(identity.names[0]) : .init(.array(identity.names.map(string)), at: at)
                ))
        }
        for (keyword, policy) in [("@onElementError", onElementError), ("@onError", onError), ("@null", null)] {
            if let policy { options.append((keyword, string(policy))) }
        }
        let value: SyntaxNode
        if options.count == 1, options[0].0 == "@keyPath", fallbacks.isEmpty {
            value = options[0].1
        } else {
            value = Self.object(options, at: at)
        }
        members.append(SyntaxMember(key: property, keyLocation: at, value: value))
    }

    /// A transformer's options: its class and selector (a closure registered under a selector of
    /// its own), user data, and the reverse selector.
    private mutating func transformOptions(
        _ transform: Transform, fileID: String, line: Int, at: SourceLocation
    ) -> [(String, SyntaxNode)] {
        func string(_ text: String) -> SyntaxNode { SyntaxNode(.string(text), at: at) }
        var options: [(String, SyntaxNode)] = []
        let reference: TransformerReference
        switch transform.kind {
        case .named(let className, let selector):
            reference = TransformerReference(className: className, selector: selector, userData: nil)
        case .closure(let forward, let reverse):
            let selector = "\(fileID)#\(line)#\(closures.count)"
            reference = TransformerReference(className: Transform.closureClass, selector: selector, userData: nil)
            closures.append((reference, forward))
            if let reverse {
                closures.append(
                    (
                        TransformerReference(
                            className: Transform.closureClass, selector: selector + "#reverse", userData: nil),
                        reverse
                    ))
            }
        }
        options.append(("@transformClass", string(reference.className)))
        options.append(("@transformSelector", string(reference.selector)))
        if let userData = transform.userData {
            options.append(("@transformUserData", SyntaxNode(json: userData, at: at)))
        }
        switch transform.kind {
        case .named(_, _):
            if let reverse = transform.reverseSelector {
                options.append(("@reverseTransformSelector", string(reverse)))
            }
        case .closure(_, let reverse):
            if reverse != nil {
                options.append(("@reverseTransformSelector", string(reference.selector + "#reverse")))
            }
        }
        return options
    }

    /// An `@object` entry's object: its class and its context, inline builder, or union.
    private mutating func objectNode(_ object: NestedObject, at: SourceLocation) -> SyntaxNode {
        func string(_ text: String) -> SyntaxNode { SyntaxNode(.string(text), at: at) }
        var objectMembers: [(String, SyntaxNode)] = []
        if let className = object.className { objectMembers.append(("@class", string(className))) }
        switch object.kind {
        case .context(let identifier): objectMembers.append(("@mappings", string(identifier)))
        case .inline(let builder):
            closures += builder.closures
            for (file, path) in builder.sourcePaths { sourcePaths[file] = path }
            objectMembers.append(("@mappings", builder.node))
        case .model: break
        case .union(let discriminator, let cases, let otherwise):
            objectMembers.append(("@discriminator", string(discriminator)))
            objectMembers.append(("@cases", Self.object(cases.map { ($0.0, string($0.1)) }, at: at)))
            if let otherwise { objectMembers.append(("@otherwise", string(otherwise))) }
        }
        return Self.object(objectMembers, at: at)
    }

    /// Says what mapping does with payload keys, at this context's level, that no entry reads
    /// (`"@unknownKeys"` in a file): `"ignore"` (the default), `"warn"` (a warning per key; the
    /// object is still good) or `"error"` (an error per key). Another value is a load-time error
    /// at this call, with a suggestion.
    ///
    /// ```swift
    /// user.unknownKeys("warn")   // {"name": "Ann", "nickname": "A"} → $.nickname: warning: unknown key …
    /// ```
    /// - Parameters:
    ///   - policy: `"ignore"`, `"warn"` or `"error"`.
    ///   - fileID: where the call is written, for diagnostics and the issues; left to its default.
    ///   - filePath: the same file's full path, to show its line in diagnostics; left to its default.
    ///   - line: the call's line, for diagnostics and the issues; left to its default.
    public mutating func unknownKeys(
        _ policy: String, fileID: String = #fileID, filePath: String = #filePath, line: Int = #line
    ) {
        let at = SourceLocation(file: fileID, line: line, column: 1)
        sourcePaths[fileID] = filePath
        members.removeAll { $0.key == "@unknownKeys" }
        members.append(SyntaxMember(key: "@unknownKeys", keyLocation: at, value: SyntaxNode(.string(policy), at: at)))
    }

    /// Adds a test, as one element of `"@tests"`: `input` must map to `output` (when given; or,
    /// with `outputIncludes`, to an output that holds those keys and values) with exactly
    /// `issues` (each `{"kind":…, "severity":…, "path":…, "property":…, "message":…}`, any
    /// subset; warnings count as issues), or with none when `issues` is `nil`. With `into`, the
    /// input populates that existing object (as JSON, what `map --into` reads) instead of a new one.
    public mutating func test(
        _ name: String? = nil, input: JSONValue, output: JSONValue? = nil, outputIncludes: JSONValue? = nil,
        issues: [JSONValue]? = nil, many: Bool = false, into: JSONValue? = nil, fileID: String = #fileID,
        filePath: String = #filePath,
        line: Int = #line
    ) {
        var fields: JSONObject = JSONObject()
        if let name { fields["name"] = .string(name) }
        fields["input"] = input
        if let output { fields["output"] = output }
        if let outputIncludes { fields["outputIncludes"] = outputIncludes }
        if let issues { fields["issues"] = .array(issues) }
        if many { fields["many"] = .bool(true) }
        if let into { fields["into"] = into }
        sourcePaths[fileID] = filePath
        tests.append(SyntaxNode(json: .object(fields), at: SourceLocation(file: fileID, line: line, column: 1)))
    }

    private static func object(_ options: [(String, SyntaxNode)], at location: SourceLocation) -> SyntaxNode {
        SyntaxNode(.object(options.map { SyntaxMember(key: $0.0, keyLocation: location, value: $0.1) }), at: location)
    }
}

/// The transformer of an entry declared in Swift.
public struct Transform: Sendable {
    enum Kind: Sendable {
        case named(className: String, selector: String)
        case closure(forward: any Transformer, reverse: (any Transformer)?)
    }

    let kind: Kind
    let userData: JSONValue?
    let reverseSelector: String?

    /// The `@transformClass` entries with a Swift closure name.
    static let closureClass = "Closure"

    /// A transformer named like a file's entry: a Swift closure registered in the
    /// `TransformerRegistry` or a Lua function of `scripts/<className>.lua`.
    ///
    /// - Parameters:
    ///   - className: `@transformClass`: a registered closure's class, or a script's name.
    ///   - selector: `@transformSelector`: the function, named up to its first `:`.
    ///   - userData: `@transformUserData`, handed to the transformer with each value.
    ///   - reverseSelector: the transformer of the same class that undoes it when an
    ///     object is serialized back to JSON (`@reverseTransformSelector`).
    public static func named(
        _ className: String, _ selector: String, userData: JSONValue? = nil, reverseSelector: String? = nil
    ) -> Transform {
        Transform(
            kind: .named(className: className, selector: selector), userData: userData, reverseSelector: reverseSelector
        )
    }

    /// A Swift closure, for this entry only: it gets the payload value and `userData`, and
    /// returns the new value or throws (`MappingsError.transformerFailed("why")`) to report an issue.
    ///
    /// - Parameters:
    ///   - userData: handed to the closure with each value (`@transformUserData`).
    ///   - reverse: the closure that undoes it when an object is serialized back to JSON.
    ///   - body: the transformer: the value and `userData` in, the new value out.
    public static func closure(
        userData: JSONValue? = nil,
        reverse: (@Sendable (JSONValue, JSONValue?) throws -> JSONValue)? = nil,
        _ body: @escaping @Sendable (JSONValue, JSONValue?) throws -> JSONValue
    ) -> Transform {
        Transform(
            kind: .closure(forward: ClosureTransformer(body), reverse: reverse.map { ClosureTransformer($0) }),
            userData: userData, reverseSelector: nil)
    }
}

/// How an entry declared in Swift builds a nested object (`@object`).
public struct NestedObject {
    enum Kind {
        case context(String)
        case inline(ContextBuilder)
        case model
        case union(discriminator: String, cases: [(String, String)], otherwise: String?)
    }

    let kind: Kind
    let className: String?

    /// Maps with the named context (`"@object": { "@mappings": "$User" }`).
    public static func context(_ identifier: String, class className: String? = nil) -> NestedObject {
        NestedObject(kind: .context(identifier), className: className)
    }

    /// Builds a model from the same-named keys of the payload object (`"@object": { "@class": … }`).
    public static func model(_ name: String) -> NestedObject {
        NestedObject(kind: .model, className: name)
    }

    /// Maps with a context written in place (`"@object": { "@mappings": { … } }`).
    public static func inline(
        class className: String? = nil, fileID: String = #fileID, line: Int = #line,
        _ body: (inout ContextBuilder) -> Void
    ) -> NestedObject {
        var builder = ContextBuilder(
            modelName: className, inherits: [], location: SourceLocation(file: fileID, line: line, column: 1))
        body(&builder)
        return NestedObject(kind: .inline(builder), className: nil)
    }
}

extension SyntaxNode {
    /// A JSON value as a node written at `location` (every node below it too).
    init(json: JSONValue, at location: SourceLocation) {
        switch json {
        case .null: self.init(.null, at: location)
        case .bool(let bool): self.init(.bool(bool), at: location)
        case .integer(let integer): self.init(.number(String(integer)), at: location)
        case .double(let double): self.init(.number(JSONWriter.number(double)), at: location)
        case .number(let number): self.init(.number(number.literal), at: location)
        case .string(let string): self.init(.string(string), at: location)
        case .array(let elements): self.init(.array(elements.map { SyntaxNode(json: $0, at: location) }), at: location)
        case .object(let object):
            self.init(
                .object(
                    object.members.map {
                        SyntaxMember(
                            key: $0.key, keyLocation: location, value: SyntaxNode(json: $0.value, at: location))
                    }), at: location)
        }
    }
}

/// How an entry declared in Swift matches the elements of a collection with those it already
/// holds (`"@identity"` in a file).
///
/// ```swift
/// timeline.map("tweets", from: "tweets", object: .context("$Tweet"), clearContent: true,
///              identity: .identifiable(Tweet.self))            // or .properties("id"), .keyPaths(\Tweet.id)
/// ```
public struct ElementIdentity: Sendable {
    let names: [String]

    /// The element model's properties, by name: `.properties("owner", "number")`.
    public static func properties(_ names: String...) -> ElementIdentity {
        ElementIdentity(names: names)
    }

    /// A `[String: Model]` dictionary's keys (`"@identity": "@key"`).
    public static var key: ElementIdentity { ElementIdentity(names: [IdentityRule.key]) }

    /// The properties `T`'s typed model binds to these key paths: `.keyPaths(\Issue.owner, \Issue.number)`.
    /// A key path bound to no property is a load-time error at the entry.
    public static func keyPaths<T: MappedModel>(_ keyPaths: PartialKeyPath<T>...) -> ElementIdentity {
        ElementIdentity(names: keyPaths.map { T.mapping.propertyName(boundTo: $0) ?? "\($0)" })
    }

    /// The property an `Identifiable` typed model binds to `id` (a key path through the
    /// protocol is not the stored property's, so the property named `id` when none matches).
    public static func identifiable<T: MappedModel & Identifiable>(_ type: T.Type) -> ElementIdentity {
        ElementIdentity(names: [T.mapping.propertyName(boundTo: \T.id) ?? "id"])
    }
}
