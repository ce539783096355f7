import Foundation
import MappingsTestSupport
import Testing

@testable import Mappings
@testable import MappingsCompiler
@testable import MappingsEngine
@testable import MappingsJSON
@testable import MappingsLua

/// Batches (Lua in worker processes): the calls of many records made ahead, one request per
/// transformer. A record prepared in a batch maps exactly as it does alone: the same output,
/// the same outcome and issues, the same failures where a call trips a limit or fails.
@Suite("Lua calls in batches")
struct LuaBatchTests {
    /// Maps `records` one by one and prepared in one batch; both must agree record for record.
    static func expectSame(
        _ records: [[UInt8]], _ mapper: RecordMapper, sourceLocation: Testing.SourceLocation = #_sourceLocation
    )
        throws
    {
        #expect(mapper.batchesCalls, sourceLocation: sourceLocation)
        let buffers = records.map { record in
            let pointer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: record.count)
            _ = pointer.initialize(from: record)
            return UnsafeBufferPointer(pointer)
        }
        defer { for buffer in buffers { buffer.deallocate() } }
        let memos = try #require(mapper.prepare(buffers), sourceLocation: sourceLocation)
        #expect(memos.count == records.count, sourceLocation: sourceLocation)
        for (index, buffer) in buffers.enumerated() {
            var alone: [UInt8] = []
            var batched: [UInt8] = []
            let one = mapper.map(buffer, into: &alone)
            let many = mapper.map(buffer, into: &batched, memo: memos[index])
            let text = String(decoding: records[index], as: UTF8.self)
            #expect(alone == batched, "\(text)", sourceLocation: sourceLocation)
            #expect(one.kind == many.kind, "\(text)", sourceLocation: sourceLocation)
            #expect(
                one.issues.map(\.description) == many.issues.map(\.description), "\(text)",
                sourceLocation: sourceLocation)
        }
    }

    @Test("inline Lua, a keyed selection and a filter over random records: batched as alone")
    func charges() throws {
        let mapper = try InlineLuaTests.mapper(InlineLuaTests.charges, isolation: .process)
        let records = RecordMapper(mapper: mapper, context: try mapper.context("$Charge"))
        try Self.expectSame(InlineLuaTests.chargeRecords(count: 300, seed: 0xBA7C), records)
    }

    @Test("four script transformers on large records, mutated: batched as alone")
    func largeRecords() throws {
        let mapper = try LuaPlanTests.mapper(isolation: .process)
        let records = RecordMapper(mapper: mapper, context: try mapper.context("$LargeTweetScripted"))
        var random = SeededGenerator(seed: 0xBA7D)
        var inputs: [[UInt8]] = []
        for record in try LuaPlanTests.records(shape: "large", seed: 31).prefix(30) {
            inputs.append(record)
            var bytes = record
            let start = Int.random(in: 0..<bytes.count, using: &random)
            bytes.removeSubrange(start..<min(bytes.count, start + Int.random(in: 1...30, using: &random)))
            inputs.append(bytes)
        }
        try Self.expectSame(inputs, records)
    }

    @Test("a call that runs out of memory, trips its budget or fails, amid others: its record alone gets the issue")
    func failuresAmidOthers() throws {
        let text = """
            { "@models": { "N": { "v": "Int" } },
              "$N": { "@class": "N", "@filter": "value.n ~= 9",
                      "v": { "@keyPath": "@self",
                             "@lua": "if value.n == 3 then local s = 'x' for i = 1, 64 do s = s .. s end end\\nif value.n == 5 then while true do end end\\nif value.n == 7 then error('seven') end\\nlog('n', value.n)\\nreturn value.n * 2" } } }
            """
        let mapper = try InlineLuaTests.mapper(text, isolation: .process)
        let records = RecordMapper(mapper: mapper, context: try mapper.context("$N"))
        let inputs = (1...12).map { Array(#"{"n":\#($0)}"#.utf8) }
        try Self.expectSame(inputs, records)
        // And what each got, batched: 5 over budget, 7 an error, 9 dropped, the rest doubled.
        let buffers = inputs.map { record in
            let pointer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: record.count)
            _ = pointer.initialize(from: record)
            return UnsafeBufferPointer(pointer)
        }
        defer { for buffer in buffers { buffer.deallocate() } }
        let memos = try #require(records.prepare(buffers))
        for (index, buffer) in buffers.enumerated() {
            var out: [UInt8] = []
            let outcome = records.map(buffer, into: &out, memo: memos[index])
            switch index + 1 {
            case 3: #expect(outcome.issues.first?.message.contains("out of memory") == true, "\(outcome.issues)")
            case 5: #expect(outcome.issues.first?.message.contains("instruction budget") == true, "\(outcome.issues)")
            case 7: #expect(outcome.issues.first?.message.hasSuffix("seven") == true, "\(outcome.issues)")
            case 9: #expect(outcome.kind == .filtered)
            default: #expect(String(decoding: out, as: UTF8.self) == #"{"v":\#((index + 1) * 2)}"#)
            }
        }
    }
}
