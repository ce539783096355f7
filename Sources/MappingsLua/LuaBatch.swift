internal import CLuaSandbox
import Mappings

/// What one value of a batch got: the result, and the lines its call logged (written when the
/// record it belongs to is written, so that they keep their record's place in the log).
struct LuaBatchAnswer {
    var result: Result<JSONValue, LuaFailure>
    var log: LuaLogBatch
}

extension LuaInterpreter {
    /// Calls the function with registry reference `reference` once per input, in one C call
    /// (`clua_sandbox_run_batch`): each value a call of its own, with its own limits. Returns the
    /// answers of the inputs that ran — all, or up to the first whose failure leaves the
    /// interpreter unfit (the caller goes on with a fresh one).
    func callBatch(
        _ reference: Int32, inputs: ArraySlice<LuaInput>, userData: [UInt8]?, limits: LuaLimits
    ) -> [LuaBatchAnswer] {
        var wire: [UInt8] = []
        var offsets: [Int] = []
        offsets.reserveCapacity(inputs.count + 1)
        for input in inputs {
            offsets.append(wire.count)
            input.append(to: &wire)
        }
        offsets.append(wire.count)
        var items = [clua_batch_item](repeating: clua_batch_item(), count: inputs.count)
        var batch = clua_batch()
        defer { clua_batch_release(&batch) }
        let call = reused
        clua_call_reuse(call)
        call.pointee.log_limit = logLimit
        call.pointee.function_ref = reference
        call.pointee.output_limit = limits.result
        let ran = wire.withUnsafeBufferPointer { wire in
            for index in items.indices {
                items[index].input = wire.baseAddress.map { $0 + offsets[index] }
                items[index].input_count = offsets[index + 1] - offsets[index]
            }
            return withExtendedLifetime(userData) { () -> Int in
                let run = { (data: UnsafeBufferPointer<UInt8>?) -> Int in
                    call.pointee.user_data = data?.baseAddress
                    call.pointee.user_data_count = data?.count ?? 0
                    return clua_sandbox_run_batch(
                        self.state, call, &items, items.count, &batch, 0, Int64(limits.instructions),
                        limits.timeoutNanoseconds)
                }
                guard let userData else { return run(nil) }
                return userData.withUnsafeBufferPointer { run($0) }
            }
        }
        var answers: [LuaBatchAnswer] = []
        answers.reserveCapacity(ran)
        for (index, input) in zip(0..<ran, inputs) {
            var item = items[index]
            var log = LuaLogBatch()
            if item.log_count > 0, let lines = batch.log {
                log.lines = Array(UnsafeRawBufferPointer(start: lines + item.log_start, count: item.log_count))
            }
            log.dropped = Int(item.log_dropped)
            guard item.status == CLUA_OK else {
                let message = withUnsafeBytes(of: &item.message) {
                    String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
                }
                answers.append(
                    LuaBatchAnswer(result: .failure(LuaFailure(status: item.status, message: message)), log: log))
                continue
            }
            let bytes = UnsafeRawBufferPointer(
                start: batch.output.map { $0 + item.output_start }, count: item.output_count)
            let result = Result { () throws(LuaWire.Failure) in
                try LuaWire.decode(bytes, keys: resultKeys, input: input)
            }
            answers.append(
                LuaBatchAnswer(result: result.mapError { LuaFailure(kind: .badResult, message: $0.message) }, log: log))
        }
        return answers
    }
}

extension LuaWorkerProcess {
    /// `LuaInterpreter.callBatch` in the worker: one request for the batch (or for as much of it
    /// as one result limit of answers holds; the rest in the next).
    func callBatch(
        _ reference: Int32, inputs: ArraySlice<LuaInput>, userData: [UInt8]?, limits: LuaLimits
    ) -> [LuaBatchAnswer] {
        var frame = Frame()
        frame.u8(UInt8(ascii: "B"))
        frame.string("")
        frame.string("")
        frame.u32(UInt32(bitPattern: reference))
        if let userData {
            frame.u8(1)
            frame.data(userData)
        } else {
            frame.u8(0)
        }
        frame.u32(UInt32(inputs.count))
        var size = 0
        for input in inputs {
            if case .text(let text) = input { size += text.count + 9 } else { size += 64 }
        }
        frame.bytes.reserveCapacity(frame.bytes.count + size)
        for input in inputs {
            // Each value's wire straight into the frame, its length written before it once known.
            let start = frame.bytes.count
            frame.u32(0)
            input.append(to: &frame.bytes)
            let length = UInt32(frame.bytes.count - start - 4).littleEndian
            withUnsafeBytes(of: length) { bytes in
                for offset in 0..<4 { frame.bytes[start + offset] = bytes[offset] }
            }
        }
        // Each value is bounded by its own deadline in the worker; this is the backstop.
        let deadline = ContinuousClock.now + limits.timeout * inputs.count + Self.margin
        // A batch's answer takes longer than waking up: the host sleeps until it comes, leaving the
        // core to the worker (and to the lane writing the records before).
        guard let response = request(frame, until: deadline, spin: .zero), response.status == CLUA_OK else {
            // The worker is gone, and which value took it down is not known: no answer, and the
            // caller goes on one value at a time, so that the loss falls on the value that caused it.
            guard inputs.count == 1 else { return [] }
            let kind: LuaFailure.Kind = lastLoss.hasPrefix("deadline") ? .deadline : .failed
            return [LuaBatchAnswer(result: .failure(LuaFailure(kind: kind, message: lastLoss)), log: LuaLogBatch())]
        }
        var answers: [LuaBatchAnswer] = []
        let ran = min(max(0, Int(response.a)), inputs.count)
        answers.reserveCapacity(ran)
        response.output.withUnsafeBytes { packed in
            var reader = PackedReader(packed: packed)
            for input in inputs.prefix(ran) {
                guard let status = reader.u32(), let message = reader.bytes(), let output = reader.bytes(),
                    let lines = reader.bytes(), let dropped = reader.u32()
                else { break }
                let log = LuaLogBatch(lines: lines.isEmpty ? [] : Array(lines), dropped: Int(dropped))
                guard Int32(bitPattern: status) == CLUA_OK else {
                    let failure = LuaFailure(
                        status: Int32(bitPattern: status), message: String(decoding: message, as: UTF8.self))
                    answers.append(LuaBatchAnswer(result: .failure(failure), log: log))
                    continue
                }
                let result = Result { () throws(LuaWire.Failure) in
                    try LuaWire.decode(output, keys: resultKeys, input: input)
                }
                answers.append(
                    LuaBatchAnswer(
                        result: result.mapError { LuaFailure(kind: .badResult, message: $0.message) }, log: log))
            }
        }
        // An answer that is not what was asked for is a worker that cannot be trusted: it goes.
        guard answers.count == ran, ran > 0 else {
            stop()
            guard inputs.count == 1 else { return [] }
            let failure = LuaFailure(
                kind: .failed, message: "the Lua worker process answered out of turn (it was ended)")
            return [LuaBatchAnswer(result: .failure(failure), log: LuaLogBatch())]
        }
        return answers
    }

    /// Reads the packed answers of a batch response.
    private struct PackedReader {
        let packed: UnsafeRawBufferPointer
        var offset = 0

        mutating func u32() -> UInt32? {
            guard offset + 4 <= packed.count else { return nil }
            defer { offset += 4 }
            return UInt32(packed[offset]) | UInt32(packed[offset + 1]) << 8 | UInt32(packed[offset + 2]) << 16
                | UInt32(packed[offset + 3]) << 24
        }

        mutating func bytes() -> UnsafeRawBufferPointer? {
            guard let count = u32().map(Int.init), offset + count <= packed.count else { return nil }
            defer { offset += count }
            return UnsafeRawBufferPointer(rebasing: packed[offset..<offset + count])
        }
    }
}
