import Foundation
import MappingsTestSupport
import Testing

/// `mappings stream --spark-frames`, as mappings_spark's JVM side reads it: one frame per record
/// in input order (its row, its reject, or that it was filtered), the stats last, nothing else.
@Suite("stream --spark-frames")
struct SparkFramesTests {
    static let files = [
        "c.mappings": """
        { "@models": { "T": { "id": "Int", "name": "String" } },
          "$T": { "@class": "T", "id": "id", "name": "name", "@filter": "value.keep ~= false" } }
        """,
        "in.ndjson": """
        {"id": 1, "name": "a"}
        {"id": "x", "name": "b"}
        {"id": 3, "name": "c", "keep": false}
        not json
        {"id": 5, "name": "e"}

        """,
    ]

    /// The frames of stdout: kind and payload.
    static func frames(_ bytes: [UInt8]) -> [(kind: Character, payload: [UInt8])] {
        var frames: [(Character, [UInt8])] = []
        var position = 0
        while position + 5 <= bytes.count {
            let length = bytes[position..<(position + 4)].reduce(0) { $0 << 8 | Int($1) }
            let kind = Character(Unicode.Scalar(bytes[position + 4]))
            frames.append((kind, Array(bytes[(position + 5)..<(position + 5 + length)])))
            #expect(bytes[position + 5 + length] == 0x0A)
            position += length + 6
        }
        #expect(position == bytes.count)
        return frames
    }

    @Test("a frame per record in input order, then the stats; nothing on stderr")
    func order() throws {
        let directory = try ToolRunner.directory(with: Self.files)
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try ToolRunner.runProgram(
            ToolRunner.executable,
            [
                "stream", "--context", "$T", "--mappings", "c.mappings", "--spark-frames", "--workers", "2",
                "in.ndjson",
                "--stats", "stats.json",
            ],
            in: directory, binaryStdout: true)
        #expect(result.status == 1)
        #expect(result.stderr.isEmpty)
        let frames = Self.frames(result.stdoutBytes)
        #expect(frames.map(\.kind) == ["m", "r", "f", "r", "m", "s"])
        let reject = try JSONSerialization.jsonObject(with: Data(frames[1].payload)) as? [String: Any]
        #expect(reject?["line"] as? Int == 2 && reject?["input"] as? String == #"{"id": "x", "name": "b"}"#)
        let stats = try JSONSerialization.jsonObject(with: Data(frames[5].payload)) as? [String: Any]
        #expect(stats?["read"] as? Int == 5 && stats?["written"] as? Int == 2 && stats?["rejected"] as? Int == 2)
        #expect(stats?["filtered"] as? Int == 1)
        // The stats file says the same.
        let file = try JSONSerialization.jsonObject(
            with: Data(contentsOf: directory.appendingPathComponent("stats.json")))
        #expect((file as? [String: Any])?["filtered"] as? Int == 1)
    }

    @Test("options that would write elsewhere are refused", arguments: ["--watch", "--omit-nulls"])
    func refused(option: String) throws {
        let directory = try ToolRunner.directory(with: Self.files)
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try ToolRunner.run(
            ["stream", "--context", "$T", "--mappings", "c.mappings", "--spark-frames", option, "in.ndjson"],
            in: directory)
        #expect(result.status == 2)
        #expect(result.stderr.contains("--spark-frames") && result.stderr.contains("drop \(option)"))
    }
}
