import Foundation
import Mappings
import MappingsTestSupport
import Testing

/// A reload swaps a version in only when the files differ from those of the version serving,
/// and version numbers count versions that served: a refusal takes none.
@Suite("reloading a catalog")
struct CatalogReloaderTests {
    static let good = #"{ "$A": { "x": "x" } }"#

    @Test("a forced reload of the same files is unchanged; a refusal takes no number; an undone edit is unchanged")
    func versions() throws {
        let directory = try Fixtures.directory(with: ["contexts/a.mappings": Self.good])
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("contexts/a.mappings")
        let reloader = try CatalogReloader(paths: [directory.appendingPathComponent("contexts").path]) {
            TransformerRegistry()
        }
        func outcome(_ forced: Bool = true) -> String {
            switch forced ? reloader.reload() : reloader.reloadIfChanged() {
            case .unchanged: "unchanged \(reloader.current.number)"
            case .swapped(let version): "swapped \(version.number)"
            case .refused(let reason): "refused \(reloader.current.number): \(reason.prefix(5))"
            }
        }
        #expect(outcome() == "unchanged 1")
        try Data("{".utf8).write(to: file)
        #expect(outcome() == "refused 1: error")
        // Refused once, not loaded again until it changes; forced, it is tried again.
        #expect(outcome(false) == "unchanged 1")
        #expect(outcome() == "refused 1: error")
        try Data(Self.good.utf8).write(to: file)
        #expect(outcome() == "unchanged 1")
        try Data(#"{ "$A": { "x": "y" } }"#.utf8).write(to: file)
        #expect(outcome() == "swapped 2")
        #expect(outcome() == "unchanged 2")
        // A new file in a directory it loads is a change.
        try Data(#"{ "$B": { "x": "x" } }"#.utf8).write(to: directory.appendingPathComponent("contexts/b.mappings"))
        #expect(outcome() == "swapped 3")
    }

    @Test("a changed lookup table is a new version; a table that fails to load keeps the old one serving")
    func tables() throws {
        let directory = try Fixtures.directory(with: [
            "contexts/a.mappings": """
            { "@tables": { "t": { "file": "t.csv", "key": "k" } }, "$A": { "v": { "@keyPath": "k", "@lookup": "t.v" } } }
            """,
            "contexts/t.csv": "k,v\na,1\n",
        ])
        defer { try? FileManager.default.removeItem(at: directory) }
        let table = directory.appendingPathComponent("contexts/t.csv")
        let reloader = try CatalogReloader(paths: [directory.appendingPathComponent("contexts").path]) {
            TransformerRegistry()
        }
        func outcome() -> String {
            switch reloader.reloadIfChanged() {
            case .unchanged: "unchanged \(reloader.current.number)"
            case .swapped(let version): "swapped \(version.number)"
            case .refused(let reason): "refused \(reloader.current.number): \(reason.prefix(50))"
            }
        }
        #expect(outcome() == "unchanged 1")
        try Data("k,v\na,2\n".utf8).write(to: table)
        #expect(outcome() == "swapped 2")
        #expect(reloader.current.catalog.tables["t"]?.cells(ofRow: 0) == [.string("a"), .integer(2)])
        try Data("k,v\na,2\na,3\n".utf8).write(to: table)
        #expect(outcome() == #"refused 2: error: the key "a" is written twice in the table t"#)
        #expect(reloader.current.catalog.tables["t"]?.cells(ofRow: 0) == [.string("a"), .integer(2)])
    }
}

/// `ReloadSchedule`: when `stream --watch` and `serve` look at the files again.
@Suite("the reload schedule")
struct ReloadScheduleTests {
    @Test("a reload asked for is due at once and forced; watching, a look is due each interval")
    func due() {
        let watching = ReloadSchedule(watchEvery: .seconds(1))
        let start = ContinuousClock.now
        #expect(watching.due(now: start) == nil)
        #expect(watching.due(now: start + .milliseconds(999)) == nil)
        #expect(watching.due(now: start + .seconds(1)) == .ifChanged)
        #expect(watching.due(now: start + .milliseconds(1500)) == nil)
        watching.ask()
        watching.ask()
        #expect(watching.due(now: start + .milliseconds(1600)) == .forced)
        // Asked twice before a look: one reload. A forced one restarts the interval.
        #expect(watching.due(now: start + .milliseconds(2500)) == nil)
        #expect(watching.due(now: start + .milliseconds(2600)) == .ifChanged)

        let asked = ReloadSchedule(watchEvery: nil)
        #expect(asked.due(now: start + .seconds(60)) == nil)
        asked.ask()
        #expect(asked.due() == .forced)
        #expect(asked.due() == nil)
    }
}
