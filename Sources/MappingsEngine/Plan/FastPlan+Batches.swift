import MappingsCompiler
import MappingsJSON

/// Batches: the transformer calls of many records made ahead, one batch per transformer (one C
/// call, with process isolation one request to a worker), their answers put in each record's
/// memo, where writing the record (by the plan, or by the general engine when the plan gives it
/// back) takes them as if it had made the calls. What is called for which value is what
/// mapping each record alone would call, filters first: a record the filter drops calls nothing
/// more.
extension FastPlan {
    /// Whether `prepare` makes calls ahead: the plan calls a transformer (or filters) that
    /// answers batches and prefers them (Lua in worker processes, where a call is a round trip).
    static func batchesCalls(filter: (call: PlanTables.Call, text: any TextTransformer)?, tables: PlanTables) -> Bool {
        (filter.map { batches($0.call.transform) } ?? false) || tables.transformers.contains { batches($0.transform) }
    }

    private static func batches(_ transform: any Transformer) -> Bool {
        (transform as? any BatchTransformer)?.prefersBatches ?? false
    }

    /// A memo for each record, holding the answers of the calls mapping it will make, made in
    /// batches. A record that does not scan gets an empty memo (it is the general engine's).
    package func prepare(_ records: [UnsafeBufferPointer<UInt8>]) -> [TransformerMemo] {
        let memos = records.map { _ in TransformerMemo() }
        guard batchesCalls else { return memos }
        var kept = [Bool](repeating: true, count: records.count)
        let scratch = TapeScratch.current
        if let filter, let batch = filter.call.transform as? any BatchTransformer, batch.prefersBatches {
            var owners: [Int] = []
            var inputs: [BatchInput] = []
            for (index, record) in records.enumerated() {
                guard let root = scratch.tape.scan(record, shape: shape),
                    case .frame = scratch.tape.nodes[Int(root)].kind
                else {
                    kept[index] = false
                    continue
                }
                let node = scratch.tape.nodes[Int(root)]
                owners.append(index)
                inputs.append(.text(UnsafeBufferPointer(rebasing: record[Int(node.start)..<Int(node.end)])))
            }
            for (offset, answer) in batch.transform(batch: inputs).enumerated() {
                let index = owners[offset]
                memos[index].prefill(filter.call.reference, inputs[offset], answer)
                // Dropped: nothing more is called for it.
                switch answer.result {
                case .success(.null), .success(.bool(false)): kept[index] = false
                default: break
                }
            }
        }
        var calls: [[(record: Int, input: BatchInput)]] = Array(repeating: [], count: tables.transformers.count)
        for (index, record) in records.enumerated() where kept[index] {
            guard let root = scratch.tape.scan(record, shape: shape) else { continue }
            let nodes = scratch.tape.nodes
            guard case .frame = nodes[Int(root)].kind else { continue }
            scratch.fanOuts.removeAll()
            tables.withPointers { pointers in
                let writer = Writer<JSONOutput>(
                    bytes: record, nodes: nodes, slots: scratch.tape.slots, plan: pointers, owner: self,
                    omittingNulls: false, memo: nil, scratch: scratch)
                writer.collect(0, frame: root) { transformer, input in
                    calls[Int(transformer)].append((index, input))
                }
            }
        }
        for (transformer, made) in calls.enumerated() where !made.isEmpty {
            let call = tables.transformers[transformer]
            guard let batch = call.transform as? any BatchTransformer, batch.prefersBatches else { continue }
            let answers = batch.transform(batch: made.map(\.input))
            for (offset, answer) in answers.enumerated() {
                memos[made[offset].record].prefill(call.reference, made[offset].input, answer)
            }
        }
        return memos
    }
}

extension Writer {
    /// The transformer calls writing plan object `index` from `frame` makes, in the order it
    /// makes them (nested objects included), each handed to `call` with its input: a span for
    /// an object, array or string (as `transform` hands it), else the value. Keyed selections are left
    /// to the writing (their text is put together then).
    func collect(_ index: Int32, frame: Int32, _ call: (Int32, BatchInput) -> Void) {
        guard frame >= 0 else { return }
        let object = plan.objects[Int(index)]
        for position in Int(object.first)..<Int(object.first + object.count) {
            let property = plan.properties[position]
            guard property.kind != .unset, property.selectionCount == 0 else { continue }
            guard property.transformer >= 0 || property.kind == .object || property.kind == .objects else { continue }
            guard let found = value(of: property, from: frame) else { return }
            if property.transformer >= 0 {
                guard !found.isMissing else { continue }
                if case .node(let node) = found, plan.transformers[Int(property.transformer)].text != nil,
                    let text = textSpan(of: nodes[Int(node)])
                {
                    call(property.transformer, .text(text))
                    continue
                }
                if let input = value(of: found) { call(property.transformer, .value(input)) }
                continue
            }
            guard case .node(let node) = found else { continue }
            let at = nodes[Int(node)]
            if property.kind == .object, at.kind.is(.frame) {
                collect(property.target, frame: node, call)
            } else if property.kind == .objects, at.kind.is(.list) {
                for offset in 0..<Int(at.count) {
                    let element = slots[Int(at.first) + offset]
                    if nodes[Int(element)].kind.is(.frame) { collect(property.target, frame: element, call) }
                }
            }
        }
    }
}
