import Foundation
import Testing

@testable import MappingsCompiler
@testable import MappingsJSON

/// What `mappings lsp` reads of a file without loading the workspace: its outline (names
/// declared and referred to, symbols), where a cursor stands in half-typed text, the keywords'
/// help and a script's functions.
@Suite("editor support: outlines and cursor places")
struct SourceOutlineTests {
    static let text = """
        {
            "@import": ["models", "shared/base"],
            "@models": { "Status": ["on", "off"], "User": { "name": "String", "friends": "[User]?", "s": "Status" } },
            "$User": {
                "@class": "User",
                "@inherits": "$Templates.person",
                "name": "login",
                "@when api >= 2": { "s": { "@keyPath": "state", "@transformClass": "Text", "@transformSelector": "upper:x:" } },
                "friends": { "@keyPath": "friends", "@object": { "@mappings": "$User" } },
                "@tests": [ { "name": "t", "input": { "login": "a", "state": "on" }, "output": {} } ]
            },
            "$Shape": { "s": { "@keyPath": "x", "@object": { "@discriminator": "k", "@cases": { "a": "$User" }, "@otherwise": "$Other" } } }
        }
        """

    static func occurrences(_ outline: SourceOutline, _ kind: SourceOutline.NameKind) -> [String] {
        outline.occurrences.filter { $0.kind == kind }.map { "\($0.name)@\($0.location.line):\($0.location.column)" }
    }

    @Test("declarations and references, each at the name inside its quotes")
    func occurrences() {
        let outline = SourceOutline(text: Self.text, file: "a.mappings")
        #expect(outline.parsed)
        #expect(Self.occurrences(outline, .file) == ["models@2:18", "shared/base@2:28"])
        #expect(
            Self.occurrences(outline, .context) == [
                "$User@4:6", "$Templates.person@6:23", "$User@9:72", "$Shape@12:6", "$User@12:95", "$Other@12:120",
            ])
        #expect(
            Self.occurrences(outline, .model) == [
                "Status@3:19", "User@3:44", "User@3:84", "Status@3:99", "User@5:20",
            ])
        #expect(Self.occurrences(outline, .script) == ["Text@8:77"])
        #expect(Self.occurrences(outline, .function(script: "Text")) == ["upper@8:107"])
        let lines = Self.text.split(separator: "\n", omittingEmptySubsequences: false)
        for occurrence in outline.occurrences {
            let line = Array(lines[occurrence.location.line - 1].unicodeScalars)
            let start = occurrence.location.column - 1
            let written = String(String.UnicodeScalarView(line[start..<(start + occurrence.location.length)]))
            #expect(written == occurrence.name, "\(occurrence.name) at \(occurrence.location)")
        }
        let user = outline.contexts.first { $0.name == "$User" }
        #expect(user?.className == "User")
        #expect(user?.entries == ["name", "s", "friends"])
        #expect(user?.testInputs == [.object(JSONObject([("login", "a"), ("state", "on")]))])
        #expect(outline.models.map(\.name) == ["Status", "User"])
        #expect(outline.models[0].enumValues == ["on", "off"])
        #expect(outline.models[1].properties.map(\.type) == ["String", "[User]?", "Status"])
    }

    @Test("symbols: contexts with their class, entries with their key path, selector blocks, models")
    func symbols() {
        let outline = SourceOutline(text: Self.text, file: "a.mappings")
        #expect(outline.symbols.map(\.name) == ["Status", "User", "$User", "$Shape"])
        let user = outline.symbols[2]
        #expect(user.detail == "User")
        #expect(user.children.map(\.name) == ["name", "@when api >= 2", "friends"])
        #expect(user.children[0].detail == "login")
        #expect(user.children[1].children.map(\.name) == ["s"])
        #expect(user.end.line == 10)
    }

    @Test("a file that does not parse: no outline, the parser's diagnostic, no crash")
    func broken() {
        let outline = SourceOutline(text: "{ \"$A\": { \"@class\": ", file: "b.mappings")
        #expect(!outline.parsed)
        #expect(outline.symbols.isEmpty)
        #expect(outline.diagnostics.first?.message.hasPrefix("unexpected end of file") == true)
    }

    @Test("the cursor's place in half-typed text: the keys around it, key or value, the text typed")
    func places() {
        let text = """
            {
                "$User": {
                    "@class": "Us
            """
        var place = CursorPlace(text: text, line: 3, column: 22)
        #expect(place.path == ["$User"])
        #expect(place.role == .value && place.key == "@class")
        #expect(place.inString && place.prefix == "Us" && place.startColumn == 20)
        place = CursorPlace(text: text + "er\",\n        \"na", line: 4, column: 12)
        #expect(place.role == .key && place.path == ["$User"] && place.prefix == "na")
        let cases = "{ \"$A\": { \"tags\": { \"@object\": { \"@cases\": { \"x\": \"$"
        place = CursorPlace(text: cases, line: 1, column: cases.unicodeScalars.count + 1)
        #expect(place.path == ["$A", "tags", "@object", "@cases"] && place.key == "x" && place.prefix == "$")
        place = CursorPlace(text: "{ \"@import\": [\"a\", \"", line: 1, column: 21)
        #expect(place.role == .value && place.key == "@import" && place.path == ["@import"])
        // Comments and escaped quotes do not confuse it.
        place = CursorPlace(text: "{ // \"x\": {\n \"a\\\"b\": /* { */ \"", line: 2, column: 19)
        #expect(place.role == .value && place.key == "a\"b" && place.path.isEmpty)
        place = CursorPlace(text: "{ \"a\": 1, // note", line: 1, column: 18)
        #expect(place.path.isEmpty && place.key == nil)
    }

    @Test("every prefix of every shipped file: outlined and placed without a crash")
    func prefixes() throws {
        let root = FormatterTests.root
        var files: [String] = []
        for folder in ["contexts", "Examples/language", "Examples/twitter"] {
            let names = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(folder).path)
            files += names.filter { $0.hasSuffix(".mappings") }.map { "\(folder)/\($0)" }
        }
        #expect(files.count > 10)
        for file in files {
            let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
            let scalars = Array(text.unicodeScalars)
            for cut in stride(from: 0, to: scalars.count, by: 23) {
                let prefix = String(String.UnicodeScalarView(scalars[..<cut]))
                let outline = SourceOutline(text: prefix, file: file)
                #expect(outline.parsed == false || cut == 0 || outline.symbols.count >= 0)
                let lines = prefix.split(separator: "\n", omittingEmptySubsequences: false)
                let place = CursorPlace(
                    text: prefix, line: lines.count, column: (lines.last?.unicodeScalars.count ?? 0) + 1)
                #expect(place.path.count <= 64)
            }
            let whole = SourceOutline(text: text, file: file)
            #expect(whole.parsed, "\(file)")
        }
    }

    @Test("every keyword has help, with the heading of docs/language.md that explains it")
    func keywordHelp() throws {
        let language = try String(
            contentsOf: FormatterTests.root.appendingPathComponent("docs/language.md"), encoding: .utf8)
        let headings = Set(
            language.split(separator: "\n").filter { $0.hasPrefix("#") }.map {
                $0.drop(while: { $0 == "#" || $0 == " " }).replacingOccurrences(of: "`", with: "")
            })
        for keyword in Keywords.all.sorted() + ["@when api == 2", "@debug"] {
            let entry = try #require(KeywordHelp.entry(keyword), "\(keyword) has no help")
            #expect(headings.contains(entry.section), "\(keyword): no heading \"\(entry.section)\"")
            #expect(KeywordHelp.markdown(keyword)?.contains("docs/language.md") == true)
        }
        #expect(KeywordHelp.entry("@optinal") == nil)
    }

    @Test("a script's functions, with the comment above each")
    func luaOutline() {
        let outline = LuaOutline(
            text: """
                local M = {}
                -- Upper-cases.
                --   Strings only.
                function M.upper(value, userData)
                end
                local function helper() end
                M.lower = function(value) end
                function M:method(a) end
                """)
        #expect(outline.functions.map(\.name) == ["upper", "helper", "lower", "method"])
        #expect(outline.functions[0].documentation == "Upper-cases.\nStrings only.")
        #expect(outline.functions[0].parameters == "value, userData")
        #expect(outline.functions[0].line == 4 && outline.functions[0].column == 12)
        #expect(outline.functions[2].line == 7 && outline.functions[2].column == 3)
        #expect(outline.functions[1].documentation.isEmpty)
    }
}
