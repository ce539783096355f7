import Foundation
import MappingsTestSupport
import Testing

@testable import Mappings
@testable import MappingsCompiler
@testable import MappingsEngine
@testable import MappingsJSON
@testable import MappingsLua

/// The loader with Lua behind it, fed mutations of a file full of inline code, preludes,
/// filters and keyed selections: it never crashes, every failure is a diagnostic placed in the
/// file (inside the string, for code that does not compile), and every catalog that loads maps
/// records the same way with its fast plan and with the general engine.
@Suite("Inline Lua, fuzzed")
struct InlineLuaFuzzTests {
    static let fragments = [
        "\"@lua\": \"value\",", "\"@lua\": \"value +\",", "\"@lua\": \"return\",", "\"@reverseLua\": \"value\",",
        "\"@filter\": \"value.x\",", "\"@filter\": \"end\",", "\"@luaPrelude\": \"local function\",",
        "\"@keyPath\": { \"a\": \"b\" },", "\"@keyPath\": {", "\"\": \"x\",", "\\n", "\\\"", "\\u00e9", "then", "end",
        "(", ")", "..", "'", "--", "[[", "]]", "\"@transformClass\": \"X\",", "error('x')", "nil", "#value",
    ]

    func mutate(_ text: String, _ random: inout SeededGenerator) -> String {
        var bytes = Array(text.utf8)
        for _ in 0..<Int.random(in: 1...3, using: &random) {
            let position = Int.random(in: 0..<bytes.count, using: &random)
            switch Int.random(in: 0..<4, using: &random) {
            case 0:
                bytes.removeSubrange(position..<min(bytes.count, position + Int.random(in: 1...6, using: &random)))
            case 1:
                bytes.insert(UInt8.random(in: 32...126, using: &random), at: position)
            default:
                bytes.insert(contentsOf: Array(Self.fragments.randomElement(using: &random)!.utf8), at: position)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test("mutated inline code: no crash, every failure placed in the file, plan and general engine agree")
    func mutations() throws {
        var random = SeededGenerator(seed: 0x30_1A)
        let lines = InlineLuaTests.charges.split(separator: "\n", omittingEmptySubsequences: false)
        let records = InlineLuaTests.chargeRecords(count: 12, seed: 0x31)
        var registry = TransformerRegistry()
        let scripts = LuaScripts(directory: "/nonexistent", limits: LuaLimits(), isolation: .inProcess, log: .off)
        registry.add(scripts)
        var failures = 0
        var loaded = 0
        for iteration in 0..<600 {
            let text = mutate(InlineLuaTests.charges, &random)
            let catalog: Catalog
            do {
                catalog = try Catalog.load(["c.mappings"], from: .memory(["c.mappings": text]), transformers: registry)
            } catch {
                failures += 1
                let mutated = text.split(separator: "\n", omittingEmptySubsequences: false)
                #expect(!error.diagnostics.isEmpty, "iteration \(iteration)")
                for diagnostic in error.diagnostics {
                    guard let place = diagnostic.location else { continue }
                    #expect(place.file == "c.mappings" && place.line >= 1 && place.line <= mutated.count, "\(error)")
                    if place.line <= mutated.count {
                        let width = mutated[place.line - 1].unicodeScalars.count
                        #expect(place.column >= 1 && place.column <= width + 1, "iteration \(iteration): \(error)")
                    }
                }
                continue
            }
            loaded += 1
            let mapper = Mapper(catalog: catalog)
            guard let context = catalog.context("$Charge"), case .success(let plan) = mapper.fastPlan(for: context)
            else { continue }
            for record in records {
                var fast: [UInt8] = []
                let memo = TransformerMemo()
                let outcome = record.withUnsafeBufferPointer {
                    plan.write($0, into: &fast, omittingNulls: false, memo: memo, filtering: true)
                }
                memo.replay()
                let result = try mapper.object(fromJSON: record, using: context, memo: memo)
                switch outcome {
                case .filtered: #expect(result.filtered, "iteration \(iteration)")
                case .written:
                    var general: [UInt8] = []
                    JSONWriter.write(result.value, into: &general)
                    #expect(fast == general && result.issues.isEmpty, "iteration \(iteration): \(text)")
                case .givenBack: #expect(!result.issues.isEmpty, "iteration \(iteration): \(text)")
                }
            }
        }
        #expect(failures > 100 && loaded > 50, "failures \(failures), loaded \(loaded) of \(lines.count)-line files")
    }
}
