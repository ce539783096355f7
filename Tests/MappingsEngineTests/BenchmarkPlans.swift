import Foundation
import MappingsCompiler
import MappingsEngine
import MappingsTestSupport

/// The benchmarks' contexts and records, for the fast plans' tests and the allocation suite —
/// which imports nothing `@testable`: it is built optimized, as the shipped tool is (tools/test).
enum BenchmarkPlans {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `Benchmarks/contexts`, their Swift transformers identities.
    static func catalog() throws -> Catalog {
        let directory = repository.appendingPathComponent("Benchmarks/contexts")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".mappings") }.sorted()
        var registry = TransformerRegistry()
        for selector in ["clientName", "handle", "topics", "userSummary", "score"] {
            registry.register(className: "BenchTransformers", selector: selector) { value, _ in value }
        }
        return try Catalog.load(files.map { directory.appendingPathComponent($0).path }, transformers: registry)
    }

    /// A benchmark context, its mapper and its plan.
    static func plan(_ identifier: String) throws -> (Mapper, CompiledContext, FastPlan) {
        let mapper = Mapper(catalog: try catalog())
        let context = try mapper.context(identifier)
        return (mapper, context, try mapper.fastPlan(for: context).get())
    }

    /// Records of one benchmark shape, from the benchmarks' own seeded generator.
    static func records(shape: String, seed: Int = 11) throws -> [[UInt8]] {
        try Fixtures.benchmarkRecords(shape: shape, seed: seed)
    }
}
