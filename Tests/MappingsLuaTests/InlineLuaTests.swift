import Foundation
import MappingsTestSupport
import Synchronization
import Testing

@testable import Mappings
@testable import MappingsCompiler
@testable import MappingsEngine
@testable import MappingsJSON
@testable import MappingsLua

/// Inline Lua (`@lua`, `@reverseLua`, `@luaPrelude`, `@filter`) and keyed selections: what
/// they compute, where their errors point, and that a fast plan agrees with the general engine
/// call for call, in process and in worker processes.
@Suite("Inline Lua, keyed selections and filters")
struct InlineLuaTests {
    /// A catalog of `text` (the file `c.mappings`), its Lua in `isolation`.
    static func mapper(_ text: String, isolation: LuaIsolation = .inProcess) throws -> Mapper {
        var registry = TransformerRegistry()
        registry.add(
            LuaScripts(directory: "/nonexistent", limits: LuaLimits(), isolation: isolation, log: .standardError))
        return Mapper(
            catalog: try Catalog.load(["c.mappings"], from: .memory(["c.mappings": text]), transformers: registry))
    }

    /// The load's diagnostics, rendered as the tool prints them.
    static func loadErrors(_ text: String) -> String {
        do {
            _ = try mapper(text)
            return ""
        } catch {
            return "\(error)"
        }
    }

    static let charges = """
        {
          "@luaPrelude": "local function decimal(cents)\\n  return string.format('%d.%02d', cents // 100, cents % 100)\\nend",
          "@models": { "Charge": { "id": "String", "amount": "String", "label": "String?", "cents": "Int?", "parts": "[String: String]?" } },
          "$Charge": {
            "@class": "Charge",
            "@filter": "value.status ~= 'failed'",
            "id": "id",
            "amount": { "@keyPath": { "cents": "amount", "currency": ["currency", "default_currency"] },
                        "@lua": "decimal(value.cents) .. ' ' .. (value.currency or 'usd'):upper()",
                        "@reverse": false },
            "label": { "@keyPath": "description", "@optional": true, "@transformUserData": "!",
                       "@lua": "local text = value:lower()\\nreturn text .. userData",
                       "@reverseLua": "value:sub(1, -2):upper()" },
            "cents": { "@keyPath": "amount", "@optional": true, "@lua": "value * 1", "@reverseLua": "value" },
            "parts": { "@keyPath": { "a": "id", "b": "metadata.order" }, "@optional": true }
          }
        }
        """

    @Test(
        "an expression, statements, a prelude's local function, user data, a selection",
        arguments: [LuaIsolation.inProcess, .process])
    func computes(_ isolation: LuaIsolation) throws {
        let mapper = try Self.mapper(Self.charges, isolation: isolation)
        let result = try mapper.object(
            from: try JSONParser.parse(
                #"{"id":"ch_1","amount":1099,"default_currency":"eur","description":"Tea","metadata":{"order":"o7"}}"#),
            context: "$Charge")
        #expect(result.issues.isEmpty, "\(result.issues)")
        #expect(
            JSONWriter.string(result.value)
                == #"{"id":"ch_1","amount":"10.99 EUR","label":"tea!","cents":1099,"parts":{"a":"ch_1","b":"o7"}}"#)
        // @reverseLua undoes @lua; the forward-only entry is left out, with no issue.
        let back = try mapper.payload(from: result.value, context: "$Charge")
        #expect(back.issues.isEmpty, "\(back.issues)")
        #expect(
            JSONWriter.string(back.value)
                == #"{"id":"ch_1","amount":1099,"description":"TEA","metadata":{"order":"o7"}}"#)
        // The filter drops a failed charge: nothing built, no issue.
        let dropped = try mapper.object(
            from: try JSONParser.parse(#"{"id":"ch_2","amount":5,"status":"failed"}"#), context: "$Charge")
        #expect(dropped.filtered && dropped.issues.isEmpty && dropped.value == .null)
    }

    @Test("a runtime error names the .mappings file's line and the column of the code line")
    func runtimeErrors() throws {
        let text = """
            {
              "$C": {
                "a": { "@keyPath": "a", "@lua": "local x = value\\nreturn x.y.z", "@type": "String" },
                "b": { "@keyPath": "b", "@lua": "error('no ' .. value)", "@type": "String" }
              }
            }
            """
        let mapper = try Self.mapper(text)
        let result = try mapper.object(from: try JSONParser.parse(#"{"a":{},"b":"way"}"#), context: "$C")
        let messages = result.issues.map(\.message)
        // Line 3; the second code line starts after the "\n" escape: column 57.
        let line = text.split(separator: "\n")[2]
        let column = line.distance(from: line.startIndex, to: line.range(of: "return x")!.lowerBound) + 1
        #expect(
            messages.contains { $0.contains("c.mappings:3:\(column): attempt to index a nil value") }, "\(messages)")
        #expect(
            messages.contains { $0.hasPrefix("@lua failed: c.mappings:4:") && $0.hasSuffix("no way") }, "\(messages)")
    }

    @Test("load errors point into the string, with a caret and a suggestion")
    func loadErrors() throws {
        let syntax = Self.loadErrors(
            #"{ "$C": { "a": { "@keyPath": "a", "@lua": "\"q\" .. value +* 2", "@type": "String" } } }"#)
        // The '*' stands after the escaped quotes: its column counts them as written.
        let column = #"{ "$C": { "a": { "@keyPath": "a", "@lua": "\"q\" .. value +"#.count + 1
        #expect(syntax.contains(#""@lua" does not compile: unexpected symbol near '*'"#), "\(syntax)")
        #expect(syntax.contains("c.mappings:1:\(column)"), "\(syntax)")
        #expect(syntax.contains("help:"), "\(syntax)")
        let open = Self.loadErrors(
            #"{ "$C": { "a": { "@keyPath": "a", "@lua": "if value then return 1", "@type": "Int" } } }"#)
        #expect(open.contains("the code ends inside a block (is an `end` missing?)"), "\(open)")
        // An unclosed bracket is said as such, at the bracket; brackets in strings and comments do not count.
        let unclosed = Self.loadErrors(
            #"{ "$C": { "a": { "@keyPath": "a", "@lua": "value:upper(", "@type": "String" } } }"#)
        let bracket = #"{ "$C": { "a": { "@keyPath": "a", "@lua": "value:upper"#.count + 1
        #expect(unclosed.contains("this '(' is not closed (is a ')' missing?)"), "\(unclosed)")
        #expect(unclosed.contains("c.mappings:1:\(bracket)"), "\(unclosed)")
        let table = Self.loadErrors(
            #"{ "$C": { "a": { "@keyPath": "a", "@lua": "{ '(', \"[\", -- )\n value", "@type": "JSON" } } }"#)
        #expect(table.contains("this '{' is not closed (is a '}' missing?)"), "\(table)")
        #expect(InlineChunkProbe.unclosed("f(a[1], [[ ( ]]) .. '('") == nil)
        #expect(InlineChunkProbe.unclosed("f(g(1)") == 1)
        let prelude = Self.loadErrors(
            #"{ "@luaPrelude": "local function f(\n  return 1 end", "$C": { "a": { "@keyPath": "a", "@lua": "f()", "@type": "Int" } } }"#
        )
        #expect(
            prelude.contains(#""@luaPrelude" does not compile"#) && prelude.contains("c.mappings:1:40"), "\(prelude)")
        let both = Self.loadErrors(
            #"{ "$C": { "a": { "@keyPath": "a", "@lua": "value", "@transformClass": "X", "@transformSelector": "y", "@type": "Int" } } }"#
        )
        #expect(
            both.contains(
                #""@lua" and "@transformClass" and "@transformSelector" both say how the value is transformed"#),
            "\(both)")
        let reverse = Self.loadErrors(
            #"{ "$C": { "a": { "@keyPath": "a", "@reverseLua": "value", "@type": "Int" } } }"#)
        #expect(reverse.contains(#""@reverseLua" undoes "@lua", but this entry has none"#), "\(reverse)")
        let selector = Self.loadErrors(
            #"{ "$C": { "a": { "@keyPath": "a", "@lua": "value", "@reverseTransformSelector": "b", "@type": "Int" } } }"#
        )
        #expect(selector.contains(#"did you mean "@reverseLua"?"#), "\(selector)")
        let notCode = Self.loadErrors(#"{ "$C": { "a": { "@keyPath": "a", "@lua": 3, "@type": "Int" } } }"#)
        #expect(notCode.contains(#""@lua" takes Lua code (a string), not a number"#), "\(notCode)")
        let filterInEntry = Self.loadErrors(
            #"{ "$C": { "a": { "@keyPath": "a", "@filter": "true", "@type": "Int" } } }"#)
        #expect(filterInEntry.contains(#"stands at a context's top level"#), "\(filterInEntry)")
        #expect(filterInEntry.contains(#"did you mean "@lua"?"#), "\(filterInEntry)")
        let emptyKey = Self.loadErrors(#"{ "$C": { "a": { "@keyPath": { "": "user.name" }, "@type": "String" } } }"#)
        #expect(emptyKey.contains("a key of a keyed selection is empty"), "\(emptyKey)")
        #expect(emptyKey.contains(#"did you mean "name"?"#), "\(emptyKey)")
        let noKeys = Self.loadErrors(#"{ "$C": { "a": { "@keyPath": { }, "@type": "String" } } }"#)
        #expect(noKeys.contains("this object names none"), "\(noKeys)")
        let badFilter = Self.loadErrors(#"{ "$C": { "@filter": "value.x ==", "a": "a" } }"#)
        #expect(badFilter.contains(#""@filter" does not compile"#), "\(badFilter)")
        // Without Lua scripts in the registry, inline code cannot run: said at load.
        let catalog = Result {
            try Catalog.load(
                ["c.mappings"],
                from: .memory([
                    "c.mappings": #"{ "$C": { "a": { "@keyPath": "a", "@lua": "value", "@type": "Int" } } }"#
                ]))
        }
        guard case .failure(let error) = catalog else { Issue.record("loaded without Lua"); return }
        #expect("\(error)".contains("no Lua scripts to run it in"), "\(error)")
    }

    @Test("log lines of inline code name the .mappings file")
    func logLines() throws {
        let captured = Mutex<[String]>([])
        let log = LuaLog { line in captured.withLock { $0.append(line) } }
        var registry = TransformerRegistry()
        registry.add(LuaScripts(directory: "/nonexistent", limits: LuaLimits(), isolation: .inProcess, log: log))
        let text =
            #"{ "$C": { "a": { "@keyPath": "a", "@lua": "log('seen', value)\nreturn value", "@type": "Int" } } }"#
        let mapper = Mapper(
            catalog: try Catalog.load(["c.mappings"], from: .memory(["c.mappings": text]), transformers: registry))
        _ = try mapper.object(from: ["a": 5], context: "$C")
        let lines = captured.withLock { $0 }
        let column = #"{ "$C": { "a": { "@keyPath": "a", "@lua": ""#.count + 1
        #expect(lines.contains { $0.contains("c.mappings:1:\(column)") && $0.contains("seen") }, "\(lines)")
    }

    @Test("filters: a collection's dropped elements, a failing filter, a typed host's object left alone")
    func filters() throws {
        let text = """
            {
              "@models": { "PR": { "number": "Int", "labels": "[Label]" }, "Label": { "name": "String" } },
              "$PR": { "@class": "PR", "@filter": "not value.draft", "number": "number",
                       "labels": { "@keyPath": "labels", "@optional": true, "@object": { "@class": "Label", "@mappings": "$Label" } } },
              "$Label": { "@class": "Label", "@filter": "value.name ~= 'wip'", "name": "name" },
              "$Failing": { "@class": "Label", "@filter": "value.name:upper() == 'X'", "name": "name" }
            }
            """
        let mapper = try Self.mapper(text)
        let pr = try mapper.object(
            from: try JSONParser.parse(#"{"number":3,"labels":[{"name":"a"},{"name":"wip"},{"name":"b"}]}"#),
            context: "$PR")
        #expect(JSONWriter.string(pr.value) == #"{"number":3,"labels":[{"name":"a"},{"name":"b"}]}"#)
        #expect(pr.issues.map(\.description) == [#"$.labels[1]: info: dropped by "@filter": left out (c.mappings:5)"#])
        #expect(!pr.hasErrors && !pr.filtered)
        let many = try mapper.objects(
            from: try JSONParser.parse(#"[{"number":1},{"number":2,"draft":true}]"#), context: "$PR")
        #expect(JSONWriter.string(many.value) == #"[{"number":1,"labels":null}]"#)
        #expect(many.issues.map(\.path) == ["$[1]"])
        let failing = try mapper.object(from: try JSONParser.parse(#"{"name":3}"#), context: "$Failing")
        #expect(failing.hasErrors && !failing.filtered)
        #expect(failing.issues.first?.message.hasPrefix("@filter failed: c.mappings:6:") == true, "\(failing.issues)")
    }

    /// Records for `$Charge`: values present, missing, null, of other kinds, with fallbacks.
    static func chargeRecords(count: Int, seed: UInt64) -> [[UInt8]] {
        var random = SeededGenerator(seed: seed)
        var records: [[UInt8]] = []
        for index in 0..<count {
            var members: [String] = [#""id":"ch_\#(index)""#]
            switch Int.random(in: 0..<6, using: &random) {
            case 0: members.append(#""amount":\#(Int.random(in: 0...99999, using: &random))"#)
            case 1: members.append(#""amount":null"#)
            case 2: members.append(#""amount":"12""#)
            case 3: break
            default: members.append(#""amount":\#(Int.random(in: 100...999, using: &random))"#)
            }
            switch Int.random(in: 0..<4, using: &random) {
            case 0: members.append(#""currency":"usd""#)
            case 1: members.append(#""default_currency":"gbp""#)
            case 2: members.append(#""currency":null,"default_currency":"chf""#)
            default: break
            }
            if Bool.random(using: &random) { members.append(#""description":"Ta\u00e9 \"x\"""#) }
            switch Int.random(in: 0..<4, using: &random) {
            case 0: members.append(#""metadata":{"order":"o\#(index)"}"#)
            case 1: members.append(#""metadata":"flat""#)
            case 2: members.append(#""metadata":{"order":7}"#)
            default: break
            }
            if Int.random(in: 0..<5, using: &random) == 0 { members.append(#""status":"failed""#) }
            members.shuffle(using: &random)
            records.append(Array(("{" + members.joined(separator: ",") + "}").utf8))
        }
        return records
    }

    @Test(
        "the fast plan and the general engine agree on inline Lua, keyed selections and filters",
        arguments: [LuaIsolation.inProcess, .process])
    func planAgrees(_ isolation: LuaIsolation) throws {
        let mapper = try Self.mapper(Self.charges, isolation: isolation)
        let context = try mapper.context("$Charge")
        let plan = try mapper.fastPlan(for: context).get()
        var outcomes: [FastPlan.Outcome: Int] = [:]
        for record in Self.chargeRecords(count: isolation == .process ? 150 : 600, seed: 0x30) {
            var fast: [UInt8] = []
            let memo = TransformerMemo()
            let outcome = record.withUnsafeBufferPointer {
                plan.write($0, into: &fast, omittingNulls: false, memo: memo, filtering: true)
            }
            outcomes[outcome, default: 0] += 1
            memo.replay()
            let result = try mapper.object(fromJSON: record, using: context, memo: memo)
            let text = String(decoding: record, as: UTF8.self)
            switch outcome {
            case .filtered:
                #expect(result.filtered && result.issues.isEmpty, "\(text)")
            case .written:
                var general: [UInt8] = []
                JSONWriter.write(result.value, into: &general)
                #expect(result.issues.isEmpty && !result.filtered, "\(result.issues) \(text)")
                #expect(String(decoding: fast, as: UTF8.self) == String(decoding: general, as: UTF8.self), "\(text)")
            case .givenBack:
                #expect(fast.isEmpty)
                #expect(result.hasErrors || !result.issues.isEmpty, "given back without an issue: \(text)")
            }
        }
        // Every outcome occurs: the records exercise each path.
        #expect(outcomes.count == 3, "\(outcomes)")
    }

    @Test("Swift hosts: map(…, lua:, selecting:) and filter(_:)")
    func swiftHosts() throws {
        var definitions = Definitions()
        definitions.context("$Total") { total in
            total.filter("value.amount ~= nil")
            total.map(
                "total", type: "String", lua: "string.format('%.2f %s', value.amount / 100, value.currency)",
                selecting: ["amount": "amount", "currency": "currency"])
            total.map("id", from: "id", type: "String", lua: "value:upper()", reverseLua: "value:lower()")
        }
        var registry = TransformerRegistry()
        registry.add(LuaScripts(directory: "/nonexistent"))
        let mapper = Mapper(catalog: try Catalog.load([], transformers: registry, definitions: definitions))
        let result = try mapper.object(from: ["amount": 1250, "currency": "usd", "id": "ab"], context: "$Total")
        #expect(result.issues.isEmpty, "\(result.issues)")
        #expect(JSONWriter.string(result.value) == #"{"total":"12.50 usd","id":"AB"}"#)
        #expect(try mapper.object(from: ["id": "x"], context: "$Total").filtered)
    }

    @Test(
        "a keyed selection built whole: a repeated key inside is the general engine's issue, and a part's path is its own key's"
    )
    func selectionChecks() throws {
        let text = """
            { "@models": { "M": { "meta": "JSON", "pair": "[String: Int]" } },
              "$M": { "@class": "M", "meta": { "@keyPath": { "m": "metadata" } },
                      "pair": { "@keyPath": { "amount": "a", "amount_total": "total" } } } }
            """
        let mapper = try Self.mapper(text)
        let context = try mapper.context("$M")
        let plan = try mapper.fastPlan(for: context).get()
        let repeated = Array(#"{"metadata": {"k": 1, "k": 2}, "a": 1, "total": 2}"#.utf8)
        var out: [UInt8] = []
        #expect(!plan.write(repeated, into: &out, omittingNulls: false), "the plan must give the record back")
        let result = try mapper.object(fromJSON: repeated, using: context)
        #expect(result.issues.contains { $0.kind == .duplicateKey && $0.path == "$.metadata.k" }, "\(result.issues)")
        // "amount_total" is not "amount" followed by more: its failure names $.total.
        let wrong = try mapper.object(
            from: try JSONParser.parse(#"{"metadata": {}, "a": 1, "total": "x"}"#), context: "$M")
        #expect(wrong.issues.map(\.path) == ["$.total"], "\(wrong.issues)")
    }
}

/// The bracket scanner of inline code, as the load error uses it.
enum InlineChunkProbe {
    static func unclosed(_ code: String) -> Int? { InlineChunk.unclosedBracket(in: code)?.1 }
}
