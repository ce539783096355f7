import Foundation
import MappingsJSON

/// The sample payload `mappings init` infers from: a JSON object, an array of objects, or
/// NDJSON (one object a line), as records.
package struct InitSample {
    package enum Form: Sendable {
        case object, array, lines
    }

    package var records: [JSONObject]
    package var form: Form

    package init(records: [JSONObject], form: Form) {
        self.records = records
        self.form = form
    }

    /// Reads `bytes`: one JSON document (an object, or an array of objects), else NDJSON.
    package static func read(_ bytes: [UInt8]) throws(InitFailure) -> InitSample {
        let document: JSONValue
        do {
            document = try JSONParser.parse(bytes)
        } catch {
            if let lines = try lines(bytes) { return lines }
            throw InitFailure("the sample is not JSON: \(error)")
        }
        switch document {
        case .object(let object): return InitSample(records: [object], form: .object)
        case .array(let elements):
            var records: [JSONObject] = []
            for (index, element) in elements.enumerated() {
                guard case .object(let object) = element else {
                    throw InitFailure(
                        "the sample is an array whose element [\(index)] is a JSON \(element.typeName), not an object: "
                            + "init infers models from objects")
                }
                records.append(object)
            }
            guard !records.isEmpty else { throw InitFailure("the sample is an empty array: nothing to infer from") }
            return InitSample(records: records, form: .array)
        default:
            throw InitFailure(
                "the sample is a JSON \(document.typeName), not an object: init infers models from objects")
        }
    }

    /// NDJSON: each non-blank line an object; `nil` when the bytes are one line, or a line is not JSON.
    private static func lines(_ bytes: [UInt8]) throws(InitFailure) -> InitSample? {
        var records: [JSONObject] = []
        var number = 0
        for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: false) {
            number += 1
            guard line.contains(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }) else { continue }
            guard let value = try? JSONParser.parse(Array(line)) else { return nil }
            guard case .object(let object) = value else {
                throw InitFailure("line \(number) of the sample is a JSON \(value.typeName), not an object")
            }
            records.append(object)
        }
        return records.count > 1 ? InitSample(records: records, form: .lines) : nil
    }

    /// The records that become tests: the first, then while some key has a value only in records
    /// not chosen yet, the one that has most of them (three at most).
    static func testRecords(_ records: [JSONObject]) -> [Int] {
        guard !records.isEmpty else { return [] }
        var chosen = [0]
        func present(_ record: JSONObject) -> Set<String> {
            Set(record.members.filter { $0.value != .null }.map(\.key))
        }
        var covered = present(records[0])
        while chosen.count < 3 {
            var best: (index: Int, adds: Int)?
            for (index, record) in records.enumerated() where !chosen.contains(index) {
                let adds = present(record).subtracting(covered).count
                if adds > 0, adds > (best?.adds ?? 0) { best = (index, adds) }
            }
            guard let best else { break }
            chosen.append(best.index)
            covered.formUnion(present(records[best.index]))
        }
        return chosen
    }
}
