import Foundation
import MappingsCompiler
import MappingsEngine
import MappingsJSON
import MappingsModel
import Synchronization

/// Keeps a catalog current while files change on disk: a new version is loaded, compiled and
/// its `"@tests"` (those of `tests`) run first, and swapped in only when all of that succeeds; a broken edit
/// leaves the previous version serving and says why.
///
/// It watches every `.mappings` file the catalog loaded, the `*.mappings` of the directories
/// it was given, and every file a transformer provider read (the Lua scripts). Hosts call
/// `reloadIfChanged()` between records (it compares file contents, so it is cheap when
/// nothing changed) or `reload()` to load again now (SIGHUP) — which swaps a new version in
/// only when a file differs from those of the version serving: version numbers count versions
/// that served, never attempts.
/// ```swift
/// let reloader = try CatalogReloader(paths: ["contexts"]) {
///     var registry = TransformerRegistry()
///     registry.add(LuaScripts(directory: "scripts"))   // read again on every reload
///     return registry
/// }
/// switch reloader.reloadIfChanged() {
/// case .swapped(let version): print("now serving version \(version.number)")
/// case .refused(let reason): print("kept the old version: \(reason)")
/// case .unchanged: break
/// }
/// let mapper = Mapper(catalog: reloader.current.catalog)
/// ```
public final class CatalogReloader: Sendable {
    /// A catalog and its version number (1 for the first load, then one more per swap).
    public struct Version: Sendable {
        /// 1 for the first load, then one more per swap.
        public let number: Int
        /// The catalog of this version.
        public let catalog: Catalog
    }

    /// What a reload did.
    public enum Outcome: Sendable {
        /// No file differs from those of the version serving: it keeps serving, its number unchanged.
        case unchanged
        case swapped(Version)
        /// Why the files as they are were refused (the rendered diagnostics, or the failing
        /// tests): the version serving keeps serving, and no version number is taken.
        case refused(reason: String)
    }

    /// Which contexts' `"@tests"` a version must pass before it serves.
    public enum TestScope: Sendable, Hashable {
        /// Every context's.
        case all
        /// The context's, and those of the contexts it maps nested objects with, transitively:
        /// what a host that maps with that one context depends on.
        case used(by: String)

        /// The identifiers whose tests run, or `nil` for all of them.
        package func contexts(in catalog: Catalog) -> [String]? {
            guard case .used(let identifier) = self else { return nil }
            return catalog.identifiersUsed(by: identifier)
        }

        /// The tests of `catalog` this scope runs that fail.
        package func failures(in catalog: Catalog) -> [ContextTestResult] {
            ContextTestRunner.run(catalog, contexts: contexts(in: catalog)).filter { !$0.passed }
        }

        /// Throws when a test of this scope fails: the error a first version refused for its
        /// tests gets (and `mappings stream` without `--watch` too).
        package func check(_ catalog: Catalog) throws(MappingsError) {
            let failures = failures(in: catalog)
            guard failures.isEmpty else {
                throw MappingsError(
                    kind: .invalidMappings,
                    diagnostics: [
                        Diagnostic(message: "the contexts' tests fail:\n" + CatalogReloader.describe(failures))
                    ])
            }
        }
    }

    private struct State {
        var version: Version
        /// The contents of the files the last attempt read (what `reloadIfChanged` compares).
        var fingerprint: [String: [UInt8]]
        /// The contents of the files the version serving was loaded from (what `reload` compares).
        var served: [String: [UInt8]]
    }

    private let paths: [String]
    private let traits: Traits
    private let makeTransformers: @Sendable () -> TransformerRegistry
    private let tests: TestScope
    private let maxTableMemory: Int
    private let state: Mutex<State>

    /// Loads the first version; the tests of `tests` (every context's by default) must pass
    /// too, for it and for every later version. Every version's lookup tables take at most
    /// `maxTableMemory` bytes (`Catalog.load(maxTableMemory:)`).
    public init(
        paths: [String], traits: Traits = Traits(), tests: TestScope = .all,
        maxTableMemory: Int = Catalog.defaultMaxTableMemory,
        transformers: @escaping @Sendable () -> TransformerRegistry
    ) throws(MappingsError) {
        self.paths = paths
        self.maxTableMemory = maxTableMemory
        self.traits = traits
        self.tests = tests
        self.makeTransformers = transformers
        let registry = transformers()
        let catalog = try Catalog.load(
            paths, traits: traits, transformers: registry, maxTableMemory: maxTableMemory)
        try tests.check(catalog)
        let fingerprint = Self.fingerprint(paths: paths, catalog: catalog, registry: registry)
        state = Mutex(
            State(version: Version(number: 1, catalog: catalog), fingerprint: fingerprint, served: fingerprint))
    }

    /// The version serving now.
    public var current: Version {
        state.withLock { $0.version }
    }

    /// Reloads when a watched file changed (or appeared, or went away) since the last attempt
    /// (a file refused once is not loaded again until it changes); see `reload(deadline:)`.
    public func reloadIfChanged(deadline: ContinuousClock.Instant? = nil) -> Outcome {
        guard differs(from: state.withLock { $0.fingerprint }) else { return .unchanged }
        return load(deadline: deadline)
    }

    /// Loads, compiles and tests the files as they are now, unless none differs from those of
    /// the version serving (`.unchanged`); swaps them in when all succeeds and, with a
    /// `deadline`, only if it has not passed: a load that took longer is refused, so a host
    /// that stopped waiting for it never finds it swapped in later.
    public func reload(deadline: ContinuousClock.Instant? = nil) -> Outcome {
        guard differs(from: state.withLock { $0.served }) else {
            // Back to the files serving (a refused edit undone): nothing to watch for.
            state.withLock { $0.fingerprint = $0.served }
            return .unchanged
        }
        return load(deadline: deadline)
    }

    /// Whether a file of `known` reads otherwise now, or a file the paths list is not among them.
    private func differs(from known: [String: [UInt8]]) -> Bool {
        for (path, bytes) in known where Self.contents(of: path) != bytes { return true }
        for path in Self.listed(paths) where known[path] == nil { return true }
        return false
    }

    private func load(deadline: ContinuousClock.Instant?) -> Outcome {
        let registry = makeTransformers()
        let catalog: Catalog
        do {
            catalog = try Catalog.load(
                paths, traits: traits, transformers: registry, maxTableMemory: maxTableMemory)
        } catch {
            let fingerprint = Self.fingerprint(paths: paths, catalog: nil, registry: registry, keeping: current)
            state.withLock { $0.fingerprint = fingerprint }
            return .refused(reason: error.description)
        }
        let fingerprint = Self.fingerprint(paths: paths, catalog: catalog, registry: registry)
        let failures = tests.failures(in: catalog)
        guard failures.isEmpty else {
            state.withLock { $0.fingerprint = fingerprint }
            return .refused(reason: "the contexts' tests fail:\n" + Self.describe(failures))
        }
        let version = state.withLock { state -> Version? in
            state.fingerprint = fingerprint
            if let deadline, ContinuousClock.now > deadline { return nil }
            state.version = Version(number: state.version.number + 1, catalog: catalog)
            state.served = fingerprint
            return state.version
        }
        guard let version else { return .refused(reason: "loading took longer than allowed") }
        return .swapped(version)
    }

    /// The failing tests, each title followed by its differences, indented.
    static func describe(_ failures: [ContextTestResult]) -> String {
        failures.map { failure in
            ([failure.title] + failure.failures.map { "  " + $0 }).joined(separator: "\n")
        }.joined(separator: "\n")
    }

    /// The contents of every watched file (the `.mappings` files, the scripts and the lookup
    /// tables' files). After a refused load the files the new catalog
    /// would have loaded are unknown, so the old version's files are watched as well.
    private static func fingerprint(
        paths: [String], catalog: Catalog?, registry: TransformerRegistry, keeping old: Version? = nil
    ) -> [String: [UInt8]] {
        var files = Set(listed(paths))
        files.formUnion(catalog?.files ?? [])
        files.formUnion(old?.catalog.files ?? [])
        // A lookup table's file, and a test's fixture table, are part of the catalog: a changed
        // one is a new version.
        for catalog in [catalog, old?.catalog].compactMap({ $0 }) {
            files.formUnion(catalog.tables.values.map(\.file))
            files.formUnion(catalog.contexts.flatMap { $0.tests.flatMap { $0.tables.values.map(\.file) } })
        }
        for provider in registry.providers { files.formUnion(provider.sources.keys) }
        var fingerprint: [String: [UInt8]] = [:]
        for file in files { fingerprint[file] = contents(of: file) }
        return fingerprint
    }

    /// The files named, and the `*.mappings` of the directories named.
    private static func listed(_ paths: [String]) -> [String] {
        paths.flatMap { path -> [String] in
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return [path] }
            guard isDirectory.boolValue else { return [path] }
            let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
            return names.filter { $0.hasSuffix(".mappings") }.sorted().map { Path.join(path, $0) }
        }
    }

    /// A file's bytes; empty for a file that cannot be read (so its return is a change).
    private static func contents(of path: String) -> [UInt8] {
        FileManager.default.contents(atPath: path).map { Array($0) } ?? []
    }
}
