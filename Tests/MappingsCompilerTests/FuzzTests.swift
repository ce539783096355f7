import Mappings
import MappingsTestSupport
import Testing

@Suite("fuzzing the loader")
struct FuzzTests {
    static let seeds = [
        """
        // models
        { "@models": { "User": { "name": "String", "tags": "[String]?" }, "Tweet": { "user": "User", "n": "Int" } },
          "@import": ["b", "c.mappings"],
          "$User": { "@class": "User", "name": { "@keyPath": ["user.name", "user.screen\\\\.name", "\\\\@x.\\\\-1"] },
                     "tags": { "@keyPath": "t.@first", "@optional": true } },
          "$Tweet": { "@class": "Tweet", "user": { "@keyPath": "user", "@object": { "@mappings": "$User" } },
                      "n": { "@keyPath": "count", "@defaultValue": 3 }, },
          "@when v >= 2": { "$V2": { "@inherits": ["$User", "$B.x"] } },
          /* block */ "$Json": { "when": { "@keyPath": "d", "@type": "Date" } }
        }
        """,
        """
        { "@import": "a", "$B": { "x": { "y": "z" }, "@inherits": "$C" }, "@debug": { "$D": {} } }
        """,
        """
        { "$C": { "@inherits": "$B", "q": { "@transformClass": "T", "@transformSelector": "f:", "@transformUserData": [1, {}] } },
          "@ios >= 7": { "$C": { "w": "@self" } } }
        """,
    ]

    static let fragments = [
        "{", "}", "[", "]", ",", ":", "\"", "\"@inherits\": \"$User\"", "\"@import\": \"a\"", "\"$A\"", "//", "/*",
        "*/",
        "\"@when v > 1\": {", "\"@class\": \"User\"", "\"@object\": {", "null", "true", "1e9", "-", "\\u",
        "\"@models\"",
        "\"x\": \"a.b.@count\"", "\"@keyPath\": [\"a\\\\.b\", ", "\\\\", "\u{00E9}", "\n", "\"@defaultValue\": [",
        "\"$Tweet\"", "@", ".", "?", "\"[String:\"", "\"@keyStyle\": \"snake_case\",", "\"@keyStyle\": ",
        "\"@lua\": \"value\",", "\"@reverseLua\": \"value\",", "\"@filter\": \"true\",",
        "\"@luaPrelude\": \"local x = 1\",", "\"@keyPath\": { \"a\": \"b\" },", "\"@keyPath\": {", "\"\": \"x\",",
    ]

    func mutate(_ text: String, _ random: inout SeededGenerator) -> String {
        var bytes = Array(text.utf8)
        for _ in 0..<Int.random(in: 1...6, using: &random) {
            let position = bytes.isEmpty ? 0 : Int.random(in: 0..<bytes.count, using: &random)
            switch Int.random(in: 0..<5, using: &random) {
            case 0 where !bytes.isEmpty:
                bytes[position] = UInt8.random(in: 0...255, using: &random)
            case 1 where !bytes.isEmpty:
                let end = min(bytes.count, position + Int.random(in: 1...20, using: &random))
                bytes.removeSubrange(position..<end)
            case 2:
                bytes.insert(contentsOf: Array(Self.fragments.randomElement(using: &random)!.utf8), at: position)
            case 3 where bytes.count > 10:
                let start = Int.random(in: 0..<bytes.count - 5, using: &random)
                let slice = bytes[start..<min(bytes.count, start + Int.random(in: 1...40, using: &random))]
                bytes.insert(contentsOf: slice, at: position)
            default:
                bytes.insert(UInt8.random(in: 0...127, using: &random), at: position)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `seed` mutated, and on even iterations one of `fragments` inserted at a random place:
    /// what the fuzz tests of a keyword feed the loader.
    func mutate(
        _ seed: String, inserting fragments: [String], iteration: Int, _ random: inout SeededGenerator
    ) -> String {
        var text = mutate(seed, &random)
        if iteration % 2 == 0, let fragment = fragments.randomElement(using: &random) {
            let position = Int.random(in: 0...text.utf8.count, using: &random)
            var bytes = Array(text.utf8)
            bytes.insert(contentsOf: Array(fragment.utf8), at: position)
            text = String(decoding: bytes, as: UTF8.self)
        }
        return text
    }

    /// Loads 2000 mutations of `seed` (with `fragments` inserted) as `file`, hands each catalog
    /// that loads to `check`, and expects every failure to be a `MappingsError` whose
    /// diagnostics all have a place; returns how many failed to load.
    func loadMutations(
        of seed: String, inserting fragments: [String], randomSeed: UInt64, file: String,
        check: (Catalog, Int) throws -> Void = { _, _ in }
    ) -> Int {
        var random = SeededGenerator(seed: randomSeed)
        var failures = 0
        for iteration in 0..<2000 {
            let text = mutate(seed, inserting: fragments, iteration: iteration, &random)
            do {
                try check(try Catalog.load([file], from: .memory([file: text])), iteration)
            } catch let error as MappingsError {
                failures += 1
                #expect(!error.diagnostics.isEmpty, "iteration \(iteration): a failure with no diagnostic")
                #expect(
                    error.diagnostics.allSatisfy { ($0.location?.line ?? 0) >= 1 && ($0.location?.column ?? 0) >= 1 },
                    "iteration \(iteration): \(error)")
            } catch {
                Issue.record("iteration \(iteration): \(error)")
            }
        }
        return failures
    }

    /// Checks that parsing `payload` on demand gives the issues a full parse gives.
    func expectSameIssuesOnDemand(_ payload: String, mapper: Mapper, context: CompiledContext, iteration: Int) throws {
        let full = mapper.object(from: try JSONParser.parse(payload), using: context)
        let onDemand = try mapper.object(fromJSON: Array(payload.utf8), using: context)
        #expect(onDemand.issues == full.issues, "iteration \(iteration)")
    }

    @Test("thousands of mutated .mappings texts: no crash, no hang, every failure a located diagnostic")
    func mutations() {
        var random = SeededGenerator(seed: 0x5EED_2026)
        var failures = 0
        for iteration in 0..<3000 {
            let files = [
                "a.mappings": mutate(Self.seeds[0], &random),
                "b.mappings": iteration % 3 == 0 ? mutate(Self.seeds[1], &random) : Self.seeds[1],
                "c.mappings": iteration % 5 == 0 ? mutate(Self.seeds[2], &random) : Self.seeds[2],
            ]
            let traits = Traits(["v": String(iteration % 4), "build": iteration % 2 == 0 ? "debug" : "release"])
            do {
                _ = try Catalog.load(["a.mappings"], from: .memory(files), traits: traits)
            } catch {
                failures += 1
                #expect(!error.diagnostics.isEmpty, "iteration \(iteration): a failure with no diagnostic")
                for diagnostic in error.diagnostics {
                    guard let location = diagnostic.location else {
                        Issue.record("iteration \(iteration): \"\(diagnostic.message)\" has no location")
                        continue
                    }
                    #expect(location.line >= 1 && location.column >= 1, "iteration \(iteration)")
                    #expect(files[location.file] != nil, "iteration \(iteration): \(location.file)")
                }
                #expect(error.description.hasPrefix("error: "), "iteration \(iteration)")
            }
        }
        #expect(failures > 1000, "the mutations should break most files")
    }

    @Test("thousands of random byte strings: every one is a located syntax diagnostic")
    func randomBytes() {
        var random = SeededGenerator(seed: 42)
        let alphabet = Array("{}[]\",:/*\\ \n\tabc@$01-.eE".utf8)
        for iteration in 0..<3000 {
            let length = Int.random(in: 0..<64, using: &random)
            let bytes = (0..<length).map { _ in
                Bool.random(using: &random)
                    ? alphabet.randomElement(using: &random)! : UInt8.random(in: 0...255, using: &random)
            }
            let text = String(decoding: bytes, as: UTF8.self)
            do {
                _ = try Catalog.load(["r.mappings"], from: .memory(["r.mappings": text]))
            } catch {
                #expect(
                    !error.diagnostics.isEmpty && error.diagnostics.allSatisfy { $0.location != nil },
                    "iteration \(iteration)")
            }
        }
    }

    @Test("random inheritance graphs terminate, and cycles are reported")
    func inheritanceGraphs() {
        var random = SeededGenerator(seed: 7)
        for iteration in 0..<500 {
            let count = Int.random(in: 2...8, using: &random)
            var body: [String] = []
            for index in 0..<count {
                let parents = (0..<Int.random(in: 0...3, using: &random)).map { _ in
                    "\"$N\(Int.random(in: 0..<(count + 1), using: &random))\""
                }
                body.append(
                    "\"$N\(index)\": { \"@inherits\": [\(parents.joined(separator: ", "))], \"p\(index)\": \"s\" }")
            }
            let text = "{ " + body.joined(separator: ",\n") + " }"
            do {
                let catalog = try Catalog.load(["g.mappings"], from: .memory(["g.mappings": text]))
                #expect(catalog.identifiers.count == count)
            } catch {
                #expect(
                    error.diagnostics.allSatisfy {
                        $0.message.hasPrefix("inheritance cycle") || $0.message.hasSuffix("names no context")
                    }, "iteration \(iteration): \(error)")
            }
        }
    }
}
