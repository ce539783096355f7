// swift-tools-version: 6.2
// The benchmarks' programs, a package of their own that depends on Mappings as a host does, so
// that a host of the library never builds them. `Benchmarks/run` builds them in release:
//
//     swift build -c release --package-path Benchmarks
import PackageDescription

/// The root package's settings, so that the benchmarks compile as strictly as the library.
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

let package = Package(
    name: "MappingsBenchmarks",
    dependencies: [
        // A path dependency's identity is its folder's name (the checkout's, whatever it is called),
        // not the manifest's `name:`; naming it "Mappings" here is what lets the targets below say
        // `package: "Mappings"` from any checkout.
        .package(name: "Mappings", path: "..")
    ],
    targets: [
        // liblua5.4 for the floor below (the library's CLua is internal to it).
        .systemLibrary(
            name: "CLuaLibrary",
            path: "CLuaLibrary",
            pkgConfig: "lua5.4",
            providers: [.apt(["liblua5.4-dev"])]
        ),
        // Measures the Lua call cost against a Swift closure and the bare C-API floor (release builds).
        .target(
            name: "CLuaFloor",
            dependencies: ["CLuaLibrary"],
            path: "CLuaFloor"
        ),
        .executableTarget(
            name: "lua-call-benchmark",
            dependencies: [
                "CLuaFloor",
                .product(name: "Mappings", package: "Mappings"),
                .product(name: "MappingsLua", package: "Mappings"),
            ],
            path: "LuaCalls",
            swiftSettings: strictSettings
        ),
        // B9: Swift hosts, JSONDecoder against decode through a context, @MappedModel and TypedModel.
        .executableTarget(
            name: "swift-host-benchmark",
            dependencies: [
                .product(name: "Mappings", package: "Mappings"),
                .product(name: "MappingsMacros", package: "Mappings"),
            ],
            path: "SwiftHosts",
            swiftSettings: strictSettings
        ),
        // The benchmark's Foundation peers: JSONDecoder/JSONEncoder with Codable structs, and JSONSerialization.
        .executableTarget(
            name: "swift-peers-benchmark",
            path: "SwiftPeers",
            swiftSettings: strictSettings
        ),
    ]
)
