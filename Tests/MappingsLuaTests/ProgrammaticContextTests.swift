import Foundation
import Mappings
import Testing

@Suite("Contexts declared in Swift")
struct ProgrammaticContextTests {
    @Test("closures next to Lua, nested inline contexts, dictionaries, JSON reshaping")
    func closures() throws {
        var definitions = Definitions()
        definitions.model(
            "Place", ["name": "String", "tags": "[String]", "where": "Coordinate2D?", "owners": "[String: UserModel]"])
        let closureLine = #line + 2
        definitions.context("$Place", class: "Place") { place in
            place.map(
                "name", from: "title",
                transform: .closure(userData: "!") { value, userData in
                    guard case .string(let text) = value, case .string(let suffix)? = userData else {
                        throw MappingsError.transformerFailed("expected a string")
                    }
                    return .string(text.uppercased() + suffix)
                })
            place.map("tags", from: "labels", optional: true, insertContentAtBegin: true)
            place.map(
                "where", from: "geo", optional: true, transform: .named("MyTransformers", "coordinate2DFromFloatArray"))
            place.map(
                "owners", from: "owners", optional: true,
                object: .inline(class: "UserModel") { user in user.map("name", from: "login") })
        }
        definitions.context("$Summary") { summary in
            summary.map("title", from: "title")
            summary.map("when", from: "at", type: "Date", dateFormat: "yyyy-MM-dd")
            summary.map("first", from: "labels.@first", optional: true)
        }
        let mapper = Mapper(catalog: try Shipped.catalog(definitions, paths: [Shipped.contexts + "/models.mappings"]))
        let payload: JSONValue = [
            "title": "cafe", "labels": ["a", "b"], "geo": [2.5, 48.5], "at": "2020-02-03",
            "owners": ["x": ["login": "ann"], "y": ["login": "bo"]],
        ]
        let place = try mapper.object(from: payload, context: "$Place")
        #expect(place.issues.isEmpty)
        #expect(
            JSONWriter.string(place.value)
                == #"{"name":"CAFE!","tags":["a","b"],"where":{"latitude":48.5,"longitude":2.5},"owners":{"x":{"name":"ann","imageUrl":null},"y":{"name":"bo","imageUrl":null}}}"#
        )
        let failed = try mapper.object(from: ["title": 3], context: "$Place")
        #expect(
            failed.issues.map(\.message) == [
                "Closure.MappingsLuaTests/ProgrammaticContextTests.swift#\(closureLine)#0 failed: expected a string"
            ])
        #expect(failed.issues.first?.rule.location.line == closureLine)
        let summary = try mapper.object(from: payload, context: "$Summary")
        #expect(JSONWriter.string(summary.value) == #"{"title":"cafe","when":"2020-02-03T00:00:00Z","first":"a"}"#)
    }

    @Test("a mistake in a context built in Swift is a load-time error at the Swift line, with its source")
    func diagnostics() throws {
        var definitions = Definitions()
        var namLine = 0
        definitions.context("$User", class: "UserModel") { user in
            namLine = #line + 1
            user.map("nam", from: "name")
            user.map("imageUrl", from: "u", defaultValue: 3)
            user.map("name", from: "x", transform: .named("Nowhere", "f"))
        }
        definitions.context("$Broken", class: "UserModl") { _ in }
        do {
            _ = try Shipped.catalog(definitions, paths: [Shipped.contexts + "/models.mappings"])
            Issue.record("loaded")
        } catch let error as MappingsError {
            let text = error.description
            let file = "MappingsLuaTests/ProgrammaticContextTests.swift"
            #expect(text.contains("no property \"nam\""), "\(text)")
            #expect(text.contains("did you mean \"name\""))
            #expect(text.contains("--> \(file):\(namLine):13"))
            #expect(text.contains(#"user.map("nam", from: "name")"#))
            #expect(text.contains("the default value of \"imageUrl\" cannot become URL?"))
            #expect(text.contains("no transformer \"Nowhere.f\""))
            #expect(text.contains("unknown class \"UserModl\""))
        }
    }

    @Test("a context built in Swift carries outputIncludes tests, run like those of a file")
    func outputIncludes() throws {
        var definitions = Definitions()
        definitions.context("$Summary") { summary in
            summary.map("title", from: "title")
            summary.map("count", from: "n", optional: true)
            summary.test("passes", input: ["title": "a", "n": 2], outputIncludes: ["title": "a"])
            summary.test("fails", input: ["title": "a"], outputIncludes: ["title": "b", "count": .null])
        }
        let catalog = try Shipped.catalog(definitions, paths: [Shipped.contexts + "/models.mappings"])
        let results = ContextTestRunner.run(catalog, contexts: ["$Summary"])
        #expect(results.map(\.passed) == [true, false])
        #expect(results.last?.failures == [#"$.title: expected "b", got "a""#])
    }
}
