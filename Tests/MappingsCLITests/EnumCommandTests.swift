import Foundation
import MappingsTestSupport
import Testing

@Suite("enums and value maps, through the tool")
struct EnumCommandTests {
    static let accounts = """
        {
          "@models": {
            "Status": ["active", "suspended", "deleted"],
            "Account": { "name": "String", "status": "Status", "history": "[Status]" }
          },
          "$Account": {
            "@class": "Account",
            "name": "name",
            "status": { "@keyPath": "state", "@valueMap": { "A": "active", "S": "suspended", "1": "active" },
                        "@reverseValue": { "active": "A" } },
            "history": { "@keyPath": "history", "@optional": true }
          }
        }
        """

    @Test("map translates and checks values; serialize writes the keys back")
    func mapAndSerialize() throws {
        let directory = try ToolRunner.directory(with: ["contexts/accounts.mappings": Self.accounts])
        let mapped = try ToolRunner.run(
            ["map", "--context", "$Account"], in: directory, input: #"{"name":"Ann","state":1,"history":["deleted"]}"#)
        #expect(mapped.stderr == "")
        #expect(mapped.stdout == #"{"name":"Ann","status":"active","history":["deleted"]}"# + "\n")
        #expect(mapped.status == 0)

        let back = try ToolRunner.run(["serialize", "--context", "$Account"], in: directory, input: mapped.stdout)
        #expect(back.stderr == "")
        #expect(back.stdout == #"{"name":"Ann","state":"A","history":["deleted"]}"# + "\n")
        #expect(back.status == 0)

        let wrong = try ToolRunner.run(
            ["map", "--context", "$Account"], in: directory, input: #"{"name":"Ann","state":"X","history":["delted"]}"#)
        #expect(wrong.stdout == #"{"name":"Ann","status":null,"history":[null]}"# + "\n")
        #expect(
            wrong.stderr == """
                $.state: expected Status, found string "X": allowed values are "active", "suspended", "deleted" (contexts/accounts.mappings:9)
                $.history[0]: expected Status, found string "delted": allowed values are "active", "suspended", "deleted"; did you mean "deleted"? (contexts/accounts.mappings:11)

                """)
        #expect(wrong.status == 1)
    }

    @Test("explain shows what the value map did")
    func explain() throws {
        let directory = try ToolRunner.directory(with: ["contexts/accounts.mappings": Self.accounts])
        let result = try ToolRunner.run(
            ["explain", "--context", "$Account"], in: directory, input: #"{"name":"Ann","state":"S"}"#)
        #expect(result.status == 0)
        #expect(
            result.stdout.hasPrefix(
                """
                Account.name <- $.name = "Ann"  [contexts/accounts.mappings:8]
                Account.status <- $.state = "S" → "suspended" (@valueMap)  [contexts/accounts.mappings:9]
                Account.history skipped: $.history missing, optional  [contexts/accounts.mappings:11]
                """))
    }

    @Test("check reports enum and value map mistakes with file:line:column, a caret and a suggestion")
    func checkErrors() throws {
        let directory = try ToolRunner.directory(with: [
            "contexts/accounts.mappings": """
            {
              "@models": { "Status": ["active", "deleted", "active"], "Account": { "status": "Status" } },
              "$Account": { "@class": "Account",
                "status": { "@keyPath": "s", "@valueMap": { "A": "actve", "B": "deleted", "C": "deleted" } } }
            }
            """
        ])
        let result = try ToolRunner.run(["check"], in: directory)
        #expect(result.status == 2)
        #expect(result.stdout == "")
        #expect(
            result.stderr == """
                error: the enum "Status" lists "active" twice
                 --> contexts/accounts.mappings:2:48
                  |
                2 |   "@models": { "Status": ["active", "deleted", "active"], "Account": { "status": "Status" } },
                  |                                                ^^^^^^^^
                  = note: first listed here
                 --> contexts/accounts.mappings:2:27
                  |
                2 |   "@models": { "Status": ["active", "deleted", "active"], "Account": { "status": "Status" } },
                  |                           ^^^^^^^^
                  = help: remove one of them

                error: "@valueMap" maps "A" to "actve", which is not a Status
                 --> contexts/accounts.mappings:4:54
                  |
                4 |     "status": { "@keyPath": "s", "@valueMap": { "A": "actve", "B": "deleted", "C": "deleted" } } }
                  |                                                      ^^^^^^^
                  = help: did you mean "active"?

                error: "@valueMap" is not one-to-one: "B" and "C" map to "deleted", and serialize cannot choose
                 --> contexts/accounts.mappings:4:79
                  |
                4 |     "status": { "@keyPath": "s", "@valueMap": { "A": "actve", "B": "deleted", "C": "deleted" } } }
                  |                                                                               ^^^
                  = note: "B" maps to it here
                 --> contexts/accounts.mappings:4:63
                  |
                4 |     "status": { "@keyPath": "s", "@valueMap": { "A": "actve", "B": "deleted", "C": "deleted" } } }
                  |                                                               ^^^
                  = help: say which one is written back: "@reverseValue": { "deleted": "B" }; or, if the entry is never serialized, "@reverse": false

                mappings: 3 errors found

                """)
    }
}
