import Foundation
import MappingsTestSupport
import Testing

/// `"@filter"` as the tool shows it: `stream` counts dropped records apart (`read = written +
/// rejected + filtered + unprocessed`), `map` prints nothing for a dropped payload and says so.
@Suite("@filter in stream and map")
struct FilterCommandTests {
    static let catalog = """
        { "@models": { "PR": { "number": "Int", "title": "String" } },
          "$PR": { "@class": "PR", "@filter": "not value.draft", "number": "number",
                   "title": { "@keyPath": "title", "@lua": "value:upper()" } } }
        """

    @Test("stream: filtered records are neither written nor rejected; the summary and --stats count them")
    func stream() throws {
        let directory = try ToolRunner.directory(with: ["c.mappings": Self.catalog])
        defer { try? FileManager.default.removeItem(at: directory) }
        let input =
            [
                #"{"number":1,"title":"a"}"#, #"{"number":2,"title":"b","draft":true}"#, #"{"number":"x","title":"c"}"#,
                #"{"number":4,"title":"d","draft":false}"#, #"{"number":5,"draft":true}"#,
            ].joined(separator: "\n") + "\n"
        for engine in [[], ["--general-engine"]] {
            let run = try ToolRunner.run(
                ["stream", "--mappings", "c.mappings", "--context", "$PR", "--stats", "stats.json"] + engine,
                in: directory, input: input)
            #expect(run.stdout == #"{"number":1,"title":"A"}"# + "\n" + #"{"number":4,"title":"D"}"# + "\n", "\(run)")
            #expect(run.stderr.contains("read 5, written 2, rejected 1, filtered 2"), "\(run)")
            let stats =
                try JSONSerialization.jsonObject(
                    with: Data(contentsOf: directory.appendingPathComponent("stats.json"))) as? [String: Any]
            #expect(stats?["filtered"] as? Int == 2, "\(String(describing: stats))")
        }
    }

    @Test("map: a dropped payload prints nothing, says so, and exits 0")
    func map() throws {
        let directory = try ToolRunner.directory(with: ["c.mappings": Self.catalog])
        defer { try? FileManager.default.removeItem(at: directory) }
        let dropped = try ToolRunner.run(
            ["map", "--mappings", "c.mappings", "--context", "$PR"], in: directory,
            input: #"{"number":2,"title":"b","draft":true}"#)
        #expect(dropped.status == 0 && dropped.stdout.isEmpty, "\(dropped)")
        #expect(dropped.stderr.contains(#"dropped by "@filter" (c.mappings:2)"#), "\(dropped)")
        let kept = try ToolRunner.run(
            ["map", "--mappings", "c.mappings", "--context", "$PR"], in: directory, input: #"{"number":2,"title":"b"}"#)
        #expect(kept.status == 0 && kept.stdout.contains(#"{"number":2,"title":"B"}"#), "\(kept)")
        let many = try ToolRunner.run(
            ["map", "--many", "--mappings", "c.mappings", "--context", "$PR"], in: directory,
            input: #"[{"number":1,"title":"a"},{"number":2,"title":"b","draft":true}]"#)
        #expect(many.status == 0 && many.stdout.contains(#"[{"number":1,"title":"A"}]"#), "\(many)")
        #expect(many.stderr.contains(#"$[1]: info: dropped by "@filter""#), "\(many)")
    }
}
