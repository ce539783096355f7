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
    /// What `records` were taken from when they are a spread of the payload (`--sample N`):
    /// "1,000 records", "a file of 52 MB".
    package var spreadOver: String?

    package init(records: [JSONObject], form: Form, spreadOver: String? = nil) {
        self.records = records
        self.form = form
        self.spreadOver = spreadOver
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
        case .object(let object):
            try refuseDuplicateKeys(in: object, record: "the sample")
            return InitSample(records: [object], form: .object)
        case .array(let elements):
            var records: [JSONObject] = []
            for (index, element) in elements.enumerated() {
                guard case .object(let object) = element else {
                    throw InitFailure(
                        "the sample is an array whose element [\(index)] is a JSON \(element.typeName), not an object: "
                            + "init infers models from objects")
                }
                try refuseDuplicateKeys(in: object, record: "the sample's element [\(index)]")
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
            try refuseDuplicateKeys(in: object, record: "line \(number) of the sample")
            records.append(object)
        }
        return records.count > 1 ? InitSample(records: records, form: .lines) : nil
    }

    /// Refuses a record that writes a key twice in one object: which of its values the record
    /// means is not known (readers take either), and mapping it reports a duplicate key.
    ///
    /// ```text
    /// error: line 3 of the sample writes the key "id" twice in $.user: keep one of its values in the sample
    /// ```
    static func refuseDuplicateKeys(in object: JSONObject, record: String) throws(InitFailure) {
        guard let (key, path) = duplicateKey(in: .object(object), at: "$") else { return }
        throw InitFailure(
            "\(record) writes the key \(InitTexts.string(key)) twice in \(path): keep one of its values in the sample")
    }

    private static func duplicateKey(in value: JSONValue, at path: String) -> (String, String)? {
        switch value {
        case .object(let object):
            if let key = object.duplicateKeys.first { return (key, path) }
            for (key, member) in object.members {
                if let found = duplicateKey(in: member, at: path + "." + key) { return found }
            }
        case .array(let elements):
            for (index, element) in elements.enumerated() {
                if let found = duplicateKey(in: element, at: path + "[\(index)]") { return found }
            }
        default: break
        }
        return nil
    }

    /// `count` records spread evenly over the sample (the first, then every `records.count /
    /// count`th), or all of them when there are no more.
    package func spread(_ count: Int) -> InitSample {
        guard count > 0, records.count > count else { return self }
        let picked = (0..<count).map { records[$0 * records.count / count] }
        return InitSample(records: picked, form: form, spreadOver: InitReport.count(records.count, "record"))
    }

    /// The records that become tests, of those at `candidates`: the first, then while some key
    /// has a value only in records not chosen yet, the one that has most of them (three at most).
    static func testRecords(_ records: [JSONObject], among candidates: [Int]) -> [Int] {
        guard let first = candidates.first else { return [] }
        var chosen = [first]
        func present(_ record: JSONObject) -> Set<CodePointKey> {
            Set(record.members.filter { $0.value != .null }.map { CodePointKey($0.key) })
        }
        var covered = present(records[first])
        while chosen.count < 3 {
            var best: (index: Int, adds: Int)?
            for index in candidates where !chosen.contains(index) {
                let adds = present(records[index]).subtracting(covered).count
                if adds > 0, adds > (best?.adds ?? 0) { best = (index, adds) }
            }
            guard let best else { break }
            chosen.append(best.index)
            covered.formUnion(present(records[best.index]))
        }
        return chosen
    }
}
