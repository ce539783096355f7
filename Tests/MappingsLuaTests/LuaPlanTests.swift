import Foundation
import MappingsTestSupport
import Testing

@testable import Mappings
@testable import MappingsCompiler
@testable import MappingsEngine
@testable import MappingsJSON
@testable import MappingsLua

/// A fast plan hands a Lua transformer its input as a span of the record (the script reads it
/// through a view): it must write exactly what the general engine writes, call for call, or
/// leave the record to it (a key written twice inside the span, a value nested too deep).
@Suite("Lua transformers in fast plans")
struct LuaPlanTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func mapper(isolation: LuaIsolation) throws -> Mapper {
        let contexts = repository.appendingPathComponent("Benchmarks/contexts")
        let files = try FileManager.default.contentsOfDirectory(atPath: contexts.path)
            .filter { $0.hasSuffix(".mappings") }.sorted().map { contexts.appendingPathComponent($0).path }
        var registry = TransformerRegistry()
        registry.add(
            LuaScripts(
                directory: repository.appendingPathComponent("Benchmarks/scripts").path, limits: LuaLimits(),
                isolation: isolation,
                log: .standardError))
        return Mapper(catalog: try Catalog.load(files, transformers: registry))
    }

    /// Records of a benchmark shape, from the benchmarks' generator.
    static func records(shape: String, seed: Int) throws -> [[UInt8]] {
        try Fixtures.benchmarkRecords(shape: shape, seed: seed, sizeMB: 0.1)
    }

    /// Maps `record` with the plan (a memo of its calls) and with the general engine; returns
    /// whether the plan wrote it, after checking that both agree.
    static func compare(
        _ record: [UInt8], _ context: CompiledContext, _ plan: FastPlan, _ mapper: Mapper,
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) throws -> Bool {
        var fast: [UInt8] = []
        let memo = TransformerMemo()
        let written = plan.write(record, into: &fast, omittingNulls: false, memo: memo)
        // The general engine replays the plan's calls, as a stream does when the plan gives up.
        memo.replay()
        let text = String(decoding: record, as: UTF8.self)
        guard let result = try? mapper.object(fromJSON: record, using: context, memo: memo) else {
            // Not JSON: the general engine refuses it whole; the plan must not have written it.
            #expect(!written, "\(text)", sourceLocation: sourceLocation)
            return false
        }
        guard written else {
            #expect(fast.isEmpty, sourceLocation: sourceLocation)
            return false
        }
        var general: [UInt8] = []
        JSONWriter.write(result.value, into: &general)
        #expect(result.issues.isEmpty, "\(result.issues)\n\(text)", sourceLocation: sourceLocation)
        #expect(
            String(decoding: fast, as: UTF8.self) == String(decoding: general, as: UTF8.self), "\(text)",
            sourceLocation: sourceLocation)
        return true
    }

    @Test(
        "four Lua transformers on large records (one on @self): the plan writes the general engine's bytes",
        arguments: [LuaIsolation.inProcess, .process])
    func largeRecords(_ isolation: LuaIsolation) throws {
        let mapper = try Self.mapper(isolation: isolation)
        let context = try mapper.context("$LargeTweetScripted")
        let plan = try mapper.fastPlan(for: context).get()
        let records = try Self.records(shape: "large", seed: 21)
        #expect(records.count > 10)
        for record in records { #expect(try Self.compare(record, context, plan, mapper)) }
    }

    @Test("a key written twice or a value nested too deep inside a span: refused where the script reads it, both ways")
    func repeatsInsideSpans() throws {
        let mapper = try Self.mapper(isolation: .inProcess)
        let context = try mapper.context("$LargeTweetScripted")
        let plan = try mapper.fastPlan(for: context).get()
        let record = try #require(try Self.records(shape: "large", seed: 22).first)
        let text = String(decoding: record, as: UTF8.self)
        // A repeat of a key userSummary reads in the user object: the call fails in the plan
        // (which gives the record back) and in the general engine alike.
        let repeated = text.replacingOccurrences(
            of: #""translator_type":"#, with: #""screen_name":"x","translator_type":"#)
        #expect(repeated != text)
        #expect(try !Self.compare(Array(repeated.utf8), context, plan, mapper))
        let result = try mapper.object(fromJSON: Array(repeated.utf8), using: context)
        #expect(result.issues.contains { $0.message.contains(#"duplicate key "screen_name""#) }, "\(result.issues)")
        // A repeat of a key of the same object that no script reads: nothing it computes
        // changes, both ways write the record, with no issue.
        let unreadKey = text.replacingOccurrences(
            of: #""translator_type":"#, with: #""geo_enabled":1,"translator_type":"#)
        #expect(unreadKey != text)
        #expect(try Self.compare(Array(unreadKey.utf8), context, plan, mapper))
        #expect(try mapper.object(fromJSON: Array(unreadKey.utf8), using: context).issues.isEmpty)
        // A repeat and 130 levels where no script reads (inside @self's span all the same): both
        // ways write the record, with no issue.
        let deep = String(repeating: "[", count: 130) + String(repeating: "]", count: 130)
        let unread = text.replacingOccurrences(
            of: #""metadata":"#, with: #""deep":\#(deep),"again":{"k":1,"k":2},"metadata":"#)
        #expect(unread != text)
        #expect(try Self.compare(Array(unread.utf8), context, plan, mapper))
    }

    /// `bytes` with JSON whitespace after every comma and colon and before every closing
    /// bracket outside strings.
    static func spread(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var inString = false
        var escaped = false
        for byte in bytes {
            if inString {
                out.append(byte)
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true; out.append(byte)
            case UInt8(ascii: ","), UInt8(ascii: ":"): out += [byte, 0x20, 0x09]
            case UInt8(ascii: "}"), UInt8(ascii: "]"): out += [0x0D, 0x0A, 0x20, byte]
            default: out.append(byte)
            }
        }
        return out
    }

    @Test("views read through the record's index (whitespace everywhere, escaped keys): the general engine's bytes")
    func indexedViews() throws {
        let mapper = try Self.mapper(isolation: .inProcess)
        let context = try mapper.context("$RealStatusScripted")
        let plan = try mapper.fastPlan(for: context).get()
        let records = try Self.records(shape: "real", seed: 31).prefix(30)
        let before = LuaScripts.viewsIndexed
        for record in records { #expect(try Self.compare(record, context, plan, mapper)) }
        // Each record's user object and @self are read through the index: two views at least.
        #expect(LuaScripts.viewsIndexed >= before + 2 * UInt64(records.count))
        for record in records {
            let spread = Self.spread(record)
            #expect(spread.count > record.count + 100)
            #expect(try Self.compare(spread, context, plan, mapper))
            // Keys the scripts read, written with an escape: the plan leaves such a record to
            // the general engine (it walks those objects too); whichever writes it, the same bytes.
            let text = String(decoding: spread, as: UTF8.self)
                .replacingOccurrences(of: #""retweet_count":"#, with: #""retweet\u005fcount":"#)
                .replacingOccurrences(of: #""name":"#, with: #""n\u0061me":"#)
            _ = try Self.compare(Array(text.utf8), context, plan, mapper)
        }
    }

    @Test(
        "a large object two calls of one record read is indexed once, a small one walked per lookup: through the index")
    func viewsIndexedOncePerRecord() throws {
        let mapper = try Self.mapper(isolation: .inProcess)
        let context = try mapper.context("$RealStatusScripted")
        let plan = try mapper.fastPlan(for: context).get()
        var checked = 0
        for record in try Self.records(shape: "real", seed: 33).prefix(20) {
            guard case .object(let status) = try JSONParser.parse(record, demand: .everything),
                case .object(let entities)? = status["entities"], case .array(let hashtags)? = entities["hashtags"]
            else { continue }
            // userSummary reads the user object, score reads it again (tweet.user) with the
            // record (@self): large objects, indexed once for the record (the user object counts
            // once). topics indexes the hashtags array, and looks up each hashtag's text: a small
            // object, walked through the record's index without a table (one walk each).
            let before = LuaScripts.viewsIndexed
            #expect(try Self.compare(record, context, plan, mapper))
            #expect(LuaScripts.viewsIndexed - before == UInt64(3 + hashtags.count))
            checked += 1
        }
        #expect(checked > 10)
    }

    @Test("a float answered into a Double, strings into a [String]: written as they are, the general engine's bytes")
    func plainAnswers() throws {
        let script = """
            local M = {}
            function M.same(v) return v end
            function M.empty(v) return {} end
            return M
            """
        let catalog = """
            { "@models": { "K": { "ratio": "Double", "maybe": "Double?", "tags": "[String]", "some": "[String]?",
                                  "none": "[String]" } },
              "$K": { "@class": "K",
                      "ratio": { "@keyPath": "r", "@transformClass": "A", "@transformSelector": "same" },
                      "maybe": { "@keyPath": "r", "@transformClass": "A", "@transformSelector": "same" },
                      "tags": { "@keyPath": "t", "@transformClass": "A", "@transformSelector": "same" },
                      "some": { "@keyPath": "t", "@transformClass": "A", "@transformSelector": "same" },
                      "none": { "@keyPath": "t", "@transformClass": "A", "@transformSelector": "empty" } } }
            """
        let (mapper, directory) = try LuaKindsTests.mapper(
            scripts: ["A.lua": script], catalog: catalog, isolation: .inProcess)
        defer { try? FileManager.default.removeItem(at: directory) }
        let context = try mapper.context("$K")
        let plan = try mapper.fastPlan(for: context).get()
        var written = 0
        for r in ["1.5", "-0.0", "1e300", "0.1", "2.5e-8", "3", "\"4.5\""] {
            for t in [#"["a","b"]"#, "[]", #"["é","\u0000x","\ud83d\ude80"]"#, #"["a",1]"#, #"[["x"]]"#, "null"] {
                let record = Array(#"{"r":\#(r),"t":\#(t)}"#.utf8)
                if try Self.compare(record, context, plan, mapper) { written += 1 }
            }
        }
        // Floats and arrays of strings are the plan's; an integer, a string, a mixed array go the general way.
        #expect(written >= 10)
    }

    @Test(
        "a string goes to a script as the record's text, escapes decoded in the sandbox: the general engine's bytes",
        arguments: [LuaIsolation.inProcess, .process])
    func stringsAsText(_ isolation: LuaIsolation) throws {
        let script = """
            local M = {}
            function M.shout(v) return string.upper(v) .. "!" .. #v end
            function M.same(v) return v end
            return M
            """
        let catalog = """
            { "@models": { "K": { "loud": "String", "same": "String?" } },
              "$K": { "@class": "K",
                      "loud": { "@keyPath": "s", "@transformClass": "A", "@transformSelector": "shout" },
                      "same": { "@keyPath": "s", "@transformClass": "A", "@transformSelector": "same", "@optional": true } } }
            """
        let (mapper, directory) = try LuaKindsTests.mapper(
            scripts: ["A.lua": script], catalog: catalog, isolation: isolation)
        defer { try? FileManager.default.removeItem(at: directory) }
        let context = try mapper.context("$K")
        let plan = try mapper.fastPlan(for: context).get()
        var written = 0
        let strings = [
            #""plain""#, #""""#, #""<a href=\"http:\/\/x\" rel=\"nofollow\">Web<\/a>""#, #""\u65e5\u672c""#,
            #""\ud83d\ude80 up""#, #""tab\tnew\nline""#, #""\u0000x""#, #""é日""#,
            // Not JSON: a lone surrogate, an unknown escape; the general engine reports them, the plan
            // must not write the record.
            #""\ud800""#, #""\udc00x""#, #""\q""#,
        ]
        for string in strings {
            if try Self.compare(Array(#"{"s":\#(string)}"#.utf8), context, plan, mapper) { written += 1 }
        }
        #expect(written == 8)
    }

    @Test("mutated large records: the same bytes, or the general engine")
    func mutatedRecords() throws {
        let mapper = try Self.mapper(isolation: .inProcess)
        let context = try mapper.context("$LargeTweetScripted")
        let plan = try mapper.fastPlan(for: context).get()
        var random = SeededGenerator(seed: 0x1A_0029)
        var fast = 0
        var general = 0
        for record in try Self.records(shape: "large", seed: 23).prefix(12) {
            for _ in 0..<10 {
                var bytes = record
                // Delete or duplicate a random span of bytes: records stay valid or break anywhere.
                let start = Int.random(in: 0..<bytes.count, using: &random)
                let count = Int.random(in: 1...min(40, bytes.count - start), using: &random)
                if Bool.random(using: &random) {
                    bytes.removeSubrange(start..<start + count)
                } else {
                    bytes.insert(contentsOf: bytes[start..<start + count], at: start)
                }
                if try Self.compare(bytes, context, plan, mapper) { fast += 1 } else { general += 1 }
            }
        }
        #expect(fast > 0)
        #expect(general > 0)
    }

    @Test("only a transformer that takes text gets a span: a Swift closure's input is built whole, as before")
    func swiftTransformersKeepTheirRule() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lua-plan-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data("return { f = function(v) return v end }".utf8).write(to: directory.appendingPathComponent("L.lua"))
        var registry = TransformerRegistry()
        registry.register(className: "S", selector: "f") { value, _ in value }
        registry.add(
            LuaScripts(directory: directory.path, limits: LuaLimits(), isolation: .inProcess, log: .standardError))
        for (transformer, planned) in [("S", false), ("L", true)] {
            let text = """
                { "@models": { "M": { "name": "String", "user": "JSON", "whole": "JSON" } },
                  "$M": { "@class": "M", "name": "user.name",
                          "user": { "@keyPath": "user", "@transformClass": "\(transformer)", "@transformSelector": "f" },
                          "whole": { "@keyPath": "@self", "@transformClass": "\(transformer)", "@transformSelector": "f" } } }
                """
            let catalog = try Catalog.load(["m.mappings"], from: .memory(["m.mappings": text]), transformers: registry)
            let mapper = Mapper(catalog: catalog)
            let context = try mapper.context("$M")
            switch mapper.fastPlan(for: context) {
            case .success(let plan):
                #expect(planned, "\(transformer): a plan that would give every record back")
                let record = Array(#"{"user": {"name": "Ann", "id": 1}, "other": [1, 2]}"#.utf8)
                #expect(try Self.compare(record, context, plan, mapper))
            case .failure(let refusal):
                #expect(!planned, "\(transformer): \(refusal)")
            }
        }
    }
}
