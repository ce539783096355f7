import Foundation

/// Where a record path's blocks come from: it reads ahead, submitting each block it gathers to
/// the pipeline (and each line that cannot be a record, unsubmitted) in input order, while
/// what is held stays under a limit.
package protocol BlockSource {
    /// Whether the input has ended (everything it held is pending).
    var ended: Bool { get }
    /// Reads and submits while `held` is under `limit` bytes, appending what it gathered to
    /// `pending` and its bytes to `held`.
    mutating func readAhead(into pending: inout [PendingLines], held: inout Int, limit: Int, pipeline: RecordPipeline)
}

/// What a stream read and has not given yet: a block in flight, from the line `firstIndex` and
/// starting `offset` bytes into the stream's lines, or a line that holds a line feed (`result`
/// nil, its bytes in `unsplit`), which is no record.
package struct PendingLines {
    var result: BlockResult?
    var firstIndex: Int
    var unsplit: [UInt8] = []
    var offset = 0
}

/// The blocks of an NDJSON text held whole, sharing its storage: about `blockSize` bytes each,
/// cut after a line feed.
struct TextBlocks: BlockSource {
    private let whole: RecordBlock
    private let count: Int
    private let blockSize: Int
    private var next = 0
    private var nextIndex = 0

    init(text: [UInt8], blockSize: Int, records: RecordMapper) {
        whole = RecordBlock(bytes: text, offset: 0, records: records, writesErrors: true)
        count = text.count
        self.blockSize = blockSize
    }

    var ended: Bool { next >= count }

    mutating func readAhead(into pending: inout [PendingLines], held: inout Int, limit: Int, pipeline: RecordPipeline) {
        while next < count, held < limit {
            var end = min(count, next + blockSize)
            if end < count { end = (whole.bytes[end...].firstIndex(of: 0x0A) ?? count - 1) + 1 }
            let block = whole.part(next..<end)
            pending.append(PendingLines(result: pipeline.submit(block), firstIndex: nextIndex))
            nextIndex += block.lineCount()
            held += end - next
            next = end
        }
    }
}

/// The lines of a sequence gathered into blocks of about `blockSize` bytes, each line ended by
/// a line feed; a line that holds a line feed is no line of a block, and comes on its own.
struct LineBlocks<Lines: IteratorProtocol>: BlockSource where Lines.Element == [UInt8] {
    enum Gathered {
        /// A block, and the index of its first line.
        case block(RecordBlock, firstIndex: Int)
        /// A line that holds a line feed, its index, and where it starts.
        case unsplit([UInt8], index: Int, offset: Int)
    }

    private var lines: Lines
    private let blockSize: Int
    private let records: RecordMapper
    private let writesErrors: Bool
    private var building: [UInt8] = []
    /// Where each line feed of `building` is: lanes then look for none.
    private var lineEnds: [Int] = []
    private var buildingFirst = 0
    /// Lines read, and their bytes (each with its line feed).
    private(set) var index = 0
    private(set) var offset = 0
    private(set) var ended = false

    init(_ lines: Lines, blockSize: Int, records: RecordMapper, writesErrors: Bool) {
        self.lines = lines
        self.blockSize = blockSize
        self.records = records
        self.writesErrors = writesErrors
    }

    /// Reads lines and submits their blocks to `pipeline` while what is held is under `limit`
    /// bytes, appending each block, and each line that holds a line feed, to `pending`.
    mutating func readAhead(into pending: inout [PendingLines], held: inout Int, limit: Int, pipeline: RecordPipeline) {
        while !ended, held < limit {
            read { gathered in
                switch gathered {
                case .block(let block, let firstIndex):
                    pending.append(
                        PendingLines(result: pipeline.submit(block), firstIndex: firstIndex, offset: block.offset))
                    held += block.bytes.count
                case .unsplit(let line, let index, let offset):
                    pending.append(PendingLines(result: nil, firstIndex: index, unsplit: line, offset: offset))
                    held += line.count + 1
                }
            }
        }
    }

    /// Reads lines until a block is full, a line holds a line feed, or the lines end, and gives
    /// what that gathered, in order.
    private mutating func read(_ body: (Gathered) -> Void) {
        while !ended {
            guard let line = lines.next() else {
                ended = true
                if let block = take() { body(block) }
                return
            }
            if line.contains(0x0A) {
                if let block = take() { body(block) }
                body(.unsplit(line, index: index, offset: offset))
                index += 1
                offset += line.count + 1
                return
            }
            if building.isEmpty { buildingFirst = index }
            building += line
            lineEnds.append(building.count)
            building.append(0x0A)
            index += 1
            offset += line.count + 1
            if building.count >= blockSize, let block = take() {
                body(block)
                return
            }
        }
    }

    /// The block gathered so far, when it holds a line.
    private mutating func take() -> Gathered? {
        guard !building.isEmpty else { return nil }
        let block = RecordBlock(
            bytes: building, offset: offset - building.count, records: records, writesErrors: writesErrors,
            lineEnds: lineEnds)
        building = []
        lineEnds = []
        return .block(block, firstIndex: buildingFirst)
    }
}
