import Foundation
import Mappings
import MappingsEncoding
import MappingsSpark

/// Maps NDJSON for the Python module on worker lanes, block after block: the caller submits
/// blocks of whole lines and takes each block's results in input order, while the lanes map
/// the next ones (the module builds Python objects meanwhile). With an Arrow builder, the
/// records that map go into its columns and only the others come back.
///
/// With no workers, `submit` maps the block itself, on the calling thread (which the module
/// calls with the GIL released), reading the caller's bytes in place: no copy of the lines, no
/// hand-over between cores, the results read back while they are in this core's cache — the
/// least CPU a record, for callers that count a core's work rather than the wall clock.
///
/// Neither way holds the caller longer than a slice (`slice`) plus the record then mapping
/// (which its Lua deadline bounds): the calling thread maps a block's lines until the slice
/// ends and says how far it got, and `wait` waits for the lanes a slice at a time, so that the
/// module looks for Ctrl-C between slices; `stop` then ends the lanes as `mappings stream`
/// ends them on SIGINT (`RecordPipeline.stopLanes`: each ends its record and starts no other).
final class LineSession: @unchecked Sendable {
    /// The longest line that is a record, as `mappings stream` reads them: a longer one is a
    /// reject that says so, with its first bytes (and no block holds it).
    package static let maximumLine = JSONLines.maximumLine

    /// What is queued, in input order: a block on the lanes (from line `firstLine`), or a line
    /// over the limit.
    private enum Pending {
        case block(BlockResult, firstLine: Int)
        case overlong(line: Int, head: [UInt8])
    }

    let context: PythonContext
    /// The lanes; `nil` with no workers (then `callers` maps on the calling thread).
    private let pipeline: RecordPipeline?
    /// With no workers: the mapper blocks are mapped with on the calling thread, and the
    /// results of the blocks submitted and not yet taken.
    private let callers: RecordMapper?
    private var ready: [[UInt8]] = []
    /// The record's output as the mapper writes it, for one that is not clean.
    private var scratch: [UInt8] = []
    private var pending: [Pending] = []
    /// Lines of the head block already taken.
    private var delivered = 0
    private var nextLine = 1
    /// The storage of blocks taken, for the next blocks: refilled rather than allocated, so that
    /// a block's bytes are not fresh pages (which the kernel maps and zeroes first) every time.
    private var spares: [[UInt8]] = []
    private static let spareBlocks = 4
    let arrow: ArrowBuilder?
    /// The most an Arrow batch's columns hold (`to_arrow` hands a batch over past 256 MiB).
    let batchLimit: Int
    /// Set by `stop`: nothing more is mapped or taken.
    private var stopped = false

    /// How long the calling thread maps before it hands back, in nanoseconds: 50 ms, so that
    /// Ctrl-C is heard within that and the record then mapping.
    static let slice = 50_000_000

    init(context: PythonContext, workers: Int, batchLimit: Int = 1 << 30) {
        self.context = context
        self.batchLimit = batchLimit
        if workers > 0 {
            // No latency is reported to Python: lanes read no clock a record.
            pipeline = RecordPipeline(lanes: workers, timesRecords: false)
            callers = nil
        } else {
            pipeline = nil
            callers = context.records.independentCopy()
        }
        arrow = context.encoder.forArrow ? ArrowBuilder(schema: context.schema) : nil
    }

    deinit {
        pipeline?.stopLanes()
    }

    /// Blocks submitted and not all taken.
    var pendingBlocks: Int { stopped ? 0 : pipeline == nil ? ready.count : pending.count }

    /// Queues `bytes` (whole lines; the last may lack its line feed only at the input's end);
    /// a line over `maximumLine` is cut out of the block, a reject of its own.
    func submit(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { source in
            var taken = 0
            while taken < source.count {
                taken += submit(copying: UnsafeBufferPointer(rebasing: source[taken...]))
            }
        }
    }

    /// `submit(_:)` of bytes the caller keeps: copied once, into the storage of a block taken
    /// when there is one; with no workers, mapped where they are, until the slice ends. Returns
    /// how many bytes were taken (whole lines): all, unless the calling thread's slice ended
    /// first; the caller submits the rest again.
    func submit(copying source: UnsafeBufferPointer<UInt8>) -> Int {
        guard !source.isEmpty, !stopped else { return source.count }
        if let callers {
            var lines: [UnsafeBufferPointer<UInt8>] = []
            var starts: [Int] = []
            var position = 0
            while position < source.count {
                var end = source.count
                if let found = memchr(source.baseAddress! + position, 0x0A, source.count - position) {
                    end = source.baseAddress!.distance(to: found.assumingMemoryBound(to: UInt8.self))
                }
                lines.append(UnsafeBufferPointer(rebasing: source[position..<end]))
                starts.append(position)
                position = end + 1
            }
            let mapped = mapHere(lines, with: callers)
            return mapped < lines.count ? starts[mapped] : source.count
        }
        var bytes = spare(holding: source.count)
        bytes.withUnsafeMutableBufferPointer { buffer in
            if let base = source.baseAddress { buffer.baseAddress!.update(from: base, count: source.count) }
        }
        let end = source.count
        var start = 0
        var lines = 0
        RecordBlock.forEachLine(in: bytes, range: 0..<end) { line, next in
            if line.count > Self.maximumLine {
                queue(bytes, start..<line.lowerBound, lines: lines)
                overlong(line: line.lowerBound..<next, of: bytes)
                start = next
                lines = 0
            } else {
                lines += 1
            }
            return true
        }
        queue(bytes, start..<end, lines: lines)
        return source.count
    }

    /// `submit(lines:mapped:)` of every line, slice after slice.
    func submit(lines: [UnsafeBufferPointer<UInt8>]) -> Int? {
        var taken = 0
        while taken < lines.count {
            var mapped = 0
            if let holding = submit(lines: Array(lines[taken...]), mapped: &mapped) { return taken + holding }
            taken += mapped
        }
        return nil
    }

    /// Queues `lines` (each without its line feed), copied once into blocks of whole lines; a
    /// line over `maximumLine` is a reject of its own. A line that holds a line feed would be
    /// two records: then nothing is queued, and the answer is its index. Each line is checked
    /// as it is copied, while its bytes are in the cache: the input is read once. `mapped`: how
    /// many lines were taken — all, unless the calling thread's slice ended first (the caller
    /// submits the rest again).
    func submit(lines: [UnsafeBufferPointer<UInt8>], mapped: inout Int) -> Int? {
        mapped = lines.count
        guard !stopped else { return nil }
        if let callers {
            // Every line is checked before any maps: a block refused maps nothing (its scripts
            // log nothing either).
            for (index, line) in lines.enumerated() where !line.isEmpty {
                if memchr(line.baseAddress!, 0x0A, line.count) != nil { return index }
            }
            mapped = mapHere(lines, with: callers)
            return nil
        }
        enum Part {
            case block([UInt8], size: Int, lineEnds: [Int])
            case overlong(head: [UInt8])
        }
        var parts: [Part] = []
        var index = 0
        var holding: Int?
        while index < lines.count, holding == nil {
            var end = index
            var size = 0
            // Measured without a carriage return, as the lines of a block are read: a line of
            // exactly the limit and its `\r` is a record, as in `stream`.
            while end < lines.count, Self.trimmed(lines[end]).count <= Self.maximumLine {
                size += lines[end].count + 1
                end += 1
            }
            if end > index {
                // Where each line ends is known: no one looks for them again.
                var lineEnds: [Int] = []
                lineEnds.reserveCapacity(end - index)
                var bytes = spare(holding: size)
                holding = bytes.withUnsafeMutableBufferPointer { buffer -> Int? in
                    var at = 0
                    for (offset, line) in lines[index..<end].enumerated() {
                        if let base = line.baseAddress, !line.isEmpty {
                            let copy = buffer.baseAddress! + at
                            copy.update(from: base, count: line.count)
                            if memchr(copy, 0x0A, line.count) != nil { return index + offset }
                        }
                        at += line.count
                        buffer[at] = 0x0A
                        lineEnds.append(at)
                        at += 1
                    }
                    return nil
                }
                parts.append(.block(bytes, size: size, lineEnds: lineEnds))
            }
            if holding == nil, end < lines.count {
                let line = lines[end]
                if memchr(line.baseAddress!, 0x0A, line.count) != nil { holding = end }
                parts.append(.overlong(head: Array(UnsafeBufferPointer(rebasing: line.prefix(1024)))))
                end += 1
            }
            index = end
        }
        for part in parts {
            switch part {
            case .block(let bytes, let size, let lineEnds):
                if holding != nil {
                    // Never queued: refilled before the block taken last, which may still be held.
                    recycle(bytes, first: true)
                } else {
                    queue(bytes, 0..<size, lines: lineEnds.count, lineEnds: lineEnds)
                }
            case .overlong(let head):
                guard holding == nil else { continue }
                pending.append(.overlong(line: nextLine, head: head))
                nextLine += 1
            }
        }
        return holding
    }

    /// Maps `lines` (each without its line feed) on the calling thread, in place, into one
    /// buffer of results that `take` hands over next, until the slice ends; returns how many
    /// lines it took. (The module's Lua runs in process: no transformer calls are batched
    /// ahead, `RecordMapper.batchesCalls`, as for Lua workers.)
    private func mapHere(_ lines: [UnsafeBufferPointer<UInt8>], with records: RecordMapper) -> Int {
        var out: [UInt8] = []
        let ends = Self.coarseNanoseconds() + Self.slice
        var taken = 0
        defer { ready.append(out) }
        for line in lines {
            // At least one line a call, so that each goes on.
            if taken > 0, Self.coarseNanoseconds() >= ends { return taken }
            taken += 1
            let number = nextLine
            nextLine += 1
            let record = Self.trimmed(line)
            // The length first, as the lanes and `stream` check it: a line of 64 MiB of spaces
            // is a line too long, not a blank one.
            if record.count > Self.maximumLine {
                appendOverlong(
                    line: number, head: Array(UnsafeBufferPointer(rebasing: record.prefix(1024))), into: &out)
                continue
            }
            if RecordBlock.isBlank(record) { continue }
            mapHere(record, number: number, with: records, into: &out)
        }
        return taken
    }

    /// The monotonic clock at the kernel's tick (a read of a shared page, a few nanoseconds:
    /// cheap enough a record, precise enough for a slice of 50 ms), in nanoseconds.
    private static func coarseNanoseconds() -> Int {
        var time = timespec()
        #if os(Linux)
            clock_gettime(CLOCK_MONOTONIC_COARSE, &time)
        #else
            clock_gettime(CLOCK_MONOTONIC, &time)
        #endif
        return time.tv_sec * 1_000_000_000 + time.tv_nsec
    }

    /// Maps one record into `out`. A clean one (most) is written where its result goes: the
    /// mapper's frame and the byte before it become the result's line and status, so its tags
    /// are not moved.
    private func mapHere(
        _ record: UnsafeBufferPointer<UInt8>, number: Int, with records: RecordMapper, into out: inout [UInt8]
    ) {
        if arrow == nil {
            let start = out.count
            out.append(0)
            let outcome = records.map(record, into: &out)
            if outcome.kind == .clean, out.count >= start + 5 {
                out.withUnsafeMutableBytes { bytes in
                    bytes.storeBytes(
                        of: UInt32(truncatingIfNeeded: number).littleEndian, toByteOffset: start, as: UInt32.self)
                    bytes[start + 4] = ResultWriter.status(.clean)
                }
                out.append(contentsOf: ResultWriter.noIssues)
                return
            }
            scratch.removeAll(keepingCapacity: true)
            if out.count > start + 1 { scratch.append(contentsOf: out[(start + 1)...]) }
            out.removeSubrange(start...)
            deliver(number: number, outcome: outcome, output: scratch, input: record, into: &out)
            return
        }
        scratch.removeAll(keepingCapacity: true)
        let outcome = records.map(record, into: &scratch)
        deliver(number: number, outcome: outcome, output: scratch, input: record, into: &out)
    }

    /// A mapped record's result into `out` (or, for an Arrow session, its tags into the
    /// columns): `output` is what the mapper wrote (a 4-byte length, then the tags).
    private func deliver(
        number: Int, outcome: RecordOutcome, output: [UInt8], input: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]
    ) {
        let written =
            outcome.kind == .clean || outcome.kind == .withWarnings
            || (outcome.kind == .withErrors && !outcome.unwritable)
        deliver(
            number: number, outcome: outcome, value: written && output.count >= 4 ? output[4...] : nil, input: input,
            into: &out)
    }

    /// The line without its carriage return, as the lanes read lines.
    private static func trimmed(_ line: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        guard let last = line.last, last == 0x0D else { return line }
        return UnsafeBufferPointer(rebasing: line.dropLast())
    }

    /// Storage for a block of `size` bytes: a block's that was taken, when one is big enough
    /// and nothing holds it any more (its pages are in memory already), else new.
    private func spare(holding size: Int) -> [UInt8] {
        // The block taken last may still be held a moment (it is the pipeline's head until the
        // next take): its storage waits for the next round, so that refilling never copies.
        if spares.count > 1, let index = spares.dropLast().firstIndex(where: { $0.count >= size }) {
            return spares.remove(at: index)
        }
        // Room for an eighth more: the blocks to come, about as large, fit it.
        let room = size + size / 8
        return [UInt8](unsafeUninitializedCapacity: room) { _, initialized in initialized = room }
    }

    /// Keeps the storage of a block that was taken for a block to come (`first`: storage no
    /// block holds, refilled before the others).
    private func recycle(_ bytes: [UInt8], first: Bool = false) {
        guard bytes.count >= 1 << 16, bytes.count <= 8 << 20 else { return }
        if spares.count == Self.spareBlocks { spares.removeFirst() }
        if first { spares.insert(bytes, at: 0) } else { spares.append(bytes) }
    }

    private func overlong(line: Range<Int>, of bytes: [UInt8]) {
        pending.append(.overlong(line: nextLine, head: Array(bytes[line.lowerBound..<(line.lowerBound + 1024)])))
        nextLine += 1
    }

    private func queue(_ bytes: [UInt8], _ range: Range<Int>, lines: Int, lineEnds: [Int]? = nil) {
        guard !range.isEmpty, let pipeline else { return }
        let block = RecordBlock(
            bytes: bytes, range: range, offset: 0, records: context.records, writesErrors: true, lineEnds: lineEnds)
        pending.append(.block(pipeline.submit(block), firstLine: nextLine))
        nextLine += lines
    }

    /// The results `takeHeld` handed over last, kept (and not changed) until the next.
    private var held: [UInt8] = []

    /// `take()`'s results read in place: their bytes stay where they are until the session's
    /// next `takeHeld` (or its end) — a native array, not changed meanwhile, keeps its storage,
    /// so they are not copied for the caller; `nil` when nothing is pending.
    func takeHeld() -> UnsafeBufferPointer<UInt8>? {
        guard let results = take() else {
            held = []
            return nil
        }
        held = results
        return held.withUnsafeBufferPointer { $0 }
    }

    /// Waits up to `milliseconds` for what `take` would wait for (the head block on the lanes);
    /// whether `take` now returns without waiting.
    func wait(milliseconds: Int) -> Bool {
        guard !stopped, let pipeline, case .block(let result, _)? = pending.first else { return true }
        pipeline.setHead(result)
        return pipeline.wait(for: result, timeout: Double(milliseconds) / 1000)
    }

    /// Ends the session: lanes end the record they map and start no other (as `mappings
    /// stream`'s on SIGINT), what is pending is dropped, and nothing more is mapped or taken.
    /// The module calls it when Ctrl-C interrupts a caller waiting for the session.
    func stop() {
        stopped = true
        pipeline?.stopLanes()
        pending.removeAll()
        ready.removeAll()
    }

    /// Waits for the head block (or its first part) and returns its records' results
    /// (`ResultWriter`'s form; with an Arrow builder, only the records that did not go in);
    /// `nil` when nothing is pending.
    func take() -> [UInt8]? {
        guard !stopped else { return nil }
        guard let pipeline else { return ready.isEmpty ? nil : ready.removeFirst() }
        guard let first = pending.first else { return nil }
        let head: (result: BlockResult, firstLine: Int)
        switch first {
        case .overlong(let line, let headBytes):
            pending.removeFirst()
            var out: [UInt8] = []
            appendOverlong(line: line, head: headBytes, into: &out)
            return out
        case .block(let result, let firstLine):
            head = (result, firstLine)
        }
        pipeline.setHead(head.result)
        while !pipeline.wait(for: head.result, timeout: 1) {}
        let piece = head.result.take()
        var out: [UInt8] = []
        if let clean = cleanFrames(of: piece) {
            // Every line since the last take is a record the lane wrote cleanly: their frames
            // in order, no line end looked for again.
            piece.output.withUnsafeBytes { output in
                if let arrow {
                    for frame in clean { arrow.append(UnsafeRawBufferPointer(rebasing: output[frame])) }
                    return
                }
                out.reserveCapacity(output.count + 10 * clean.count)
                for (record, frame) in clean.enumerated() {
                    ResultWriter.appendClean(
                        line: head.firstLine + delivered + record,
                        value: UnsafeRawBufferPointer(rebasing: output[frame]),
                        into: &out)
                }
            }
            advance(past: piece, head: head)
            return out
        }
        var outputStart = 0
        piece.forEachRecord(after: delivered) { lineNumber, line, event in
            var value: ArraySlice<UInt8>?
            if event?.written ?? true, outputStart + 4 <= piece.output.count {
                let length = piece.output[outputStart..<(outputStart + 4)].reversed().reduce(0) { $0 << 8 | Int($1) }
                value = piece.output[(outputStart + 4)..<(outputStart + 4 + length)]
                // The frame, then the line feed the lane ends each record's output with.
                outputStart += 4 + length + 1
            }
            piece.block.bytes.withUnsafeBufferPointer { bytes in
                deliver(
                    number: head.firstLine + lineNumber - 1, outcome: event?.outcome ?? RecordOutcome(kind: .clean),
                    value: value, input: UnsafeBufferPointer(rebasing: bytes[line]), into: &out)
            }
        }
        advance(past: piece, head: head)
        return out
    }

    /// A record's result into `out`, or, for an Arrow session, a clean record's tags into the
    /// columns (only the others come back); `value`: its tags when it was written.
    private func deliver(
        number: Int, outcome given: RecordOutcome, value: ArraySlice<UInt8>?, input: UnsafeBufferPointer<UInt8>,
        into out: inout [UInt8]
    ) {
        var outcome = given
        if outcome.kind == .filtered { return }
        // The encoder checked the tags against the Arrow schema on the lane: a record that
        // does not fit has errors (and no tags), and comes back as the others that failed.
        if let arrow, outcome.kind == .clean || outcome.kind == .withWarnings, let tags = value {
            // Arrow's strings and lists have 32-bit offsets: a record that would take a
            // batch's columns past 1 GiB (outputs that scripts made far larger than their
            // inputs) is a reject that says so, rather than offsets that wrap.
            if arrow.heldBytes + tags.count <= batchLimit {
                tags.withUnsafeBytes { arrow.append($0) }
                return
            }
            let issue = MappingIssue(
                record: .outputNotInSchema,
                message: "the record's output does not fit the Arrow batch: its columns would pass "
                    + "\(batchLimit) bytes (the batch holds \(arrow.heldBytes))",
                context: context.compiled)
            outcome = RecordOutcome(kind: .withErrors, issues: outcome.issues + [issue])
        }
        // A reject of an Arrow session goes back without its tags, which are Arrow's (its
        // decimals as decimal128), not values: `to_arrow` keeps its line, input and issues.
        ResultWriter.append(
            line: number, outcome: outcome, context: context.compiled, value: arrow == nil ? value : nil,
            input: input, into: &out)
    }

    /// The result of a line over `maximumLine`: a record that is not JSON, with its first bytes.
    private func appendOverlong(line: Int, head: [UInt8], into out: inout [UInt8]) {
        let issue = MappingIssue(
            record: .lineTooLong, message: "the line is longer than \(Self.maximumLine) bytes",
            context: context.compiled)
        ResultWriter.append(
            line: line, outcome: RecordOutcome(kind: .invalid, issues: [issue]), context: context.compiled,
            value: nil, input: head, into: &out, issues: [issue])
    }

    /// The frames of `piece`'s records (ranges of its output, without their line feeds) when
    /// each of its lines is a record the lane wrote cleanly — no blank line, no event — and
    /// they fit the Arrow batch; `nil` otherwise.
    private func cleanFrames(of piece: BlockResult.State) -> [Range<Int>]? {
        guard piece.events.isEmpty, piece.records == piece.lines - delivered, piece.records > 0 else { return nil }
        if let arrow, arrow.heldBytes + piece.output.count > batchLimit { return nil }
        var frames: [Range<Int>] = []
        frames.reserveCapacity(piece.records)
        let found: Bool = piece.output.withUnsafeBytes { output in
            var at = 0
            for _ in 0..<piece.records {
                guard at + 4 <= output.count else { return false }
                let length = Int(UInt32(littleEndian: output.loadUnaligned(fromByteOffset: at, as: UInt32.self)))
                guard at + 4 + length < output.count, output[at + 4 + length] == 0x0A else { return false }
                frames.append((at + 4)..<(at + 4 + length))
                at += 4 + length + 1
            }
            return at == output.count
        }
        return found ? frames : nil
    }

    /// Notes that `piece` of the head block was taken: the block's next lines, or its tail, or
    /// the next pending entry come next.
    private func advance(past piece: BlockResult.State, head: (result: BlockResult, firstLine: Int)) {
        delivered = piece.lines
        if piece.finished {
            delivered = 0
            if let tail = piece.tail {
                pending[0] = .block(tail, firstLine: head.firstLine + piece.lines)
            } else {
                pending.removeFirst()
                recycle(piece.block.bytes)
            }
        }
    }
}
