package import Mappings

extension StreamRun {
    /// Refuses to start when a test of `scope` fails, as `--watch` refuses its first version:
    /// the failing tests on stderr, exit status 2. Why: with or without `--watch`, a stream
    /// starts only when the tests of what it maps with pass.
    package static func requirePassing(_ scope: CatalogReloader.TestScope, in catalog: Catalog) throws {
        do {
            try scope.check(catalog)
        } catch {
            Terminal.error(error.description)
            throw ToolFailure(status: .loadFailure)
        }
    }
}
