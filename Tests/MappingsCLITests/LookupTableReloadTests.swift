import Foundation
import MappingsTestSupport
import Synchronization
import Testing

/// A lookup table swapped while `stream --workers 2 --watch` maps: each record reads one
/// version of the table, whole, through its entries and its script alike.
@Suite("lookup tables: reloaded while a stream runs")
struct LookupTableReloadTests {
    static let files = [
        "contexts/r.mappings": """
        { "@tables": { "t": { "file": "t.csv", "key": "k" } },
          "$R": { "v": { "@keyPath": "k", "@lookup": "t.v" }, "w": { "@keyPath": "k", "@lookup": "t.w" },
                  "lua": { "@keyPath": "k", "@transformClass": "T", "@transformSelector": "both" } } }
        """,
        "contexts/t.csv": "k,v,w\nx,1,1\n",
        "scripts/T.lua": "return { both = function(k) local row = tables.t[k]; return row.v .. \"/\" .. row.w end }",
    ]

    @Test("no record sees a mix of two versions of a table swapped three times", arguments: ["none", "process"])
    func swaps(isolation: String) throws {
        let directory = try ToolRunner.directory(with: Self.files)
        defer { try? FileManager.default.removeItem(at: directory) }
        let (process, stdin, stdout, stderr) = try ToolRunner.start(
            ["stream", "--context", "$R", "--workers", "2", "--watch", "--lua-isolation", isolation], in: directory)
        // Read stdout while records are written, so neither pipe fills.
        let output = Mutex(Data())
        let reader = Thread {
            while true {
                let chunk = stdout.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                output.withLock { $0.append(chunk) }
            }
        }
        reader.start()
        let record = Data(#"{"k": "x"}"#.utf8 + [UInt8(ascii: "\n")])
        func send(_ count: Int) {
            for _ in 0..<count { stdin.fileHandleForWriting.write(record) }
        }
        // The first record maps with version 1 (waited for: a loaded machine starts slowly); then
        // each swap lands while records are in flight, and the last is picked up before the last records.
        send(1)
        let started = ContinuousClock.now
        while output.withLock({ !$0.contains(UInt8(ascii: "\n")) }), ContinuousClock.now - started < .seconds(60) {
            Thread.sleep(forTimeInterval: 0.01)
        }
        let table = directory.appendingPathComponent("contexts/t.csv")
        for version in [2, 1, 2] {
            send(200)
            try Data("k,v,w\nx,\(version),\(version)\n".utf8).write(to: table, options: .atomic)
            Thread.sleep(forTimeInterval: 0.1)
        }
        Thread.sleep(forTimeInterval: 0.6)
        send(50)
        try stdin.fileHandleForWriting.close()
        let log = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        while reader.isExecuting || !reader.isFinished { Thread.sleep(forTimeInterval: 0.01) }
        let lines = output.withLock { String(decoding: $0, as: UTF8.self) }.split(separator: "\n")
        #expect(process.terminationStatus == 0, "\(log)")
        #expect(lines.count == 651)
        // Each record reads one version, the same through both entries and the script.
        var versions: [Int] = []
        for line in lines {
            let version = (1...2).first { line == #"{"v":\#($0),"w":\#($0),"lua":"\#($0)/\#($0)"}"# }
            #expect(version != nil, "a record that mixes versions: \(line)")
            if let version, versions.last != version { versions.append(version) }
        }
        // The versions come in runs, one per reload the log reports, and the table changed.
        let reloads = log.components(separatedBy: "mappings stream: now mapping with version").count - 1
        #expect(versions.count == reloads + 1, "\(versions)\n\(log)")
        #expect(versions.first == 1)
        #expect(versions.last == 2, "the last records map with the last table: \(log)")
    }
}
