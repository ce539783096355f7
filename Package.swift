// swift-tools-version: 6.2
import CompilerPluginSupport
import Foundation
import PackageDescription

/// Settings every Swift target shares, each with the reason it is on.
let strictSettings: [SwiftSetting] = [
    // A warning left alone today is a bug tomorrow: the build refuses them.
    .treatAllWarnings(as: .error),
    // `any P` spells out the cost of an existential wherever one is used.
    .enableUpcomingFeature("ExistentialAny"),
    // A file uses only the modules it imports itself, so moving code never breaks far away.
    .enableUpcomingFeature("MemberImportVisibility"),
    // Imports are internal unless marked `public`, so no dependency leaks into the API by accident.
    .enableUpcomingFeature("InternalImportsByDefault"),
]

/// The library's layer modules. Targets that import `Mappings` also name them, so that a change
/// to a layer rebuilds them: `Mappings` re-exports the layers, and a build that only saw
/// `Mappings` could keep objects compiled against a layer's previous interface.
let layers: [Target.Dependency] = ["MappingsJSON", "MappingsModel", "MappingsCompiler", "MappingsEngine"]

/// `MAPPINGS_PORTABLE=1` (tools/build-portable): the tool for machines without Swift, such as
/// Spark executors — no `fetch` (FoundationNetworking needs libcurl, which a statically linked
/// tool could not bring along), so that the Swift runtime and Lua link in and the binaries need
/// only the C library.
let portable = Context.environment["MAPPINGS_PORTABLE"] != nil

/// What `mappings --version` says, baked into `CBuildInfo` as C string literals: the release from
/// the VERSION file (tools/release names its packages with it too) and the commit built.
/// SwiftPM keeps an evaluated manifest while its text and environment stay the same, so the
/// scripts that build what is shipped (tools/build-portable, tools/install) pass
/// `MAPPINGS_COMMIT` and `MAPPINGS_VERSION`; a plain `swift build` takes git's commit, which a
/// kept manifest may hold from an earlier one, and a tree without git says "unknown".
let buildVersion =
    Context.environment["MAPPINGS_VERSION"]
    ?? (try? String(contentsOfFile: Context.packageDirectory + "/VERSION", encoding: .utf8))?
    .trimmingCharacters(in: .whitespacesAndNewlines) ?? "unknown"
let buildCommit =
    Context.environment["MAPPINGS_COMMIT"]
    ?? Context.gitInformation.map {
        String($0.currentCommit.prefix(7)) + ($0.hasUncommittedChanges ? "-modified" : "")
    } ?? "unknown"

/// `MAPPINGS_NO_MACROS=1` (tools/install): the package
/// without `MappingsMacros`, so that building every target or product does not build swift-syntax
/// (optimized: six minutes on two cores) for what does not use it.
let macros = Context.environment["MAPPINGS_NO_MACROS"] == nil

/// `MAPPINGS_ALLOCATION_SUITE=1` (tools/test's optimized allocation suite): the library's layers
/// and their test target alone, so that the optimized build of that suite compiles neither the
/// tool, its servers and their dependencies, nor the other test targets.
let allocationSuite = Context.environment["MAPPINGS_ALLOCATION_SUITE"] != nil

let package = Package(
    name: "Mappings",
    // Built and tested on Linux; on Apple systems, the floor of what it uses (Synchronization's
    // Mutex and Atomic, typed throws): docs/swift.md, "Platforms".
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "Mappings", targets: ["Mappings"]),
        .library(name: "MappingsLua", targets: ["MappingsLua"]),
        .library(name: "MappingsFetch", targets: ["MappingsFetch"]),
        // `DatabaseSink`: a stream's records into SQLite or PostgreSQL, exactly once.
        .library(name: "MappingsSQL", targets: ["MappingsSQL"]),
        .executable(name: "mappings", targets: ["MappingsCLI"]),
        // The sandbox worker process of `--lua-isolation process`; installed next to `mappings`.
        .executable(name: "mappings-lua-worker", targets: ["mappings-lua-worker"]),
        // `serve`, `playground` and `stream --metrics-listen`, which `mappings` runs; installed next to it.
        .executable(name: "mappings-server", targets: ["MappingsServerCLI"]),
        // The native part of the Python package (tools/build-python-wheel links it with the
        // module's C file into one extension); static, so that the wheel carries one library.
        .library(name: "MappingsPython", type: .static, targets: ["MappingsPython"]),
    ]
        // `mappings fetch`'s HTTP client in a program of its own, installed beside `mappings`.
        + (portable ? [] : [.executable(name: "mappings-fetch", targets: ["MappingsFetchCLI"])])
        + (macros
            ? [
                // `@MappedModel` and its companions; a product apart, so that hosts binding by hand never
                // build swift-syntax.
                .library(name: "MappingsMacros", targets: ["MappingsMacros"])
            ] : []),
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // `swift package generate-documentation` (tools/docs); a command plugin, linked into no product.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // `mappings serve`: the HTTP server, its lifecycle (signals, draining) and its metrics.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // What the servers use of Hummingbird's own foundations, named because the tool imports
        // them: NIO (channels, the HTTP/1 parser's errors), HTTP types, logging.
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ]
        + (macros
            ? [
                // `@MappedModel`'s compiler plugin (MappingsMacros only). A range, so that a host whose
                // other macros pin a neighbouring release still resolves.
                .package(url: "https://github.com/swiftlang/swift-syntax", "602.0.0"..<"604.0.0")
            ] : []),
    targets: [
        .systemLibrary(
            name: "CLua",
            pkgConfig: "lua5.4",
            providers: [.apt(["liblua5.4-dev"])]
        ),
        // The layers of the library, bottom to top; each may import only those below it
        // (docs/architecture.md draws them). Hosts import `Mappings`, which re-exports them.
        // A JSON text's structural index, 64 bytes a step (SIMD kernels chosen at run time), in C:
        // what the record tape reads instead of the bytes.
        .target(name: "CJSONIndex"),
        // JSON values, the reader and the writer: the leaf.
        .target(
            name: "MappingsJSON",
            dependencies: ["CJSONIndex"],
            swiftSettings: strictSettings
        ),
        // Declared models, converted values and conversion: what the compiled form is made of.
        .target(
            name: "MappingsModel",
            dependencies: ["MappingsJSON"],
            swiftSettings: strictSettings
        ),
        // The front end: syntax, loading, model declarations, host definitions, compilation.
        .target(
            name: "MappingsCompiler",
            // CSQLClient: lookup tables of SQLite database files (`@tables`), SQLite loaded at run time.
            dependencies: ["MappingsJSON", "MappingsModel", "CSQLClient"],
            swiftSettings: strictSettings
        ),
        // The back end: mapping, reverse mapping and reports, from the compiled form only.
        .target(
            name: "MappingsEngine",
            dependencies: ["MappingsJSON", "MappingsModel", "MappingsCompiler"],
            swiftSettings: strictSettings
        ),
        // Operations on top (reloading, context tests) and the public face hosts import.
        .target(
            name: "Mappings",
            // CAvro: Avro's block codecs (avro-c, loaded at run time) for the Avro format of records.
            dependencies: ["MappingsJSON", "MappingsModel", "MappingsCompiler", "MappingsEngine", "CAvro"],
            swiftSettings: strictSettings
        ),
        // avro-c's block codecs (null, deflate, snappy, lzma), found with dlopen when an Avro
        // container is read or written: nothing of avro-c is needed to build.
        .target(name: "CAvro"),
        // The sandbox in C, so every Lua error is raised and caught in C frames (never through Swift).
        .target(
            name: "CLuaSandbox",
            dependencies: ["CLua", "CJSONIndex"]
        ),
        .target(
            name: "MappingsLua",
            dependencies: ["Mappings", "CLua", "CLuaSandbox"] + layers,
            swiftSettings: strictSettings
        ),
        // One sandboxed interpreter in a confined process (RLIMIT_AS, RLIMIT_CPU, seccomp), in C.
        .executableTarget(
            name: "mappings-lua-worker",
            dependencies: ["CLuaSandbox"],
            path: "Sources/LuaWorker"
        ),
        // REST fetching over FoundationNetworking, apart so that hosts that do not fetch do not link it.
        .target(
            name: "MappingsFetch",
            dependencies: ["Mappings"] + layers,
            swiftSettings: strictSettings
        ),
        // The encoders of a record's output, beside each other, each a `RecordEncoding` a lane
        // runs: Spark's rows (`UnsafeRow`), the Python module's tagged values, Arrow columns;
        // the cursor and the failure every encoder (SQL rows' too) reads and throws.
        .target(
            name: "MappingsEncoding",
            dependencies: ["MappingsJSON", "MappingsModel", "MappingsCompiler", "MappingsEngine", "CArrowData"],
            swiftSettings: strictSettings
        ),
        // Spark's side of the records: the Spark schema of a context's output and the frames
        // `stream --spark-frames` writes for mappings_spark (rows: MappingsEncoding).
        .target(
            name: "MappingsSpark",
            dependencies: ["MappingsJSON", "MappingsModel", "MappingsCompiler", "MappingsEngine", "MappingsEncoding"],
            swiftSettings: strictSettings
        ),
        // The Arrow C Data Interface's structures, filled and released in C.
        .target(name: "CArrowData"),
        // The release and commit the tool was built from (`mappings --version`), as Package.swift read them.
        .target(
            name: "CBuildInfo",
            cSettings: [
                .define("MAPPINGS_VERSION", to: "\"\(buildVersion)\""),
                .define("MAPPINGS_COMMIT", to: "\"\(buildCommit)\""),
            ]
        ),
        // What the Python module calls (C functions on handles): payloads and NDJSON mapped
        // into tagged values it builds Python objects from, and Arrow columns handed over
        // through the C Data Interface (docs/python.md).
        .target(
            name: "MappingsPython",
            dependencies: ["Mappings", "MappingsLua", "MappingsSpark", "MappingsEncoding", "CArrowData"] + layers,
            swiftSettings: strictSettings
        ),
        // SQLite's and libpq's functions, loaded at run time (dlopen) by the database destinations.
        .target(name: "CSQLClient"),
        // `stream --to` and hosts' `DatabaseSink`: records into SQLite or PostgreSQL tables, in
        // transactions that also keep each job's input position (docs/operations.md, "Into a database").
        .target(
            name: "MappingsSQL",
            dependencies: ["Mappings", "MappingsSpark", "MappingsEncoding", "CSQLClient"] + layers,
            swiftSettings: strictSettings
        ),
        // The stream: NDJSON inputs read in blocks (lanes reading their own ranges of a file),
        // mapped by the records pipeline, written in input order with their rejects, stats,
        // resume points and reloads between blocks; the tool's stderr and exit statuses.
        .target(
            name: "MappingsStream",
            dependencies: ["Mappings", "MappingsLua", "MappingsSpark", "MappingsEncoding"] + layers,
            swiftSettings: strictSettings
        ),
        // The editor's model of a workspace — outlines, cursor places, keyword help, unsaved edits —
        // and the language server on it (`mappings lsp`), and the playground's session.
        .target(
            name: "MappingsWorkspace",
            dependencies: ["Mappings", "MappingsLua"] + layers,
            swiftSettings: strictSettings
        ),
        // The HTTP servers (`serve`, `playground`, `stream --metrics-listen`'s endpoint) on one
        // Hummingbird application builder; only `mappings-server` links them.
        .target(
            name: "MappingsServer",
            dependencies: [
                "Mappings",
                "MappingsLua",
                "MappingsWorkspace",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ] + layers,
            swiftSettings: strictSettings
        ),
        // The tool's commands (argument parsing, streaming, the checks), as a library that the
        // programs below run; the commands that serve HTTP run `mappings-server`.
        .target(
            name: "MappingsTool",
            dependencies: [
                "Mappings",
                "MappingsLua",
                "MappingsWorkspace",
                "MappingsSpark",
                "MappingsEncoding",
                "MappingsPython",
                "MappingsStream",
                "MappingsSQL",
                "CBuildInfo",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ] + layers,
            swiftSettings: strictSettings + (portable ? [.define("MAPPINGS_PORTABLE")] : [])
        ),
        // `mappings`: links no HTTP client, so that start-up loads no libcurl (fetch runs the next one).
        .executableTarget(
            name: "MappingsCLI",
            dependencies: ["MappingsTool"],
            swiftSettings: strictSettings
        ),
        // `mappings-server`: `serve`, `playground` and `stream --metrics-listen`, with the servers linked.
        .executableTarget(
            name: "MappingsServerCLI",
            dependencies: ["MappingsTool", "MappingsServer", "Mappings"] + layers,
            swiftSettings: strictSettings
        ),
    ] + (portable ? [] : [fetchProgram]) + [
        // Shared by the test targets: in-memory loading helpers and the repository's shipped fixtures.
        .target(
            name: "MappingsTestSupport",
            dependencies: ["Mappings"] + layers,
            path: "Tests/MappingsTestSupport",
            swiftSettings: strictSettings
        ),
        // For the allocation tests: the test binary's malloc family, counting per thread.
        .target(name: "CAllocationCount", path: "Tests/CAllocationCount"),
        // One test target per module, beside what it tests.
        .testTarget(
            name: "MappingsJSONTests",
            dependencies: ["Mappings", "MappingsTestSupport", "CJSONIndex"] + layers,
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "MappingsModelTests",
            dependencies: ["Mappings", "MappingsTestSupport"] + layers,
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "MappingsCompilerTests",
            dependencies: ["Mappings", "MappingsTestSupport"] + layers,
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "MappingsEngineTests",
            dependencies: ["Mappings", "MappingsSpark", "MappingsEncoding", "MappingsTestSupport", "CAllocationCount"]
                + layers,
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "MappingsFetchTests",
            dependencies: ["MappingsFetch", "MappingsLua", "Mappings", "MappingsTestSupport"] + layers,
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "MappingsTests",
            dependencies: ["Mappings", "MappingsTestSupport"] + layers,
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "MappingsLuaTests",
            dependencies: ["MappingsLua", "Mappings", "CLua", "MappingsTestSupport"] + layers,
            swiftSettings: strictSettings
        ),
        // The repository as its users meet it: the documentation's commands run (doc tests), the
        // quick start on a fresh clone, installing, a host depending on a tagged version, the
        // examples' and the benchmarks' packages built and run.
        .testTarget(
            name: "MappingsRepositoryTests",
            dependencies: ["MappingsCLI", "MappingsServerCLI", "MappingsTestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "MappingsSparkTests",
            dependencies: ["MappingsSpark", "MappingsEncoding", "Mappings", "MappingsTestSupport"] + layers,
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "MappingsPythonTests",
            dependencies: ["MappingsPython", "MappingsSpark", "MappingsEncoding", "Mappings", "MappingsTestSupport"]
                + layers,
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "MappingsSQLTests",
            dependencies: [
                "MappingsSQL", "MappingsStream", "MappingsSpark", "MappingsEncoding", "Mappings", "MappingsTestSupport",
            ]
                + layers,
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "MappingsStreamTests",
            dependencies: ["MappingsStream", "Mappings", "MappingsTestSupport"] + layers,
            swiftSettings: strictSettings
        ),
        // The servers in process, over HTTP from a real client.
        .testTarget(
            name: "MappingsServerTests",
            dependencies: [
                "MappingsServer", "MappingsWorkspace", "MappingsLua", "Mappings", "MappingsTestSupport",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ] + layers,
            swiftSettings: strictSettings
        ),
        // The language server in process, over pipes.
        .testTarget(
            name: "MappingsWorkspaceTests",
            dependencies: ["MappingsWorkspace", "MappingsLua", "Mappings", "MappingsTestSupport"] + layers,
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "MappingsCLITests",
            dependencies: [
                "MappingsCLI", "MappingsServerCLI", "MappingsTool", "Mappings", "MappingsLua", "MappingsFetch",
                "MappingsTestSupport",
            ]
                + layers,
            exclude: ["Golden"],
            swiftSettings: strictSettings
        ),
    ] + (macros ? macroTargets : [])
)

/// `mappings-fetch`: `mappings fetch` with FoundationNetworking (not in the portable build).
var fetchProgram: Target {
    .executableTarget(
        name: "MappingsFetchCLI",
        dependencies: ["MappingsTool", "MappingsFetch", "Mappings"] + layers,
        swiftSettings: strictSettings
    )
}

/// `MappingsMacros`: the compiler plugin, the declarations hosts import, and their tests.
var macroTargets: [Target] {
    [
        // The macros' implementations, run by the compiler (never linked into a host).
        .macro(
            name: "MappingsMacrosPlugin",
            dependencies: [
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftSyntaxBuilder", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftDiagnostics", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
            ],
            swiftSettings: strictSettings
        ),
        // The macros' declarations, which hosts import; re-exports `Mappings`.
        .target(
            name: "MappingsMacros",
            dependencies: ["Mappings", "MappingsMacrosPlugin"] + layers,
            swiftSettings: strictSettings
        ),
        // The macros' expansions (swift-syntax's test support) and types bound by them, mapped.
        .testTarget(
            name: "MappingsMacrosTests",
            dependencies: [
                "MappingsMacros", "MappingsMacrosPlugin", "Mappings", "MappingsLua", "MappingsTestSupport",
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftSyntaxBuilder", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacroExpansion", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacrosGenericTestSupport", package: "swift-syntax"),
            ] + layers,
            swiftSettings: strictSettings
        ),
    ]
}

if allocationSuite {
    let kept: Set<String> = [
        "CJSONIndex", "CSQLClient", "CAvro", "MappingsJSON", "MappingsModel", "MappingsCompiler", "MappingsEngine",
        "Mappings",
        "MappingsSpark", "MappingsEncoding", "CArrowData", "MappingsTestSupport", "CAllocationCount",
        "MappingsEngineTests",
    ]
    package.targets.removeAll { !kept.contains($0.name) }
    // The suite and its fixtures alone, which import nothing `@testable` (tools/test builds them
    // with --disable-testable-imports: the layers compile as the shipped tool's do).
    for target in package.targets where target.name == "MappingsEngineTests" {
        target.sources = ["PlanAllocationTests.swift", "BenchmarkPlans.swift"]
    }
    package.products = [.library(name: "Mappings", targets: ["Mappings"])]
    package.dependencies = []
}
