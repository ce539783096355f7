import Foundation
import Mappings
import Synchronization
import Testing

@testable import MappingsLua

/// Threads keep their interpreter for their next call, up to as many threads as the pool keeps
/// idle interpreters; a thread that ends frees its slot.
@Suite("interpreters kept by their thread")
struct LuaThreadEngineTests {
    @Test("more threads than slots: every call answers, at most keptIdle keep one, ended threads free theirs")
    func slotsAreBounded() throws {
        let fixture = try LuaFixture(
            ["T.lua": "return { same = function(v) return v end }"], entries: ["v": "T.same"])
        defer { try? FileManager.default.removeItem(at: fixture.directory) }
        // Loading resolved the function on this thread, which may keep a slot of its own.
        let before = fixture.scripts.threadSlots.load(ordering: .relaxed)
        let threads = LuaScripts.keptIdle + 4
        let answers = Mutex<[String]>([])
        let called = DispatchGroup()
        let release = DispatchSemaphore(value: 0)
        let ended = DispatchGroup()
        for index in 0..<threads {
            called.enter()
            ended.enter()
            let thread = Thread {
                let input = JSONValue.object(JSONObject([("n", .integer(Int64(index)))]))
                let output = (try? fixture.map(input))?.output ?? "failed"
                answers.withLock { $0.append(output) }
                called.leave()
                // Alive until every thread has called: each holds its slot meanwhile.
                release.wait()
                ended.leave()
            }
            thread.stackSize = 8 << 20
            thread.start()
        }
        called.wait()
        let kept = fixture.scripts.threadSlots.load(ordering: .relaxed)
        for _ in 0..<threads { release.signal() }
        ended.wait()
        #expect(answers.withLock { $0.count } == threads)
        #expect(answers.withLock { $0.allSatisfy { $0.contains(#""n":"#) } }, "\(answers.withLock { $0 })")
        #expect(kept >= 1 && kept <= LuaScripts.keptIdle)
        // The threads' values are freed as they end (their destructors run after the closure).
        var left = fixture.scripts.threadSlots.load(ordering: .relaxed)
        for _ in 0..<200 where left != before {
            Thread.sleep(forTimeInterval: 0.01)
            left = fixture.scripts.threadSlots.load(ordering: .relaxed)
        }
        #expect(left == before)
    }
}
