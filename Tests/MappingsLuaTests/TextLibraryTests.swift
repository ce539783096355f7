import Foundation
import Mappings
import MappingsLua
import MappingsTestSupport
import Testing

/// The sandbox's `text` library (docs/lua.md, "Text"): Unicode case, normalization, characters
/// and trimming, in both isolations; checked against written-out cases, against Swift's own
/// String on random strings, and against Unicode's conformance files when the machine has them.
@Suite("the text library")
struct TextLibraryTests {
    /// A script whose `f` returns `expression` of its value (a string).
    static func fixture(_ expression: String, isolation: LuaIsolation = .inProcess, limits: LuaLimits? = nil)
        throws -> LuaFixture
    {
        try LuaFixture(
            ["T.lua": "return { f = function(value)\n  return \(expression)\nend }"], entries: ["v": "T.f"],
            limits: limits ?? LuaFixture.testLimits, isolation: isolation)
    }

    /// `expression` applied to the string `input` (through `value.s`).
    static func run(_ expression: String, _ input: String, isolation: LuaIsolation = .inProcess) throws -> (
        output: JSONValue?, issues: [String]
    ) {
        let fixture = try fixture(expression, isolation: isolation)
        defer { fixture.remove() }
        return try mapped(fixture, .object(JSONObject([("s", .string(input))])))
    }

    /// What `fixture` maps `input` to: the value of its `v`, and the issues.
    static func mapped(_ fixture: LuaFixture, _ input: JSONValue) throws -> (output: JSONValue?, issues: [String]) {
        let (output, issues) = try fixture.map(input)
        guard case .object(let object) = try JSONParser.parse(output) else { return (nil, issues) }
        return (object["v"], issues)
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var expression: String
        var input: String
        var expected: JSONValue
        var testDescription: String { "\(expression) of \(input.unicodeScalars.map { String($0.value, radix: 16) })" }
        init(_ expression: String, _ input: String, _ expected: String) {
            (self.expression, self.input, self.expected) = (expression, input, .string(expected))
        }
        init(_ expression: String, _ input: String, _ expected: Int) {
            (self.expression, self.input, self.expected) = (expression, input, .integer(Int64(expected)))
        }
    }

    static let cases: [Case] = [
        Case("text.upper(value.s)", "café", "CAFÉ"),
        Case("text.upper(value.s)", "straße", "STRASSE"),
        Case("text.upper(value.s)", "ﬁx", "FIX"),
        Case("text.upper(value.s)", "ǆemal", "ǄEMAL"),
        Case("text.upper(value.s)", "ωμέγα", "ΩΜΈΓΑ"),
        Case("text.upper(value.s)", "日本語 😀", "日本語 😀"),
        Case("text.lower(value.s)", "ÀÉÎÕÜ", "àéîõü"),
        Case("text.lower(value.s)", "İ", "i\u{307}"),
        Case("text.lower(value.s)", "ΣΟΦΙΑ", "σοφια"),
        Case("text.lower(value.s)", "ПРИВЕТ", "привет"),
        Case("string.upper(value.s)", "café", "CAFé"),
        Case(#"text.normalize(value.s, "NFC")"#, "e\u{301}", "\u{e9}"),
        Case(#"text.normalize(value.s)"#, "e\u{301}", "\u{e9}"),
        Case(#"text.normalize(value.s, "NFD")"#, "\u{e9}", "e\u{301}"),
        Case(#"text.normalize(value.s, "NFD")"#, "한", "\u{1112}\u{1161}\u{11AB}"),
        Case(#"text.normalize(value.s, "NFC")"#, "\u{1112}\u{1161}\u{11AB}", "한"),
        Case(#"text.normalize(value.s, "NFD")"#, "a\u{301}\u{316}", "a\u{316}\u{301}"),
        Case(#"text.normalize(value.s, "NFC")"#, "a\u{316}\u{301}", "\u{e1}\u{316}"),
        Case(#"text.normalize(value.s, "NFC")"#, "a\u{301}\u{301}", "\u{e1}\u{301}"),
        Case(#"text.normalize(value.s, "NFC")"#, "\u{212B}", "\u{c5}"),
        Case(#"text.normalize(value.s, "NFD")"#, "\u{1E69}", "s\u{323}\u{307}"),
        Case(#"text.normalize(value.s, "NFC")"#, "s\u{307}\u{323}", "\u{1E69}"),
        Case(#"text.normalize(value.s, "NFC")"#, "\u{0958}", "\u{915}\u{93C}"),
        Case(#"text.normalize(value.s, "NFC")"#, "plain ascii", "plain ascii"),
        Case("text.len(value.s)", "abc", 3),
        Case("text.len(value.s)", "", 0),
        Case("text.len(value.s)", "e\u{301}te\u{301}", 3),
        Case("text.len(value.s)", "👨‍👩‍👧‍👦", 1),
        Case("text.len(value.s)", "🇫🇷🇩🇪🇯", 3),
        Case("text.len(value.s)", "👍🏽!", 2),
        Case("text.len(value.s)", "a\r\nb", 3),
        Case("text.len(value.s)", "\u{1112}\u{1161}\u{11AB}\u{1100}\u{116E}", 2),
        Case("text.len(value.s)", "한국어", 3),
        Case("#value.s", "한국어", 9),
        Case("text.sub(value.s, 2, 3)", "he\u{301}llo", "e\u{301}l"),
        Case("text.sub(value.s, -2)", "naïve 👨‍👩‍👧!", "👨‍👩‍👧!"),
        Case("text.sub(value.s, 1, -3)", "caf\u{e9}s", "caf"),
        Case("text.sub(value.s, 5)", "abc", ""),
        Case("text.sub(value.s, 0)", "abc", "abc"),
        Case("text.sub(value.s, -10, 2)", "abc", "ab"),
        Case("text.sub(value.s, 3, 2)", "abc", ""),
        Case("text.trim(value.s)", " \t\u{A0}\u{3000}héllo wörld\u{2003}\n", "héllo wörld"),
        Case("text.trim(value.s)", " \u{85} ", ""),
        Case("text.trim(value.s)", "x", "x"),
        Case("text.unicode", "", "15.0.0"),
    ]

    @Test("each function on written-out cases, in both isolations", arguments: cases, LuaIsolation.allCases)
    func writtenOut(_ row: Case, isolation: LuaIsolation) throws {
        let (output, issues) = try Self.run(row.expression, row.input, isolation: isolation)
        #expect(issues == [])
        #expect(Self.same(output, row.expected), "\(String(describing: output))")
    }

    /// Whether two values are the same, strings code point for code point (Swift's `==` on
    /// strings holds canonically equivalent ones equal: "é" and "e\u{301}").
    static func same(_ a: JSONValue?, _ b: JSONValue) -> Bool {
        if case .string(let x) = a, case .string(let y) = b {
            return Array(x.unicodeScalars) == Array(y.unicodeScalars)
        }
        return a == b
    }

    @Test(
        "a string that is not UTF-8 is an issue naming the byte and the script's line, not a crash",
        arguments: ["upper", "lower", "normalize", "len", "trim"], LuaIsolation.allCases)
    func invalid(_ function: String, isolation: LuaIsolation) throws {
        for (bytes, at) in [("'ab\\xff'", 3), ("'\\xc3'", 1), ("'x\\xed\\xa0\\x80'", 2), ("'\\xc0\\x80'", 1)] {
            let (output, issues) = try Self.run("text.\(function)(\(bytes))", "", isolation: isolation)
            #expect(output == nil)
            #expect(issues.count == 1)
            #expect(issues.first?.contains("T.lua:2") == true, "\(issues)")
            #expect(
                issues.first?.contains("text.\(function): the string is not UTF-8 at byte \(at)") == true, "\(issues)")
        }
        let (_, issues) = try Self.run(#"text.normalize("x", "NFKC")"#, "", isolation: isolation)
        #expect(issues.first?.contains(#"the form is "NFC" or "NFD", not "NFKC""#) == true, "\(issues)")
    }

    @Test(
        "the instruction budget stops a long string, and the next call on the same interpreter is right",
        arguments: ["upper", "lower", "normalize", "len", "trim"], LuaIsolation.allCases)
    func budget(_ function: String, isolation: LuaIsolation) throws {
        // 4.4 MB of "é": 2.2 million code points against a budget of 2 million a value.
        let fixture = try Self.fixture(
            "value.long and text.\(function)(string.rep('\u{e9}', 2200000)) or text.\(function)('caf\u{e9}')",
            isolation: isolation)
        defer { fixture.remove() }
        let started = ContinuousClock.now
        let stopped = try Self.mapped(fixture, .object(JSONObject([("long", .bool(true))])))
        #expect(ContinuousClock.now - started < .seconds(2))
        #expect(stopped.issues.count == 1)
        let message = stopped.issues.first ?? ""
        #expect(message.contains("instruction budget") || message.contains("deadline"), "\(message)")
        let next = try Self.mapped(fixture, .object(JSONObject()))
        #expect(next.issues.isEmpty)
        let expected = ["upper": "CAFÉ", "lower": "café", "normalize": "café", "trim": "café"][function]
        #expect(Self.same(next.output, expected.map { .string($0) } ?? .integer(4)))
    }

    /// Code points that exercise the tables: marks of several classes, precomposed letters,
    /// Hangul syllables and jamo, Greek, Cyrillic, ligatures, CJK, emoji parts, spaces.
    static let pool: [Unicode.Scalar] = {
        let values: [UInt32] =
            [0x61, 0x41, 0x65, 0x45, 0x73, 0x6F, 0x20, 0xDF, 0xE9, 0xC5, 0x212B, 0x1E69, 0x1E0B, 0xFB01, 0x149]
            + [0x300, 0x301, 0x302, 0x303, 0x308, 0x316, 0x323, 0x327, 0x328, 0x345, 0x5B0, 0x5B7, 0x93C, 0x94D]
            + [0x3A3, 0x3C3, 0x3C2, 0x390, 0x1F00, 0x1F80, 0x41F, 0x439, 0x419, 0x130, 0x131, 0x1C5, 0x1E9E]
            + [0xAC00, 0xAC01, 0xD55C, 0x1100, 0x1161, 0x11A8, 0x1112, 0x116E, 0x11AB, 0x3042, 0x304C, 0x3099]
            + [0x65E5, 0x672C, 0x1F600, 0x1F468, 0x200D, 0x1F469, 0x1F3FD, 0x1F1EB, 0x1F1F7, 0xFE0F, 0xA0, 0x3000]
        return values.compactMap(Unicode.Scalar.init)
    }()

    @Test("random strings: the same as Swift's String (case, NFC, NFD, characters), and the forms are stable")
    func randomStrings() throws {
        var random = SeededGenerator(seed: 45)
        var inputs: [String] = []
        for _ in 0..<400 {
            var scalars = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 0...12, using: &random) {
                scalars.append(Self.pool[Int.random(in: 0..<Self.pool.count, using: &random)])
            }
            inputs.append(String(scalars))
        }
        let fixture = try LuaFixture(
            [
                "T.lua": """
                return { f = function(value)
                  local out = json.array()
                  for i = 1, #value.s do
                    local s = value.s[i]
                    local nfc, nfd = text.normalize(s, "NFC"), text.normalize(s, "NFD")
                    out[#out + 1] = { text.upper(s), text.lower(s), nfc, nfd, text.len(s),
                      text.normalize(nfd, "NFC") == nfc and text.normalize(nfc, "NFD") == nfd
                        and text.normalize(nfc, "NFC") == nfc and text.len(nfc) == text.len(s) }
                  end
                  return out
                end }
                """
            ], entries: ["v": "T.f"],
            limits: LuaLimits(memory: 64 << 20, instructions: 200_000_000, timeout: .seconds(20)))
        defer { fixture.remove() }
        let (output, issues) = try Self.mapped(
            fixture, .object(JSONObject([("s", .array(inputs.map { .string($0) }))])))
        #expect(issues.isEmpty, "\(issues)")
        guard case .array(let rows) = output, rows.count == inputs.count else {
            Issue.record("no rows: \(String(describing: output))")
            return
        }
        for (input, row) in zip(inputs, rows) {
            guard case .array(let values) = row, values.count == 6 else {
                Issue.record("row \(row)")
                continue
            }
            let scalars = input.unicodeScalars.map { String($0.value, radix: 16) }
            #expect(Self.same(values[0], .string(input.uppercased())), "upper \(scalars)")
            #expect(Self.same(values[1], .string(input.lowercased())), "lower \(scalars)")
            // Foundation's NFC leaves a precomposed LV syllable and a trailing jamo apart (가 + ᆨ
            // stays two, where Unicode composes 각); from the decomposed form it composes them.
            let composed = input.decomposedStringWithCanonicalMapping.precomposedStringWithCanonicalMapping
            #expect(Self.same(values[2], .string(composed)), "NFC \(scalars)")
            #expect(Self.same(values[3], .string(input.decomposedStringWithCanonicalMapping)), "NFD \(scalars)")
            #expect(values[4] == .integer(Int64(input.count)), "len \(scalars)")
            #expect(values[5] == .bool(true), "stable forms \(scalars)")
        }
    }

    /// Unicode's own conformance files, from Debian's unicode-data (tools/ensure-dependencies
    /// installs it; they are read where they are, never copied here).
    static let unicodeFolder = ProcessInfo.processInfo.environment["UNICODE_DATA"] ?? "/usr/share/unicode"

    static func conformanceLines(_ name: String) throws -> [String] {
        let path = "\(unicodeFolder)/\(name)"
        if name.hasSuffix(".bz2") {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["bzcat", path]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
        }
        return try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
    }

    static func scalars(_ field: Substring) -> String {
        var out = String.UnicodeScalarView()
        for hex in field.split(separator: " ") { out.append(Unicode.Scalar(UInt32(hex, radix: 16)!)!) }
        return String(out)
    }

    /// Runs `check` (Lua that sets `ok` for the case `c`) on every case of `cases` in one call,
    /// and expects it true for each; the first failing cases are named by their place.
    static func expectConformance(_ check: String, cases: [JSONValue]) throws {
        let fixture = try LuaFixture(
            [
                "T.lua": """
                return { f = function(value)
                  local failed = json.array()
                  for i = 1, #value.cases do
                    local c, ok = value.cases[i], true
                \(check)
                    if not ok and #failed < 10 then failed[#failed + 1] = i end
                  end
                  return failed
                end }
                """
            ], entries: ["v": "T.f"],
            limits: LuaLimits(memory: 256 << 20, instructions: 2_000_000_000, timeout: .seconds(60)))
        defer { fixture.remove() }
        let (value, issues) = try mapped(fixture, .object(JSONObject([("cases", .array(cases))])))
        #expect(issues == [])
        #expect(value == .array([]), "the first cases that fail (1-based): \(String(describing: value))")
    }

    @Test(
        "NormalizationTest.txt: every line's NFC and NFD",
        .enabled(if: FileManager.default.fileExists(atPath: "\(unicodeFolder)/NormalizationTest.txt.bz2")))
    func normalizationConformance() throws {
        var cases: [JSONValue] = []
        for line in try Self.conformanceLines("NormalizationTest.txt.bz2") {
            if line.hasPrefix("#") || line.hasPrefix("@") { continue }
            let fields = line.split(separator: ";", omittingEmptySubsequences: false)
            guard fields.count >= 5 else { continue }
            cases.append(.array(fields[0..<5].map { .string(Self.scalars($0)) }))
        }
        #expect(cases.count > 19_000)
        // c2 == NFC(c1) == NFC(c2) == NFC(c3), c4 == NFC(c4) == NFC(c5);
        // c3 == NFD(c1) == NFD(c2) == NFD(c3), c5 == NFD(c4) == NFD(c5).
        try Self.expectConformance(
            """
                for k = 1, 3 do
                  ok = ok and text.normalize(c[k], "NFC") == c[2] and text.normalize(c[k], "NFD") == c[3]
                end
                for k = 4, 5 do
                  ok = ok and text.normalize(c[k], "NFC") == c[4] and text.normalize(c[k], "NFD") == c[5]
                end
            """, cases: cases)
    }

    @Test(
        "GraphemeBreakTest.txt: every line's characters, counted and cut",
        .enabled(if: FileManager.default.fileExists(atPath: "\(unicodeFolder)/auxiliary/GraphemeBreakTest.txt")))
    func graphemeConformance() throws {
        var cases: [JSONValue] = []
        for line in try Self.conformanceLines("auxiliary/GraphemeBreakTest.txt") {
            let content = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
            guard content.contains("÷") else { continue }
            // Lines with surrogates cannot be UTF-8: they are left out.
            let tokens = content.split(whereSeparator: { $0 == " " || $0 == "\t" })
            if tokens.contains(where: {
                (UInt32($0, radix: 16) ?? 0) >= 0xD800 && (UInt32($0, radix: 16) ?? 0) < 0xE000
            }) {
                continue
            }
            var characters: [JSONValue] = []
            var current = String.UnicodeScalarView()
            for token in tokens {
                if token == "÷" {
                    if !current.isEmpty { characters.append(.string(String(current))) }
                    current = String.UnicodeScalarView()
                } else if token != "×" {
                    current.append(Unicode.Scalar(UInt32(token, radix: 16)!)!)
                }
            }
            let whole = characters.map { if case .string(let s) = $0 { s } else { "" } }.joined()
            cases.append(.array([.string(whole), .array(characters)]))
        }
        #expect(cases.count > 500)
        try Self.expectConformance(
            """
                local whole, characters = c[1], c[2]
                ok = text.len(whole) == #characters
                for k = 1, #characters do
                  ok = ok and text.sub(whole, k, k) == characters[k]
                    and text.sub(whole, -k, -k) == characters[#characters - k + 1]
                end
            """, cases: cases)
    }
}
