import Foundation
import MappingsCompiler
import MappingsJSON
package import MappingsModel

/// The typed path of a plan: a record's bytes into the `Value` the general engine would map,
/// for a Swift type to take (`map(_:to:context:)`, `decode`) — the same scan and lookups as the
/// JSON-out path, every value converted by the general conversion, no `JSONValue` of the record.
///
/// As on the JSON-out path, a record the plan cannot map cleanly gives `nil` and the caller maps
/// it the general way, which reports what is wrong; so does every record of a plan that calls
/// transformers or filters (those go through the general engine's memo) or reads keyed selections.
extension FastPlan {
    /// Whether the typed path can take a plan's records at all (found once, when it is made).
    static func buildsValues(filter: (call: PlanTables.Call, text: any TextTransformer)?, tables: PlanTables) -> Bool {
        filter == nil && tables.transformers.isEmpty && !tables.properties.contains { $0.selectionCount > 0 }
    }

    /// The mapped value of a record, or `nil` when the general engine must map it.
    package func value(of buffer: UnsafeBufferPointer<UInt8>) -> Value? {
        guard buildsValues else { return nil }
        let scratch = TapeScratch.current
        guard let root = scratch.tape.scan(buffer, shape: shape) else { return nil }
        scratch.fanOuts.removeAll()
        let nodes = scratch.tape.nodes
        return tables.withPointers { pointers in
            guard case .frame = nodes[Int(root)].kind else { return nil }
            let writer = Writer<JSONOutput>(
                bytes: buffer, nodes: nodes, slots: scratch.tape.slots, plan: pointers, owner: self,
                omittingNulls: false, memo: nil, scratch: scratch)
            return writer.objectValue(0, frame: root)
        }
    }
}

extension Writer {
    /// The model object of plan object `index` from the frame `frame` (-1: every key path
    /// missing), as `object(_:frame:into:)` writes it.
    func objectValue(_ index: Int32, frame: Int32) -> Value? {
        let object = plan.objects[Int(index)]
        var result = ModelObject(model: owner.tables.models[Int(index)])
        for slot in 0..<Int(object.count) {
            let property = plan.properties[Int(object.first) + slot]
            if property.kind == .unset { continue }
            var found = Found.missing
            if property.single >= 0, frame >= 0 {
                let child = slots[Int(nodes[Int(frame)].first) + Int(property.single)]
                if child >= 0, !nodes[Int(child)].kind.is(.null) { found = .node(child) }
            }
            if found.isMissing, frame >= 0 {
                guard let lookedUp = value(of: property, from: frame) else { return nil }
                found = lookedUp
            }
            if case .missing = found {
                // A required value is an issue: the general engine reports it.
                guard property.isOptional else { return nil }
                if property.defaultValue >= 0 { result.slots[slot] = owner.tables.defaults[Int(property.defaultValue)] }
                continue
            }
            guard let value = value(found, as: property) else { return nil }
            result.slots[slot] = value
        }
        return .object(result)
    }

    /// A present value as the property's type.
    private func value(_ found: Found, as property: PlanTables.Property) -> Value? {
        if case .node(let index) = found {
            let node = nodes[Int(index)]
            switch property.kind {
            case .object:
                guard node.kind.is(.frame) else { return nil }
                return objectValue(property.target, frame: index)
            case .objects:
                guard node.kind.is(.list) else { return nil }
                var elements: [Value] = []
                elements.reserveCapacity(Int(node.count))
                for offset in 0..<Int(node.count) {
                    let element = slots[Int(node.first) + offset]
                    let built: Value?
                    switch nodes[Int(element)].kind {
                    case .frame: built = objectValue(property.target, frame: element)
                    // A null element: the general engine keeps it null, or says it is one.
                    default: built = nil
                    }
                    guard let built else { return nil }
                    elements.append(built)
                }
                return .array(elements)
            case .string where node.kind.is(.string):
                if case .string(let string)? = JSONTape.value(of: node, in: bytes) { return .string(string) }
            case .int where node.kind.is(.number):
                if case .integer(let integer)? = JSONTape.value(of: node, in: bytes) { return .int(Int(integer)) }
            case .bool where node.kind.is(.true):
                return .bool(true)
            case .bool where node.kind.is(.false):
                return .bool(false)
            case .date where node.kind.is(.string) && !node.escaped && copiesDate(node):
                if let date = isoDate(node) { return .date(date) }
            case .formattedDate where node.kind.is(.string) && !node.escaped:
                let text = UnsafeBufferPointer(rebasing: bytes[Int(node.start)..<Int(node.end)])
                if let date = plan.conversions[Int(property.target)].dateFormats?.date(fromBytes: text) {
                    return .date(date)
                }
            default:
                break
            }
        } else if property.kind == .object || property.kind == .objects {
            // Objects read through a fan-out are the general engine's.
            return nil
        }
        guard let input = value(of: found) else { return nil }
        // An array of strings: each as it is (a null or another kind converts, and may fail).
        if property.kind == .strings, case .array(let elements) = input {
            var strings: [Value] = []
            strings.reserveCapacity(elements.count)
            for element in elements {
                guard case .string(let string) = element else { break }
                strings.append(.string(string))
            }
            if strings.count == elements.count { return .array(strings) }
        }
        let conversion = plan.conversions[Int(property.target)]
        var failures: [ConversionFailure] = []
        guard let found = conversion.found(input) else { return nil }
        let mapped = conversion.valueMap.map { $0.map(found) } ?? found
        let converted = (conversion.strict ? owner.strictConverter : owner.converter).convert(
            mapped, to: conversion.type, dateFormat: conversion.dateFormats, failures: &failures)
        // A value mapped to null leaves the property unset: the general engine's to say so.
        guard failures.isEmpty, converted != .null else { return nil }
        return converted
    }

    /// The date of a string `copiesDate` accepted (`2012-08-29T14:40:05Z`), as the conversion
    /// reads it: whole seconds at UTC.
    private func isoDate(_ node: JSONTape.Node) -> Date? {
        let start = Int(node.start)
        func field(_ offset: Int, _ count: Int) -> Int {
            var value = 0
            for position in offset..<offset + count { value = value * 10 + Int(bytes[start + position] &- 48) }
            return value
        }
        guard
            let seconds = DateParser.seconds(
                year: field(0, 4), month: field(5, 2), day: field(8, 2), hour: field(11, 2), minute: field(14, 2),
                second: field(17, 2), offset: 0)
        else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }
}
