import Mappings
import MappingsTestSupport
import Testing

@Suite("automatic entries (@keyStyle)")
struct KeyStyleTests {
    @Test(
        "property names become keys: words split at case changes and acronyms, digits stay with their word",
        arguments: [
            ("imageUrl", "image_url", "image-url", "imageUrl"),
            ("imageURL", "image_url", "image-url", "imageUrl"),
            ("URLString", "url_string", "url-string", "urlString"),
            ("user2Name", "user2_name", "user2-name", "user2Name"),
            ("sha256Hash", "sha256_hash", "sha256-hash", "sha256Hash"),
            ("image_url", "image_url", "image-url", "imageUrl"),
            ("_id", "_id", "_id", "_id"),
            ("id", "id", "id", "id"),
            ("ID", "id", "id", "id"),
        ])
    func conversion(property: String, snake: String, kebab: String, camel: String) {
        #expect(KeyStyle.snakeCase.key(for: property) == snake)
        #expect(KeyStyle.kebabCase.key(for: property) == kebab)
        #expect(KeyStyle.camelCase.key(for: property) == camel)
        #expect(KeyStyle.same.key(for: property) == property)
    }

    private static let models = """
        "@models": {
            "User": { "name": "String", "imageURL": "URL?", "friends": "[User]?" },
            "Post": { "title": "String", "wordCount": "Int", "author": "User", "tags": "[String]" }
        }
        """

    @Test("every property without an entry gets a rule from its derived key, at the @keyStyle member")
    func rules() throws {
        let catalog = try load(
            """
            { \(Self.models),
              "$Post": { "@class": "Post", "@keyStyle": "snake_case", "title": "headline" } }
            """)
        let rules = try #require(catalog.context("$Post")).rules
        #expect(rules.map(\.target.description) == ["title", "wordCount", "author", "tags"])
        #expect(rules.map(\.source.description) == ["headline", "word_count", "author", "tags"])
        #expect(rules.map(\.keyStyle) == [nil, .snakeCase, .snakeCase, .snakeCase])
        #expect(rules.map(\.isOptional) == [false, false, false, false])
        #expect(rules[1].provenance.description == "main.mappings:5")
        let nested = try #require(rules[2].object?.context)
        let userRules = catalog.contexts[nested].rules
        #expect(userRules.map(\.source.description) == ["name", "image_url", "friends"])
        #expect(userRules.map(\.isOptional) == [false, true, true])
        #expect(userRules[2].object?.context == nested, "a model that holds itself reuses its automatic context")
    }

    @Test("a nested model maps through its $<Model> context when there is one")
    func namedNestedContext() throws {
        let catalog = try load(
            """
            { \(Self.models),
              "$User": { "@class": "User", "name": "screen_name", "imageURL": "avatar", "friends": { "@keyPath": "f", "@optional": true } },
              "$Post": { "@class": "Post", "@keyStyle": "camelCase" } }
            """)
        let post = try #require(catalog.context("$Post"))
        #expect(post.rules.map(\.source.description) == ["title", "wordCount", "author", "tags"])
        #expect(post.rules[2].object?.context == catalog.context("$User")?.index)
    }

    @Test("@keyStyle is inherited like any key; its rules name the @inherits step, and the child's own wins")
    func inherited() throws {
        let catalog = try load(
            """
            { \(Self.models),
              "$Base": { "@class": "User", "@keyStyle": "kebab-case", "name": "n" },
              "$Child": { "@inherits": "$Base", "name": "full_name" },
              "$Own": { "@inherits": "$Base", "@keyStyle": "same" } }
            """)
        let child = try #require(catalog.context("$Child")).rules
        #expect(child.map(\.source.description) == ["full_name", "image-url", "friends"])
        #expect(child[1].provenance.description == #"main.mappings:5, inherited via "$Base" at main.mappings:6"#)
        #expect(try #require(catalog.context("$Own")).rules.map(\.source.description) == ["n", "imageURL", "friends"])
    }

    @Test("an unknown style is an error at the value, with a suggestion")
    func unknownStyle() {
        #expect(
            failure(
                """
                { \(Self.models),
                  "$Post": { "@class": "Post", "@keyStyle": "snakeCase" } }
                """) == """
                    error: unknown key style "snakeCase"
                     --> main.mappings:5:45
                      |
                    5 |   "$Post": { "@class": "Post", "@keyStyle": "snakeCase" } }
                      |                                             ^^^^^^^^^^^
                      = help: did you mean "snake_case"?
                    """)
    }

    @Test("a style that is not a string is an error listing the styles")
    func notAString() {
        #expect(
            failure(#"{ \#(Self.models), "$Post": { "@class": "Post", "@keyStyle": true } }"#) == """
                error: "@keyStyle" takes a key style name, not a boolean
                 --> main.mappings:4:46
                  |
                4 | }, "$Post": { "@class": "Post", "@keyStyle": true } }
                  |                                              ^^^^
                  = help: the key styles are "snake_case", "camelCase", "kebab-case", "same"
                """)
    }

    @Test("@keyStyle on a context without @class is an error at the keyword")
    func withoutClass() {
        #expect(
            failure(#"{ "$Raw": { "@keyStyle": "snake_case", "id": "id" } }"#) == """
                error: "@keyStyle" derives entries from the properties of a model, but this context has no "@class"
                 --> main.mappings:1:13
                  |
                1 | { "$Raw": { "@keyStyle": "snake_case", "id": "id" } }
                  |             ^^^^^^^^^^^
                  = help: add "@class": "MyModel" beside "@keyStyle", or remove "@keyStyle"
                """)
    }

    @Test("a misspelt keyword suggests @keyStyle")
    func misspelt() {
        #expect(
            failure(#"{ \#(Self.models), "$Post": { "@class": "Post", "@keystyle": "same" } }"#).contains(
                #"did you mean "@keyStyle"?"#))
    }
}
