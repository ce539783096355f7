import MappingsTestSupport
import Testing

@testable import Mappings
@testable import MappingsCompiler
@testable import MappingsEngine
@testable import MappingsJSON

@Suite("@unknownKeys and issue severity, through the Swift API")
struct UnknownKeysMappingTests {
    private static let contexts = #"""
        {
            "@models": {
                "User": { "name": "String", "address": "Address?", "tags": "[Tag]" },
                "Address": { "city": "String" },
                "Tag": { "label": "String" }
            },
            "$User": {
                "@class": "User",
                "@unknownKeys": "warn",
                "name": { "@keyPath": ["name", "login"] },
                "address": { "@keyPath": "profile.address", "@optional": true, "@object": { "@mappings": {
                    "@unknownKeys": "error", "city": "city" } } },
                "tags": { "@keyPath": "tags", "@optional": true, "@object": { "@mappings": "$Tag" } }
            },
            "$Tag": { "@class": "Tag", "@unknownKeys": "error", "label": "label" },
            "$Loose": { "@class": "Address", "city": "city" },
            "$Whole": { "@unknownKeys": "error", "all": { "@keyPath": "@self", "@type": "JSON" }, "x": "x" }
        }
        """#

    private let mapper: Mapper

    init() throws {
        mapper = Mapper(catalog: try load(Self.contexts))
    }

    private func map(_ json: String, _ context: String = "$User") throws -> MappingResult {
        try mapper.object(from: try JSONParser.parse(json), context: context)
    }

    @Test("a key no entry reads is a warning with its path and the @unknownKeys line; the object is whole")
    func warning() throws {
        let result = try map(#"{"name": "Ann", "nickname": "A"}"#)
        #expect(JSONWriter.string(result.value) == #"{"name":"Ann","address":null,"tags":null}"#)
        #expect(
            result.issues.map(\.description) == [
                #"$.nickname: warning: unknown key "nickname", read by no entry (main.mappings:9)"#
            ])
        #expect(result.issues.first?.kind == .unknownKey)
        #expect(result.issues.first?.severity == .warning)
        #expect(result.issues.first?.property == "User")
        #expect(!result.hasErrors)
        #expect(result.errors.isEmpty && result.warnings.count == 1)
    }

    @Test("keys of fallback key paths and the first key of a dotted path are read")
    func readKeys() throws {
        let result = try map(#"{"login": "ann", "profile": {"address": {"city": "Oslo"}}}"#)
        #expect(result.issues.isEmpty)
    }

    @Test("nested contexts decide for their own level: errors below, warnings above, in payload order")
    func nested() throws {
        let result = try map(
            #"{"x": 1, "name": "Ann", "profile": {"address": {"city": "Oslo", "zip": "1"}, "bio": ""}, "tags": [{"label": "a", "n": 2}]}"#
        )
        #expect(
            result.issues.map { "\($0.severity) \($0.path)" } == [
                "warning $.x", "error $.profile.address.zip", "error $.tags[0].n",
            ])
        #expect(result.hasErrors)
        #expect(result.errors.map(\.path) == ["$.profile.address.zip", "$.tags[0].n"])
        #expect(result.warnings.map(\.path) == ["$.x"])
        // "profile" is read by "address"; its own keys belong to no context, so "bio" is not checked.
        #expect(!result.issues.contains { $0.path == "$.profile.bio" })
    }

    @Test("a context without @unknownKeys reports nothing, and parses only what it reads")
    func ignored() throws {
        let result = try map(#"{"city": "Oslo", "zip": "1"}"#, "$Loose")
        #expect(result.issues.isEmpty)
        guard case .members(_, let keeps) = try #require(mapper.catalog.context("$Loose")).demand else {
            Issue.record("$Loose should read some keys only")
            return
        }
        #expect(!keeps)
        guard case .members(let members, let keepsUser) = try #require(mapper.catalog.context("$User")).demand else {
            Issue.record("$User should read some keys only")
            return
        }
        #expect(keepsUser)
        #expect(members.map(\.key).sorted() == ["login", "name", "profile", "tags"])
    }

    @Test("an entry on @self hands the whole object on: every key is read")
    func selfReadsEverything() throws {
        let result = try map(#"{"x": 1, "y": 2}"#, "$Whole")
        #expect(result.issues.isEmpty)
    }

    @Test(
        "parsing on demand sees the same unknown keys as a full parse",
        arguments: [
            #"{"name": "Ann", "nickname": "A", "big": {"deep": [1, 2, {"x": "y"}]}}"#,
            #"{"name": "Ann", "profile": {"address": {"city": "Oslo", "z\u0069p": "1"}}, "tags": [{"label": "a", "n": 2}]}"#,
            #"{"name": "Ann", "extra": 1, "extra": 2, "tags": []}"#,
        ])
    func demandAgrees(payload: String) throws {
        let context = try #require(mapper.catalog.context("$User"))
        let onDemand = try mapper.object(fromJSON: Array(payload.utf8), using: context)
        let full = mapper.object(from: try JSONParser.parse(payload), using: context)
        #expect(onDemand.issues == full.issues)
        #expect(JSONWriter.string(onDemand.value) == JSONWriter.string(full.value))
    }

    @Test("explain lists each unknown key with its severity")
    func explain() throws {
        let context = try #require(mapper.catalog.context("$User"))
        let (_, explanations) = mapper.explain(
            try JSONParser.parse(#"{"name": "Ann", "nickname": "A"}"#), using: context)
        #expect(
            explanations.first?.description
                == "User: unknown key $.nickname, read by no entry (warning)  [main.mappings:9]")
    }

    @Test("ContextBuilder sets @unknownKeys; a wrong value is a load error at the call")
    func builder() throws {
        var definitions = Definitions()
        definitions.model("User", ["name": "String"])
        definitions.context("$User", class: "User") { user in
            user.unknownKeys("error")
            user.map("name", from: "name")
        }
        let catalog = try Catalog.load([], from: .memory([:]), definitions: definitions)
        let result = try Mapper(catalog: catalog).object(
            from: try JSONParser.parse(#"{"name": "Ann", "age": 3}"#), context: "$User")
        #expect(result.issues.map { "\($0.severity) \($0.path) \($0.kind)" } == ["error $.age unknown key"])
        var wrong = Definitions()
        wrong.model("User", ["name": "String"])
        wrong.context("$User", class: "User") { user in
            user.unknownKeys("wrn")
            user.map("name", from: "name")
        }
        do {
            _ = try Catalog.load([], from: .memory([:]), definitions: wrong)
            Issue.record("the load succeeded")
        } catch {
            #expect(error.diagnostics.map(\.message) == [#""@unknownKeys" is "ignore", "warn" or "error", not "wrn""#])
            #expect(error.diagnostics.first?.help == #"did you mean "warn"?"#)
        }
    }

    @Test("an issue's JSON ends with its severity; an error renders as before")
    func json() throws {
        let result = try map(#"{"nickname": "A"}"#)
        let warning = try #require(result.issues.first)
        #expect(JSONWriter.string(warning.json).hasSuffix(#","severity":"warning"}"#))
        let missing = try #require(result.issues.last)
        #expect(missing.severity == .error)
        #expect(
            missing.description == "$.name: missing required value for User.name (tried name, login) (main.mappings:10)"
        )
        #expect(JSONWriter.string(missing.json).hasSuffix(#","severity":"error"}"#))
    }
}
