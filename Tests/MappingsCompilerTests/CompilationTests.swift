import Foundation
import Mappings
import MappingsTestSupport
import Testing

@Suite("compiling contexts")
struct CompilationTests {
    private func context(_ body: String, _ identifier: String = "$T") throws -> CompiledContext {
        try #require(try load("{ \(twitterModels), \(body) }").context(identifier))
    }

    @Test("a short-form entry is required and its key path is parsed once")
    func shortForm() throws {
        let rule = try context(#""$T": { "@class": "TweetModel", "message": "text" }"#).rules[0]
        #expect(rule.target.steps == [TargetPath.Step(name: "message", slot: 1)])
        #expect(rule.source.components == [.key("text")])
        #expect(!rule.isOptional)
        #expect(rule.type == .string)
    }

    @Test(
        "key paths: dotted keys, @self, @first, @last, @count and indexes",
        arguments: [
            ("user.name", [PayloadKeyPath.Component.key("user"), .key("name")]),
            ("@self", []),
            ("", []),
            ("@self.user", [.key("user")]),
            ("entities.hashtags.@first.text", [.key("entities"), .key("hashtags"), .first, .key("text")]),
            ("tags.@last", [.key("tags"), .last]),
            ("tags.@count", [.key("tags"), .count]),
            ("tags.0", [.key("tags"), .index(0)]),
            ("tags.-1", [.key("tags"), .index(-1)]),
        ])
    func keyPaths(text: String, components: [PayloadKeyPath.Component]) throws {
        let rule = try context(#""$T": { "x": { "@keyPath": "\#(text)" } }"#).rules[0]
        #expect(rule.source.components == components)
    }

    @Test("a long-form entry records every keyword")
    func longForm() throws {
        let rules = try context(
            """
            "$T": {
                "@class": "TweetModel",
                "user": { "@keyPath": "user", "@object": { "@class": "UserModel", "@mappings": { "name": "name" } } },
                "retweets": { "@keyPath": "retweet_count", "@defaultValue": "12" },
                "tags": { "@keyPath": "hashtags", "@clearContent": true, "@insertContentAtBegin": 1, "@optional": true },
                "createdAt": { "@keyPath": "created_at", "@dateFormat": "EEE MMM dd HH:mm:ss Z yyyy", "@optional": false },
                "extra": { "@keyPath": "@self", "@transformClass": "Geo", "@transformSelector": "coordinate:userData:error:",
                           "@transformUserData": { "lat": "latitude" } }
            }
            """
        ).rules
        #expect(rules.map(\.target.description) == ["user", "retweets", "tags", "createdAt", "extra"])
        let user = rules[0]
        #expect(user.object?.model == "UserModel")
        #expect(user.object?.context != nil)
        #expect(rules[1].isOptional, "a default implies optional")
        #expect(rules[1].defaultValue == .int(12), "the default is converted to the property's type at load time")
        #expect(rules[2].clearContent && rules[2].insertContentAtBegin && rules[2].isOptional)
        #expect(rules[3].dateFormat == ["EEE MMM dd HH:mm:ss Z yyyy"] && !rules[3].isOptional)
        #expect(
            rules[4].transformer
                == TransformerReference(
                    className: "Geo", selector: "coordinate:userData:error:",
                    userData: .object(JSONObject([("lat", .string("latitude"))]))))
        #expect(rules[4].transformer?.functionName == "coordinate")
        #expect(rules[4].source.isSelf)
    }

    @Test("@object may reference a context, inline one, or reach into one with a dotted path")
    func objectMappings() throws {
        let catalog = try load(
            """
            { \(twitterModels),
              "$User": { "@class": "UserModel", "name": "name" },
              "$Parts": { "user": { "@object": { "@mappings": { "name": "screen_name" } } } },
              "$ByName": { "@class": "TweetModel", "user": { "@object": { "@mappings": "$User" } } },
              "$Dotted": { "@class": "TweetModel", "user": { "@object": { "@mappings": "$Parts.user.@object.@mappings" } } },
              "$Classless": { "name": "login" },
              "$Retarget": { "@class": "TweetModel", "user": { "@object": { "@class": "UserModel", "@mappings": "$Classless" } } },
              "$Implied": { "@class": "TweetModel", "user": { "@object": {} } }
            }
            """)
        #expect(catalog.context("$ByName")?.rules[0].object == ObjectRule(model: "UserModel", context: 0))
        let dotted = try #require(catalog.context("$Dotted")?.rules[0].object?.context)
        #expect(catalog.contexts[dotted].model == "UserModel")
        #expect(catalog.contexts[dotted].rules[0].target.steps == [TargetPath.Step(name: "name", slot: 0)])
        let retargeted = try #require(catalog.context("$Retarget")?.rules[0].object?.context)
        #expect(catalog.contexts[retargeted].model == "UserModel")
        #expect(catalog.context("$Classless")?.model == nil)
        #expect(catalog.context("$Implied")?.rules[0].object == ObjectRule(model: "UserModel", context: nil))
    }

    @Test("the @object form of a context")
    func objectForm() throws {
        let catalog = try load(
            """
            { \(twitterModels),
              "$User": { "@object": { "@class": "UserModel", "@mappings": { "name": "login" } } } }
            """)
        let user = try #require(catalog.context("$User"))
        #expect(user.model == "UserModel")
        #expect(user.rules.map(\.source.text) == ["login"])
    }

    @Test("dotted targets walk through model properties")
    func dottedTargets() throws {
        let rule = try context(#""$T": { "@class": "TweetModel", "user.name": "author" }"#).rules[0]
        #expect(rule.target.steps == [TargetPath.Step(name: "user", slot: 0), TargetPath.Step(name: "name", slot: 0)])
        #expect(rule.type == .string)
    }

    @Test("a context without @class maps into JSON, and @type converts an entry")
    func untyped() throws {
        let rules = try context(
            """
            "$T": { "when": { "@keyPath": "created_at", "@type": "Date" }, "id": "id_str",
                    "count": { "@keyPath": "n", "@type": "Int", "@defaultValue": 0 } }
            """
        ).rules
        #expect(rules.map(\.type) == [.date, nil, .int])
        #expect(rules[2].defaultValue == .int(0))
    }

    @Test(
        "each compile-time check is an error with a place and, where close, a suggestion",
        arguments: [
            (#""$T": { "@class": "TweetModl" }"#, #"unknown class "TweetModl""#, #"did you mean "TweetModel"?"#),
            (
                #""$T": { "@class": "TweetModel", "mesage": "text" }"#, #"TweetModel has no property "mesage""#,
                #"did you mean "message"?"#
            ),
            (
                #""$T": { "@class": "TweetModel", "user.nme": "n" }"#, #"UserModel has no property "nme""#,
                #"did you mean "name"?"#
            ),
            (
                #""$T": { "@class": "TweetModel", "message.x": "n" }"#,
                #""message" of TweetModel is String, which has no property "x""#, nil
            ),
            (#""$T": { "@clas": "TweetModel" }"#, #"unknown keyword "@clas" in a context"#, #"did you mean "@class"?"#),
            (
                #""$T": { "x": { "@keyPth": "a" } }"#, #"unknown keyword "@keyPth" in an entry"#,
                #"did you mean "@keyPath"?"#
            ),
            (#""$T": { "x": { "@mappings": "a" } }"#, #""@mappings" has no meaning in an entry"#, nil),
            (
                #""$T": { "x": { "@keyPath": "a", "name": "b" } }"#,
                #""name" is not an option: a long-form entry holds only @ keywords"#,
                #"to map properties of a nested object, put them under "@object": { "@mappings": { … } }"#
            ),
            (
                #""$T": { "x": 3 }"#,
                #"the entry "x" maps from a source key path (a string) or options (an object), not a number"#,
                #"write "x": "source.key.path""#
            ),
            (#""$T": { "x": "a..b" }"#, #"the key path "a..b" has an empty component"#, "remove the extra '.'"),
            (
                #""$T": { "x": "tags.@frist" }"#, #"unknown key path operator "@frist" in "tags.@frist""#,
                #"did you mean "@first"?"#
            ),
            (
                #""$User": {}, "$T": { "@class": "TweetModel", "user": { "@object": { "@mappings": "$Usr" } } }"#,
                #""@mappings" "$Usr" names no context"#, #"did you mean "$User"?"#
            ),
            (
                #""$T": { "@class": "TweetModel", "retweets": { "@keyPath": "n", "@defaultValue": "many" } }"#,
                #"the default value of "retweets" cannot become Int: expected Int, found string "many", which is not a whole number"#,
                nil
            ),
            (
                #""$T": { "@class": "TweetModel", "tags": { "@keyPath": "n", "@defaultValue": ["a", 2, {}] } }"#,
                #"the default value of "tags" cannot become [String] (at [2]): expected String, found object of 0 keys"#,
                nil
            ),
            (
                #""$T": { "@class": "TweetModel", "message": { "@keyPath": "n", "@defaultValue": "x", "@optional": false } }"#,
                #""@defaultValue" makes an entry optional, but "@optional" is false"#, #"remove "@optional": false"#
            ),
            (
                #""$T": { "x": { "@keyPath": "n", "@optional": "yes" } }"#,
                #""@optional" takes true or false, not a string"#, "did you mean true, without quotes?"
            ),
            (
                #""$T": { "x": { "@transformClass": "T" } }"#,
                #""@transformClass" needs "@transformSelector" beside it"#,
                "a transformer is named by both its class and its selector"
            ),
            (
                #""$T": { "x": { "@transformUserData": 1 } }"#,
                #""@transformUserData" is handed to a transformer, but this entry names none"#,
                #"add "@lua", or "@transformClass" and "@transformSelector""#
            ),
            (
                #""$T": { "@class": "TweetModel", "message": { "@clearContent": true } }"#,
                #""@clearContent" applies to collections, but "message" is String"#, nil
            ),
            (
                #""$T": { "@class": "TweetModel", "message": { "@dateFormat": "yyyy" } }"#,
                #""@dateFormat" applies to dates, but "message" is String"#,
                #"remove "@dateFormat" (yyyy), or map into a Date"#
            ),
            (
                #""$T": { "@class": "TweetModel", "message": { "@type": "Int" } }"#,
                #""@type" is for contexts without "@class"; "message" is declared as String"#,
                #"remove "@type": the model declares the type"#
            ),
            (#""$T": { "x": { "@type": "Dat" } }"#, #"unknown type "Dat""#, #"did you mean "Date"?"#),
            (
                #""$T": { "@class": "TweetModel", "message": { "@object": {} } }"#,
                #""@object" builds objects, but "message" is String"#,
                #"declare "message" with a model type, or remove "@object""#
            ),
            (
                #""$T": { "@class": "TweetModel", "user": { "@object": { "@class": "TweetModel" } } }"#,
                #""user" holds UserModel, but "@object" builds TweetModel"#, nil
            ),
            (
                #""$T": { "@class": "TweetModel", "user": { "@object": { "@mappings": { "@class": "TweetModel" } } } }"#,
                #"these mappings build TweetModel, but "user" needs UserModel"#, nil
            ),
            (
                #""$T": { "@class": "TweetModel", "user": { "@object": { "@mapings": {} } } }"#,
                #"unknown keyword "@mapings" in "@object""#, #"did you mean "@mappings"?"#
            ),
            (
                #""$T": { "@object": { "@class": "UserModel" }, "name": "n" }"#,
                #"a context written with "@object" holds nothing else, but it also has "name""#,
                #"move the entries into "@object": { "@mappings": { … } }"#
            ),
            (
                #""$T": []"#, "a context is an object of entries, not an array",
                #"write { "@class": "MyModel", "property": "source.key.path" }"#
            ),
        ] as [(String, String, String?)])
    func checks(body: String, message: String, help: String?) {
        let text = failure("{ \(twitterModels), \(body) }")
        #expect(text.hasPrefix("error: \(message)\n --> main.mappings:"), "\(text)")
        if let help {
            #expect(text.hasSuffix("= help: \(help)"), "\(text)")
        }
    }

    @Test("an unknown property renders with the model's declaration as a note")
    func unknownPropertyRendered() {
        #expect(
            failure(
                """
                {
                    "@models": { "User": { "name": "String" } },
                    "$User": { "@class": "User", "nmae": "name" }
                }
                """) == """
                    error: User has no property "nmae"
                     --> main.mappings:3:34
                      |
                    3 |     "$User": { "@class": "User", "nmae": "name" }
                      |                                  ^^^^^^
                      = note: User is declared here
                     --> main.mappings:2:18
                      |
                    2 |     "@models": { "User": { "name": "String" } },
                      |                  ^^^^^^
                      = help: did you mean "name"?
                    """)
    }
}

@Suite("compile checks found in review")
struct CompileCheckReviewTests {
    @Test(
        "more checks, each an error at its place",
        arguments: [
            (
                #""$T": { "x": { "@keyPath": "d", "@dateFormat": "yyyy" } }"#,
                #""@dateFormat" needs a Date, but "x" has no type"#
            ),
            (
                #""$T": { "@class": "TweetModel", "retweets": { "@keyPath": "n", "@defaultValue": null } }"#,
                #"the default value of "retweets" cannot become Int: expected Int, found null"#
            ),
            (#""$T": { "x": { "@wen beta": {} } }"#, #"unknown keyword "@wen beta" in an entry"#),
            (#""$T": { "x": { "@whenn beta": {} } }"#, #"unknown keyword "@whenn beta" in an entry"#),
        ])
    func checks(body: String, message: String) {
        #expect(failure("{ \(twitterModels), \(body) }").hasPrefix("error: \(message)"))
    }

    @Test("a transformer that no provider knows is a load-time error at its entry")
    func unresolvedTransformer() {
        #expect(
            failure(#"{ "$T": { "x": { "@transformClass": "Text", "@transformSelector": "uper:" } } }"#) == """
                error: no transformer "Text.uper" (for "uper:")
                 --> main.mappings:1:11
                  |
                1 | { "$T": { "x": { "@transformClass": "Text", "@transformSelector": "uper:" } } }
                  |           ^^^
                  = help: did you mean "Text.upper"?
                """)
    }

    @Test("a misspelled selector inside a context suggests the selector keyword")
    func selectorSuggestion() {
        #expect(failure(#"{ "$T": { "@whenn beta": {} } }"#).hasSuffix(#"= help: did you mean "@when"?"#))
        #expect(failure(#"{ "$T": { "x": { "@wen beta": {} } } }"#).hasSuffix(#"= help: did you mean "@when"?"#))
    }

    @Test("a null default is allowed where the type is optional")
    func nullDefault() throws {
        let catalog = try load(
            #"{ \#(twitterModels), "$T": { "@class": "TweetModel", "createdAt": { "@defaultValue": null } } }"#)
        #expect(catalog.context("$T")?.rules[0].defaultValue == .null)
    }

    @Test("nested members of several parents keep the first parent's order")
    func nestedParentOrder() throws {
        let catalog = try load(
            """
            {
                "$A": { "x": { "@object": { "@mappings": { "a": "a", "b": "b" } } } },
                "$B": { "x": { "@object": { "@mappings": { "c": "c", "a": "z" } } } },
                "$C": { "@inherits": ["$A", "$B"] }
            }
            """)
        let nested = try #require(catalog.context("$C")?.rules[0].object?.context)
        #expect(catalog.contexts[nested].rules.map(\.target.description) == ["a", "b", "c"])
        #expect(catalog.contexts[nested].rules.map(\.source.text) == ["a", "b", "c"])
    }
}

@Suite("@object and @mappings of the wrong shape")
struct ObjectShapeTests {
    @Test(
        "the same message at context level and entry level",
        arguments: [
            (#""$T": { "@object": 3 }"#, #""@object" takes an object with "@class" and "@mappings", not a number"#),
            (
                #""$T": { "x": { "@object": [] } }"#,
                #""@object" takes an object with "@class" and "@mappings", not an array"#
            ),
            (
                #""$T": { "@object": { "@mappings": 1 } }"#,
                #""@mappings" takes a context identifier or an inline context, not a number"#
            ),
            (
                #""$T": { "x": { "@object": { "@mappings": true } } }"#,
                #""@mappings" takes a context identifier or an inline context, not a boolean"#
            ),
        ])
    func shapes(body: String, message: String) {
        #expect(failure("{ \(twitterModels), \(body) }").hasPrefix("error: \(message)\n --> main.mappings:"))
    }
}
