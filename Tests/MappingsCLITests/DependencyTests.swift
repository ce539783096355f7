import Foundation
import Testing

/// The library as a host gets it: a git repository holding this working tree, tagged `0.1.0`,
/// that a throwaway host package depends on by URL and version, as docs/swift.md says.
///
/// The repository and the host live in the root's `.build/dependency/`. The commit's dates
/// and author are fixed, so an unchanged tree gives the same revision and the host's next
/// build is incremental (seconds); a changed tree moves the tag, and the host builds afresh.
@Suite("Depending on Mappings by URL and version", .serialized)
struct DependencyTests {
    static let base = PackageBuild.scratch("dependency")
    /// The identity SwiftPM gives the dependency: the URL's last component.
    static let repository = base.appendingPathComponent("mappings")
    static let host = base.appendingPathComponent("host")

    @Test("the manifest has no unsafeFlags, which SwiftPM refuses in a package depended on by version")
    func noUnsafeFlags() throws {
        let manifest = try String(
            contentsOf: ToolRunner.packageRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
        #expect(!manifest.contains("unsafeFlags"))
    }

    @Test("a host depending on the tagged repository builds, and maps a tweet into its own type")
    func host() throws {
        let revision = try Self.tagRepository()
        let scratch = Self.base.appendingPathComponent("host-build")
        let marker = Self.base.appendingPathComponent("host-build.revision")
        if (try? String(contentsOf: marker, encoding: .utf8)) != revision {
            // The tag moved: resolve and build from nothing rather than trust a checkout of the old one.
            try? FileManager.default.removeItem(at: scratch)
            try? FileManager.default.removeItem(at: Self.host.appendingPathComponent("Package.resolved"))
        }
        for (path, text) in Self.hostFiles(url: Self.repository.absoluteString) {
            try Self.write(text, to: Self.host.appendingPathComponent(path))
        }
        let build = try PackageBuild.swiftBuild([
            "--package-path", Self.host.path, "--scratch-path", scratch.path, "--disable-dependency-cache",
        ])
        try #require(build.status == 0, "\(build.output)")
        try Data(revision.utf8).write(to: marker)

        let run = try ToolRunner.run([], in: Self.host, executable: scratch.appendingPathComponent("debug/host"))
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "Hello from a host\nHELLO FROM A HOST\nby Ann, 0 issues\n", "\(run.stderr)")
    }

    /// Copies the working tree (without `.git` and build folders) into `repository`, commits
    /// it with fixed dates and tags it `0.1.0`; returns the revision.
    static func tagRepository() throws -> String {
        try? FileManager.default.removeItem(at: repository)
        try FileManager.default.createDirectory(at: repository, withIntermediateDirectories: true)
        try copyTree(from: ToolRunner.packageRoot, to: repository)
        let fixed = [
            "GIT_AUTHOR_NAME": "Mappings tests", "GIT_AUTHOR_EMAIL": "tests@mappings.invalid",
            "GIT_COMMITTER_NAME": "Mappings tests", "GIT_COMMITTER_EMAIL": "tests@mappings.invalid",
            "GIT_AUTHOR_DATE": "2025-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2025-01-01T00:00:00Z",
        ]
        for command in [
            ["git", "init", "--quiet"], ["git", "add", "--all"],
            ["git", "-c", "commit.gpgsign=false", "commit", "--quiet", "--message", "Mappings 0.1.0"],
            ["git", "tag", "0.1.0"],
        ] {
            let result = try PackageBuild.run(command, in: repository, environment: fixed)
            try #require(result.status == 0, "\(command.joined(separator: " ")): \(result.output)")
        }
        let head = try PackageBuild.run(["git", "rev-parse", "HEAD"], in: repository)
        return head.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Copies `source`'s entries into `destination`, leaving out `.git`, `.build` and `.build-*` folders.
    static func copyTree(from source: URL, to destination: URL) throws {
        let manager = FileManager.default
        for name in try manager.contentsOfDirectory(atPath: source.path) {
            if name == ".git" || name == ".build" || name.hasPrefix(".build-") { continue }
            let from = source.appendingPathComponent(name), to = destination.appendingPathComponent(name)
            var isDirectory: ObjCBool = false
            if manager.fileExists(atPath: from.path, isDirectory: &isDirectory), isDirectory.boolValue {
                try manager.createDirectory(at: to, withIntermediateDirectories: true)
                try copyTree(from: from, to: to)
            } else {
                try manager.copyItem(at: from, to: to)
            }
        }
    }

    static func write(_ text: String, to url: URL) throws {
        // Unchanged files stay untouched, so that the next build has nothing to do.
        if (try? String(contentsOf: url, encoding: .utf8)) == text { return }
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }

    /// The host: a manifest as docs/swift.md shows, a typed model whose file also uses Swift's
    /// own `KeyPath` (no name of the library may shadow it), and a Lua transformer.
    static func hostFiles(url: String) -> [String: String] {
        [
            "Package.swift": """
            // swift-tools-version: 6.0
            import PackageDescription

            let package = Package(
                name: "host",
                dependencies: [
                    .package(url: "\(url)", from: "0.1.0")
                ],
                targets: [
                    .executableTarget(
                        name: "host",
                        dependencies: [
                            .product(name: "Mappings", package: "mappings"),
                            .product(name: "MappingsLua", package: "mappings"),
                        ]
                    )
                ]
            )

            """,
            "Sources/host/main.swift": """
            import Mappings
            import MappingsLua

            struct User: MappedModel {
                var name = ""

                static let mapping = TypedModel<User>("User", make: { User() }) { user in
                    user.bind("name", \\.name)
                }
            }

            struct Tweet: MappedModel {
                var message = ""
                var shout = ""
                var user = User()

                static let mapping = TypedModel<Tweet>("Tweet", make: { Tweet() }) { tweet in
                    tweet.bind("message", \\.message)
                    tweet.bind("shout", \\.shout)
                    tweet.bind("user", \\.user)
                }
            }

            let contexts = #\"""
                { "$User": { "@class": "User", "name": "name" },
                  "$Tweet": { "@class": "Tweet", "message": "text",
                    "shout": { "@keyPath": "text", "@transformClass": "Shout", "@transformSelector": "upper" },
                    "user": { "@keyPath": "user", "@object": { "@mappings": "$User" } } } }
                \"""#
            var definitions = Definitions()
            definitions.register(Tweet.self)
            var transformers = TransformerRegistry()
            transformers.add(LuaScripts(directory: "scripts"))
            let catalog = try Catalog.load(
                ["host.mappings"], from: .memory(["host.mappings": contexts]), transformers: transformers,
                definitions: definitions)
            let payload = try JSONValue(parsing: #"{"text": "Hello from a host", "user": {"name": "Ann"}}"#)
            let mapper = Mapper(catalog: catalog)
            let tweet = mapper.object(Tweet.self, from: payload, using: try mapper.typedContext(Tweet.self, "$Tweet"))
            let message: KeyPath<Tweet, String> = \\.message
            print(tweet.value[keyPath: message])
            print(tweet.value.shout)
            print("by \\(tweet.value.user.name), \\(tweet.issues.count) issues")

            """,
            "scripts/Shout.lua": """
            return { upper = function(text) return string.upper(text) end }

            """,
        ]
    }
}
