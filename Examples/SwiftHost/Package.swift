// swift-tools-version: 6.2
// The Swift host examples, a package of their own that depends on Mappings as a host does, so
// that a host of the library never builds them. Run them from the repository's root:
//
//     swift run --package-path Examples/SwiftHost example-typed-models
import PackageDescription

/// The root package's settings, so that the examples compile as strictly as the library.
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
    name: "SwiftHostExamples",
    dependencies: [
        // A path dependency's identity is its folder's name (the checkout's, whatever it is called),
        // not the manifest's `name:`; naming it "Mappings" here is what lets the targets below say
        // `package: "Mappings"` from any checkout. A host depending by URL uses the URL's last
        // component instead (docs/swift.md).
        .package(name: "Mappings", path: "../..")
    ],
    targets: [
        // The models the examples share: the Twitter walkthrough's, as structs (`@MappedModel`) and
        // final classes (bound by hand).
        .target(
            name: "TwitterModels",
            dependencies: [
                .product(name: "Mappings", package: "Mappings"),
                .product(name: "MappingsMacros", package: "Mappings"),
            ],
            path: "TwitterModels",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "example-typed-models",
            dependencies: [
                "TwitterModels",
                .product(name: "Mappings", package: "Mappings"),
                .product(name: "MappingsLua", package: "Mappings"),
            ],
            path: "TypedModels",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "example-programmatic-context",
            dependencies: [
                "TwitterModels",
                .product(name: "Mappings", package: "Mappings"),
                .product(name: "MappingsLua", package: "Mappings"),
            ],
            path: "ProgrammaticContext",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "example-reverse-mapping",
            dependencies: [
                "TwitterModels",
                .product(name: "Mappings", package: "Mappings"),
                .product(name: "MappingsLua", package: "Mappings"),
            ],
            path: "ReverseMapping",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "example-fetch",
            dependencies: [
                "TwitterModels",
                .product(name: "Mappings", package: "Mappings"),
                .product(name: "MappingsLua", package: "Mappings"),
                .product(name: "MappingsFetch", package: "Mappings"),
            ],
            path: "Fetch",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "example-database",
            dependencies: [
                .product(name: "Mappings", package: "Mappings"),
                .product(name: "MappingsLua", package: "Mappings"),
                .product(name: "MappingsSQL", package: "Mappings"),
            ],
            path: "Database",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "example-own-sink",
            dependencies: [
                .product(name: "Mappings", package: "Mappings"),
                .product(name: "MappingsLua", package: "Mappings"),
            ],
            path: "OwnSink",
            swiftSettings: strictSettings
        ),
        // The library's tests that need the examples' models: the shipped contexts into them.
        .testTarget(
            name: "TwitterModelsTests",
            dependencies: [
                "TwitterModels",
                .product(name: "Mappings", package: "Mappings"),
                .product(name: "MappingsLua", package: "Mappings"),
            ],
            path: "Tests/TwitterModelsTests",
            swiftSettings: strictSettings
        ),
    ]
)
