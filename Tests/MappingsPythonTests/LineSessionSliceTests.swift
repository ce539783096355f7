import Foundation
import Mappings
import MappingsTestSupport
import Testing

@testable import MappingsEncoding
@testable import MappingsPython

/// What lets Ctrl-C reach Python while records map: the calling thread hands back after a
/// slice, the lanes are waited for a slice at a time, and a stopped session maps and hands
/// over nothing more. And the Lua limits `load` takes are the tool's.
@Suite struct LineSessionSliceTests {
    /// A context whose every record spins in Lua for 20 ms of the process's CPU time (at least
    /// 10 ms of the wall clock on two busy cores).
    static func slowContext() throws -> PythonContext {
        let folder = try Fixtures.directory(with: [
            "contexts/spin.mappings": """
            {
              "@models": { "Spun": { "id": "Int", "spun": "Int" } },
              "$Spun": {
                "@class": "Spun", "id": "id",
                "spun": { "@keyPath": "id", "@transformClass": "Slow", "@transformSelector": "spin:" }
              }
            }
            """,
            "scripts/Slow.lua": """
            local Slow = {}
            function Slow.spin(value)
                local started = os.clock()
                while os.clock() - started < 0.02 do end
                return value
            end
            return Slow
            """,
        ])
        let catalog = try PythonCatalog.load(
            contexts: folder.appendingPathComponent("contexts").path,
            scripts: folder.appendingPathComponent("scripts").path, options: .object(JSONObject()), log: { _ in })
        return try PythonContext(owner: catalog, identifier: "$Spun", forArrow: false)
    }

    static func records(_ count: Int) -> [[UInt8]] {
        (1...count).map { Array(#"{"id": \#($0)}"#.utf8) }
    }

    @Test("the calling thread hands back after its slice, and the rest maps when submitted again")
    func theCallingThreadHandsBackAfterItsSlice() throws {
        let session = LineSession(context: try Self.slowContext(), workers: 0)
        let lines = Self.records(40)
        var mapped = 0
        let holding = lines.withUnsafeBufferPointers { session.submit(lines: $0, mapped: &mapped) }
        #expect(holding == nil)
        // 40 records take 400 ms at least; a slice is 50 ms and the record that passes it.
        #expect(mapped >= 1 && mapped < 40)
        #expect(Array(lines[mapped...]).withUnsafeBufferPointers { session.submit(lines: $0) } == nil)
        let text = Array(lines.map { String(decoding: $0, as: UTF8.self) + "\n" }.joined().utf8)
        let taken = text.withUnsafeBufferPointer { session.submit(copying: $0) }
        #expect(taken > 0 && taken < text.count && text[taken - 1] == 0x0A)
        session.submit(Array(text[taken...]))
        var seen: [Int] = []
        while let results = session.take() { seen += LineSessionTests.read(results).map(\.id) }
        #expect(seen == Array(1...40) + Array(1...40))
    }

    @Test("a stopped session's lanes are not waited for, and it hands over nothing more")
    func aStoppedSessionHandsOverNothing() throws {
        let session = LineSession(context: try Self.slowContext(), workers: 2)
        session.submit(Array(Self.records(40).map { String(decoding: $0, as: UTF8.self) + "\n" }.joined().utf8))
        // Two lanes take 400 ms of CPU for the block, most likely still mapping when it stops (a
        // busy test process, whose threads advance os.clock too, may have them done: what
        // follows holds either way).
        _ = session.wait(milliseconds: 10)
        let started = ContinuousClock.now
        session.stop()
        #expect(session.wait(milliseconds: 10_000))
        #expect(session.take() == nil)
        #expect(session.pendingBlocks == 0)
        #expect(ContinuousClock.now - started < .seconds(5))
        session.submit(Array(#"{"id": 1}"#.utf8) + [0x0A])
        #expect(session.take() == nil)
    }

    @Test(
        "a Lua limit out of the tool's range is refused, naming the argument and the range",
        arguments: [
            ("luaMemoryMiB", JSONValue.integer(-1), "lua_memory_mib must be between 1 and 1048576, not -1"),
            ("luaTimeoutMs", .integer(0), "lua_timeout_ms must be between 1 and 3600000, not 0"),
            (
                "luaMaxResultMiB", .integer(1 << 62),
                "lua_max_result_mib must be between 1 and 1024, not 4611686018427387904"
            ),
            ("luaBudget", .integer(999), "lua_budget must be between 1000 and 9223372036854775807, not 999"),
            ("luaBudget", .string("many"), "lua_budget must be between 1000 and 9223372036854775807, not \"many\""),
        ])
    func aLimitOutOfRangeIsRefused(key: String, value: JSONValue, message: String) throws {
        let folder = try Fixtures.directory(with: [
            "contexts/a.mappings": #"{ "@models": { "A": { "id": "Int" } }, "$A": { "@class": "A", "id": "id" } }"#
        ])
        #expect {
            _ = try PythonCatalog.load(
                contexts: folder.appendingPathComponent("contexts").path,
                scripts: folder.appendingPathComponent("scripts").path, options: .object(JSONObject([(key, value)])),
                log: { _ in })
        } throws: { error in
            (error as? PythonFailure)?.message == message
        }
    }
}

extension Array where Element == [UInt8] {
    /// `body` of the arrays' storage, as the module hands lines over.
    fileprivate func withUnsafeBufferPointers<R>(_ body: ([UnsafeBufferPointer<UInt8>]) -> R) -> R {
        let copies = map { line -> UnsafeMutableBufferPointer<UInt8> in
            let copy = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: Swift.max(1, line.count))
            _ = copy.initialize(from: line)
            return copy
        }
        defer { for copy in copies { copy.deallocate() } }
        return body(copies.enumerated().map { UnsafeBufferPointer(rebasing: $0.element[..<self[$0.offset].count]) })
    }
}
