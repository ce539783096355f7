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
}
