import Foundation
import Mappings
import MappingsLua
import Testing

/// `LuaIsolation.process`: transformers in confined worker processes.
@Suite("Lua worker processes", .serialized)
struct LuaIsolationTests {
    /// The worker processes this process started for the scripts in `directory` and has not
    /// reaped, by pid (other tests run workers of their own meanwhile).
    static func workers(of directory: URL) -> [Int32] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        var pids: [Int32] = []
        for task in tasks {
            let children = (try? String(contentsOfFile: "/proc/self/task/\(task)/children", encoding: .utf8)) ?? ""
            for pid in children.split(separator: " ").compactMap({ Int32($0) }) {
                let command = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline"))) ?? Data()
                let arguments = command.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
                if arguments.first?.hasSuffix("mappings-lua-worker") == true, arguments.last == directory.path {
                    pids.append(pid)
                }
            }
        }
        return pids
    }

    static let slow = """
        return { f = function(wait)
            local started = os.clock()
            while os.clock() - started < wait do end
            return wait
        end }
        """

    @Test("a worker runs under a seccomp filter, with its address space and CPU time limited")
    func confined() throws {
        let limits = LuaLimits(memory: 16 << 20, instructions: 1 << 40, timeout: .seconds(5))
        let fixture = try LuaFixture(
            ["Slow.lua": Self.slow], entries: ["s": "Slow.f"], limits: limits, isolation: .process)
        defer { fixture.remove() }
        final class Outcome: @unchecked Sendable { var output = "" }
        let outcome = Outcome()
        let done = DispatchSemaphore(value: 0)
        Thread {
            outcome.output = (try? fixture.map(.integer(1)).output) ?? "failed"
            done.signal()
        }.start()
        Thread.sleep(forTimeInterval: 0.4)
        let pids = Self.workers(of: fixture.directory)
        #expect(!pids.isEmpty)
        for pid in pids {
            let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
            #expect(status.contains("Seccomp:\t2"), "\(status)")
            #expect(status.contains("NoNewPrivs:\t1"))
            let limitsText = try String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8)
            let space = limitsText.split(separator: "\n").first { $0.hasPrefix("Max address space") } ?? ""
            #expect(!space.contains("unlimited"), "\(space)")
            let cpu = limitsText.split(separator: "\n").first { $0.hasPrefix("Max cpu time") } ?? ""
            #expect(!cpu.contains("unlimited"), "\(cpu)")
        }
        done.wait()
        #expect(outcome.output == #"{"s":1}"#)
    }

    @Test("a call past its deadline: the worker is killed, the value gets an issue, the next call runs on a fresh one")
    func killedAtDeadline() throws {
        let limits = LuaLimits(memory: 16 << 20, instructions: 1 << 40, timeout: .milliseconds(300))
        let fixture = try LuaFixture(
            ["Slow.lua": Self.slow], entries: ["s": "Slow.f"], limits: limits, isolation: .process)
        defer { fixture.remove() }
        #expect(try fixture.map(.integer(0)).output == #"{"s":0}"#)
        let before = Self.workers(of: fixture.directory)
        let started = ContinuousClock.now
        let stuck = try fixture.map(.integer(30))
        #expect(ContinuousClock.now - started < .seconds(2))
        #expect(stuck.issues.count == 1)
        #expect(stuck.issues.first?.contains("ran past its deadline") == true, "\(stuck.issues)")
        #expect(try fixture.map(.integer(0)).output == #"{"s":0}"#)
        let after = Self.workers(of: fixture.directory)
        #expect(before.count == 1 && after.count == 1 && before != after, "replaced: \(before) → \(after)")
    }

    @Test("no worker process outlives the scripts that started it")
    func noneLeftBehind() throws {
        var directory: URL?
        do {
            let fixture = try LuaFixture(
                ["Slow.lua": Self.slow], entries: ["s": "Slow.f"], limits: LuaFixture.testLimits, isolation: .process)
            defer { fixture.remove() }
            directory = fixture.directory
            #expect(try fixture.map(.integer(0)).output == #"{"s":0}"#)
            #expect(!Self.workers(of: fixture.directory).isEmpty)
        }
        #expect(directory.map { Self.workers(of: $0) } == [])
    }

    @Test("workers started by a thread that has ended still serve (a reload loads on a thread of its own)")
    func startedByAnEndedThread() throws {
        final class Box: @unchecked Sendable { var fixture: LuaFixture? }
        let box = Box()
        let done = DispatchSemaphore(value: 0)
        Thread {
            box.fixture = try? LuaFixture(
                ["Slow.lua": Self.slow], entries: ["s": "Slow.f"], limits: LuaFixture.testLimits, isolation: .process)
            _ = try? box.fixture?.map(.integer(0))
            done.signal()
        }.start()
        done.wait()
        Thread.sleep(forTimeInterval: 0.2)  // the thread has ended by now
        let fixture = try #require(box.fixture)
        defer { fixture.remove() }
        let result = try fixture.map(.integer(0))
        #expect(result.issues == [])
        #expect(result.output == #"{"s":0}"#)
    }
}
