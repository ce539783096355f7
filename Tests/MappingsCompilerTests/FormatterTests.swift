import Foundation
import MappingsTestSupport
import Testing

@testable import MappingsCompiler
@testable import MappingsJSON

/// `mappings fmt`'s layout: every shipped `.mappings` file and the loader fuzzer's corpus
/// formatted read back as the same syntax tree, with the same comments in the same order, and
/// formatting again changes nothing.
@Suite("the one layout of .mappings files")
struct FormatterTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The syntax tree of `text` as JSON (nil when it does not parse).
    static func tree(_ text: String) -> JSONValue? {
        var parser = SyntaxParser(bytes: Array(text.utf8), file: "f.mappings")
        return parser.parse()?.jsonValue
    }

    /// The comments of `text`, in order.
    static func comments(_ text: String) -> [String] {
        (MappingsFormatter.tokenize(Array(text.utf8)) ?? []).filter { $0.kind == .comment }.map(\.text)
    }

    /// `tree` with each selector in the form `fmt` writes: the function's name, up to its first `:`.
    static func canonicalSelectors(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let object):
            return .object(
                JSONObject(
                    object.members.map { key, value in
                        if key == "@transformSelector" || key == "@reverseTransformSelector",
                            case .string(let text) = value,
                            let colon = text.firstIndex(of: ":"), colon != text.startIndex
                        {
                            return (key, .string(String(text[..<colon])))
                        }
                        return (key, canonicalSelectors(value))
                    }))
        case .array(let elements): return .array(elements.map(canonicalSelectors))
        default: return value
        }
    }

    /// `significant`'s tokens with each selector's string in the form `fmt` writes.
    static func canonicalSelectors(_ tokens: [String]) -> [String] {
        var tokens = tokens
        for index in tokens.indices
        where tokens[index] == "\"@transformSelector\"" || tokens[index] == "\"@reverseTransformSelector\"" {
            var next = index + 1
            while next < tokens.count, tokens[next].hasPrefix("/") || tokens[next] == ":" { next += 1 }
            guard next < tokens.count, tokens[next].hasPrefix("\""), let colon = tokens[next].firstIndex(of: ":"),
                tokens[next].index(after: tokens[next].startIndex) < colon
            else { continue }
            tokens[next] = String(tokens[next][..<colon]) + "\""
        }
        return tokens
    }

    /// The tokens of `text` but its commas, comments included: a comment stands where it stood
    /// when it has the same tokens on either side.
    static func significant(_ text: String) -> [String] {
        (MappingsFormatter.tokenize(Array(text.utf8)) ?? []).filter { $0.kind != .comma }.map(\.text)
    }

    static func expectRoundTrip(
        _ text: String, _ name: String, sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) {
        guard let original = tree(text).map(canonicalSelectors) else { return }
        guard let formatted = MappingsFormatter.format(text) else {
            Issue.record("\(name): parses, but the formatter refused it", sourceLocation: sourceLocation)
            return
        }
        #expect(tree(formatted) == original, "\(name)\n\(formatted)", sourceLocation: sourceLocation)
        #expect(comments(formatted) == comments(text), "\(name)", sourceLocation: sourceLocation)
        #expect(
            significant(formatted) == canonicalSelectors(significant(text)),
            "\(name): a comment moved\n\(text)\n\(formatted)",
            sourceLocation: sourceLocation)
        #expect(
            MappingsFormatter.format(formatted) == formatted, "\(name): not idempotent", sourceLocation: sourceLocation)
    }

    @Test("a selector is written in its canonical form: the function's name, up to its first ':'")
    func canonicalSelector() {
        let text = """
            { "$A": { "a": { "@transformClass": "T", "@transformSelector": "countLabels:", "@reverseTransformSelector": "back:userData:error:" },
              "b": { "@transformClass": "T", "@transformSelector": ":odd" }, "c": "x:y" } }
            """
        let formatted = MappingsFormatter.format(text) ?? ""
        #expect(formatted.contains(#""@transformSelector": "countLabels""#), "\(formatted)")
        #expect(formatted.contains(#""@reverseTransformSelector": "back""#), "\(formatted)")
        // No name before the colon: left as written (the loader reports it); other strings untouched.
        #expect(formatted.contains(#""@transformSelector": ":odd""#), "\(formatted)")
        #expect(formatted.contains(#""c": "x:y""#), "\(formatted)")
        #expect(MappingsFormatter.format(formatted) == formatted)
    }

    @Test("every shipped .mappings file: laid out by fmt, the same tree and comments, idempotent")
    func shippedFiles() throws {
        var count = 0
        for folder in ["contexts", "Examples", "Benchmarks/contexts", "Benchmarks/contexts-inline"] {
            let directory = Self.root.appendingPathComponent(folder)
            let files = FileManager.default.enumerator(atPath: directory.path)?.compactMap { $0 as? String } ?? []
            for file in files where file.hasSuffix(".mappings") {
                let text = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
                Self.expectRoundTrip(text, "\(folder)/\(file)")
                #expect(
                    MappingsFormatter.format(text) == text,
                    "\(folder)/\(file) is not laid out as 'mappings fmt' lays it out: run it")
                count += 1
            }
        }
        #expect(count > 20)
    }

    @Test("the loader fuzzer's seeds, and 3,000 mutations of them that still parse")
    func fuzzCorpus() {
        var random = SeededGenerator(seed: 0xF0_2031)
        var parsed = 0
        for seed in FuzzTests.seeds { Self.expectRoundTrip(seed, "seed") }
        for iteration in 0..<3000 {
            var bytes = Array(FuzzTests.seeds[iteration % FuzzTests.seeds.count].utf8)
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                let position = Int.random(in: 0..<bytes.count, using: &random)
                let fragment = Array(FuzzTests.fragments.randomElement(using: &random)!.utf8)
                if Bool.random(using: &random) {
                    bytes.insert(contentsOf: fragment, at: position)
                } else {
                    bytes.removeSubrange(position..<min(bytes.count, position + Int.random(in: 1...8, using: &random)))
                }
            }
            let text = String(decoding: bytes, as: UTF8.self)
            if Self.tree(text) != nil { parsed += 1 }
            Self.expectRoundTrip(text, "mutation \(iteration)")
        }
        #expect(parsed > 100, "\(parsed) mutations parsed")
    }

    @Test("a comment anywhere the parser takes one stays there: between a key, its colon, its value and its comma")
    func commentsEverywhere() throws {
        let text = """
            { "$A" /* k */ : /* v */ { "x" // why
              : "y" /* after */ , // trailing
              "z": [1 /* one */, 2 // two
              , 3], "w": { /* empty */ } } }
            """
        Self.expectRoundTrip(text, "every place")
        let formatted = try #require(MappingsFormatter.format(text))
        #expect(formatted.contains(#""$A" /* k */: /* v */ {"#), "\(formatted)")
        #expect(formatted.contains(#": "y" /* after */, // trailing"#), "\(formatted)")
        #expect(formatted.contains("1 /* one */,"), "\(formatted)")
    }

    /// Every shipped file, with comments of both kinds put between random pairs of its tokens
    /// (where the parser takes them): laid out with each comment between the same tokens.
    @Test("comments put between any two tokens of the shipped files stay between them")
    func commentsBetweenTokens() throws {
        var random = SeededGenerator(seed: 0xC0_33E7)
        var files: [String] = FuzzTests.seeds
        for folder in ["contexts", "Examples"] {
            let directory = Self.root.appendingPathComponent(folder)
            let names = FileManager.default.enumerator(atPath: directory.path)?.compactMap { $0 as? String } ?? []
            for name in names.sorted() where name.hasSuffix(".mappings") {
                files.append(try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8))
            }
        }
        var checked = 0
        for (index, file) in files.enumerated() {
            guard let tokens = MappingsFormatter.tokenize(Array(file.utf8)), Self.tree(file) != nil else { continue }
            for round in 0..<4 {
                var out = ""
                for (position, token) in tokens.enumerated() {
                    if position > 0, Int.random(in: 0..<6, using: &random) == 0 {
                        out += Bool.random(using: &random) ? " /* c\(position) */ " : " // c\(position)\n"
                    }
                    out += String(repeating: "\n", count: token.newlines) + " " + token.text
                }
                Self.expectRoundTrip(out, "file \(index), round \(round)")
                checked += 1
            }
        }
        #expect(checked > 100)
    }

    @Test("a file that is not valid UTF-8 is not laid out: its bytes would change")
    func invalidUTF8() {
        let bytes = Array("{\n  // a comment ".utf8) + [0xFF] + Array(" here\n  \"$A\": {}\n}\n".utf8)
        #expect(MappingsFormatter.format(bytes) == nil)
        #expect(MappingsFormatter.invalidUTF8(in: bytes)! == (2, 16))
        #expect(MappingsFormatter.invalidUTF8(in: Array("{}".utf8)) == nil)
    }

    @Test("the layout: four spaces, one member a line above, short values on one line, comments where they stand")
    func layout() {
        let text = """
            // head
            {"$A":{"@class":"A",   "n":"n", // the count
            "m":{"@keyPath":"m","@optional":true},

              /* block */ "o":["a","b",],},"@models":{"A":{"n":"Int","m":"Int?","o":"[String]"}}}
            """
        let expected = """
            // head
            {
                "$A": {
                    "@class": "A",
                    "n": "n", // the count
                    "m": { "@keyPath": "m", "@optional": true },

                    /* block */
                    "o": ["a", "b"]
                },
                "@models": {
                    "A": { "n": "Int", "m": "Int?", "o": "[String]" }
                }
            }

            """
        #expect(MappingsFormatter.format(text) == expected)
        #expect(MappingsFormatter.format(#"{ "a": "#) == nil)
    }
}
