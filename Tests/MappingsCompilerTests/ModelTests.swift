import Mappings
import MappingsTestSupport
import Testing

@Suite("@models")
struct ModelTests {
    @Test("the type syntax covers scalars, models, arrays, dictionaries and optionals")
    func types() throws {
        let catalog = try load(
            """
            { "@models": {
                "Tag": { "label": "String" },
                "All": { "s": "String", "i": "Int", "d": "Double", "b": "Bool", "dec": "Decimal", "u": "URL",
                         "date": "Date", "id": "UUID", "j": "JSON", "m": "Tag", "arr": "[Tag?]",
                         "dict": "[String: [Int]]", "opt": "[String : URL]?" }
            } }
            """)
        let all = try #require(catalog.models["All"])
        #expect(
            all.properties.map(\.type.description) == [
                "String", "Int", "Double", "Bool", "Decimal", "URL", "Date", "UUID", "JSON", "Tag", "[Tag?]",
                "[String: [Int]]", "[String: URL]?",
            ])
        #expect(all.slot(of: "m") == 9)
    }

    @Test("an unknown type name is an error pointing into the type, with a suggestion")
    func unknownType() {
        #expect(
            failure(#"{ "@models": { "User": { "tags": "[Strng]" }, "Tweet": { "user": "Usr?" } } }"#) == """
                error: unknown type "Strng"
                 --> main.mappings:1:36
                  |
                1 | { "@models": { "User": { "tags": "[Strng]" }, "Tweet": { "user": "Usr?" } } }
                  |                                    ^^^^^
                  = help: did you mean "String"?

                error: unknown type "Usr"
                 --> main.mappings:1:67
                  |
                1 | { "@models": { "User": { "tags": "[Strng]" }, "Tweet": { "user": "Usr?" } } }
                  |                                                                   ^^^
                  = help: did you mean "User"?
                """)
    }

    @Test(
        "malformed declarations are errors",
        arguments: [
            (#"{ "@models": { "M": { "x": "[Int" } } }"#, "in the type of \"x\": this \"[\" is not closed"),
            (
                #"{ "@models": { "M": { "x": "[Int: String]" } } }"#,
                "in the type of \"x\": dictionary keys are String, not Int"
            ),
            (
                #"{ "@models": { "M": { "x": "Int??" } } }"#,
                "in the type of \"x\": a type is optional once: \"??\" is one \"?\" too many"
            ),
            (
                #"{ "@models": { "M": { "x": "Int String" } } }"#,
                "in the type of \"x\": unexpected \"String\" after the type"
            ),
            (#"{ "@models": { "M": { "x": "" } } }"#, "in the type of \"x\": a type is missing"),
            (#"{ "@models": { "M": { "x": 3 } } }"#, "the type of \"x\" is written as a string, not a number"),
            (#"{ "@models": { "M": { "a.b": "Int" } } }"#, "\"a.b\" is not a valid property name"),
            (#"{ "@models": { "M": { "@inherits": "X" } } }"#, "\"@inherits\" has no meaning in a model declaration"),
            (#"{ "@models": { "String": {} } }"#, "\"String\" is a built-in type and cannot be declared as a model"),
            (#"{ "@models": { "9Lives": {} } }"#, "\"9Lives\" is not a valid model name"),
            (
                #"{ "@models": { "M": 3 } }"#,
                "the model \"M\" is declared by an object of properties (or an enum by an array of strings), not a number"
            ),
            (#"{ "@models": [] }"#, "\"@models\" takes an object of model declarations, not an array"),
        ])
    func malformed(text: String, message: String) {
        #expect(failure(text).hasPrefix("error: \(message)\n --> main.mappings:1:"))
    }
}
