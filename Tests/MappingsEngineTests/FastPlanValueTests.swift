import Foundation
import MappingsTestSupport
import Testing

@testable import Mappings
@testable import MappingsCompiler
@testable import MappingsEngine
@testable import MappingsJSON
@testable import MappingsModel

/// The typed path of a plan (`FastPlan.value(of:)`, what `map(_:to:context:)` and `decode` take
/// first) must build exactly the value the general engine maps, or leave the record to it.
@Suite("fast plans into values, against the general engine")
struct FastPlanValueTests {
    /// Maps `bytes` both ways; counts which way the plan took.
    static func compare(
        _ bytes: [UInt8], _ context: CompiledContext, _ plan: FastPlan, _ mapper: Mapper,
        _ tally: inout FastPlanTests.Tally, sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) {
        let record = String(decoding: bytes, as: UTF8.self)
        guard let value = bytes.withUnsafeBufferPointer({ plan.value(of: $0) }) else {
            tally.general += 1
            return
        }
        tally.fast += 1
        guard let result = try? mapper.object(fromJSON: bytes, using: context) else {
            Issue.record("the plan built a value of text that is not JSON: \(record)", sourceLocation: sourceLocation)
            return
        }
        #expect(
            result.issues.isEmpty, "the plan built a record the general engine reports: \(record)\n\(result.issues)",
            sourceLocation: sourceLocation)
        #expect(value == result.value, "\(context.identifier ?? "?"): \(record)", sourceLocation: sourceLocation)
        #expect(value.jsonText == result.value.jsonText, sourceLocation: sourceLocation)
    }

    static let shapes: [(shape: String, context: String)] = [
        ("tweet", "$BenchTweet"), ("small", "$SmallTweet"), ("wide", "$WideRecord"), ("large", "$LargeTweet"),
    ]

    @Test("every benchmark record builds the general engine's value", arguments: shapes)
    func benchmarkRecords(_ shape: String, _ identifier: String) throws {
        let (mapper, context, plan) = try FastPlanTests.benchmarkPlan(identifier)
        #expect(plan.buildsValues)
        var tally = FastPlanTests.Tally()
        let records = try FastPlanTests.records(shape: shape)
        for record in records { Self.compare(record, context, plan, mapper, &tally) }
        #expect(tally.general == 0, "\(tally.general) of \(records.count) benchmark records left the plan")
    }

    @Test("mutated and escape-heavy records: the same value, or the general engine", arguments: shapes)
    func mutatedRecords(_ shape: String, _ identifier: String) throws {
        let (mapper, context, plan) = try FastPlanTests.benchmarkPlan(identifier)
        var tally = FastPlanTests.Tally()
        var random = SeededGenerator(seed: 0x5EED_0034)
        for record in try FastPlanTests.records(shape: shape, seed: 12).prefix(120) {
            for _ in 0..<8 {
                Self.compare(RecordMutation.mutate(record, using: &random), context, plan, mapper, &tally)
            }
            Self.compare(RecordMutation.escape(record, using: &random), context, plan, mapper, &tally)
        }
        #expect(tally.fast > 100)
        #expect(tally.general > 100)
    }

    @Test("a plan that calls transformers builds no values: those records are the general engine's")
    func transformers() throws {
        let (_, _, plan) = try FastPlanTests.benchmarkPlan("$SmallTweetWithHandle")
        #expect(!plan.buildsValues)
        let record = try FastPlanTests.records(shape: "small")[0]
        #expect(record.withUnsafeBufferPointer { plan.value(of: $0) } == nil)
    }
}
