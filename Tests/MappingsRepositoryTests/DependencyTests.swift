import Foundation
import MappingsTestSupport
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

    @Test(
        "a host depending on the tagged repository builds, and maps into its own types: bound by hand, by @MappedModel, and Decodable"
    )
    func host() throws {
        let revision = try Self.tagRepository()
        let scratch = Self.base.appendingPathComponent("host-build")
        let marker = Self.base.appendingPathComponent("host-build.revision")
        if (try? String(contentsOf: marker, encoding: .utf8)) != revision {
            // The tag moved: resolve and build from nothing rather than trust a checkout of the old one.
            try? FileManager.default.removeItem(at: scratch)
            try? FileManager.default.removeItem(at: Self.host.appendingPathComponent("Package.resolved"))
        }
        for (path, text) in try Self.hostFiles(url: Self.repository.absoluteString) {
            try Self.write(text, to: Self.host.appendingPathComponent(path))
        }
        for product in ["host", "readme"] {
            let build = try PackageBuild.swiftBuild([
                "--package-path", Self.host.path, "--scratch-path", scratch.path, "--disable-dependency-cache",
                "--product", product,
            ])
            try #require(build.status == 0, "\(build.output)")
        }
        try Data(revision.utf8).write(to: marker)

        let run = try ToolRunner.run([], in: Self.host, executable: scratch.appendingPathComponent("debug/host"))
        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            run.stdout == """
                Hello from a host
                HELLO FROM A HOST
                by Ann, 0 issues
                macro: Hello from a host by Ann (https://example.com/ann) at 2024-02-29T12:00:00Z, 2 replies, 1 issues
                missing: $.replies[1].text: missing required value for Post.replies[1].text (host.mappings:3)
                decoded: Hello from a host by Ann, 2 replies, 0 issues
                undecodable: nil, missing required value
                database: read 3, written 2, rejected 1, at notes:4 (byte 58)
                again: read 0, written 0, rejected 0, at notes:4 (byte 58)

                """, "\(run.stderr)")

        // The README's complete host, run where it says: the repository's root.
        let readme = try ToolRunner.run(
            [], in: ToolRunner.packageRoot, executable: scratch.appendingPathComponent("debug/readme"))
        #expect(readme.status == 0, "\(readme.stderr)")
        #expect(readme.stdout == "Twitter API 121 []\n", "\(readme.stderr)")

        // A property the macro cannot bind fails the build, naming the macro and the property.
        let broken = try PackageBuild.swiftBuild([
            "--package-path", Self.host.path, "--scratch-path", scratch.path, "--disable-dependency-cache",
            "--target", "broken",
        ])
        #expect(broken.status != 0)
        #expect(broken.output.contains("@MappedModel cannot bind `let id`"), "\(broken.output)")
        #expect(
            broken.output.contains("the property's type is not a MappableValue: make it a model"), "\(broken.output)")
        #expect(broken.output.contains("in expansion of macro 'MappedModel'"), "\(broken.output)")
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

    /// The Swift block after `<!-- readme-host -->` in README.md.
    static func readmeHost() throws -> String {
        let readme = try String(
            contentsOf: ToolRunner.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        guard let marker = readme.range(of: "<!-- readme-host -->\n```swift\n"),
            let end = readme.range(of: "\n```\n", range: marker.upperBound..<readme.endIndex)
        else { throw PackageBuild.Failure("README.md has no <!-- readme-host --> Swift block") }
        return String(readme[marker.upperBound..<end.lowerBound]) + "\n"
    }

    static func write(_ text: String, to url: URL) throws {
        // Unchanged files stay untouched, so that the next build has nothing to do.
        if (try? String(contentsOf: url, encoding: .utf8)) == text { return }
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }

    /// The host: a manifest as docs/swift.md shows, a typed model whose file also uses Swift's
    /// own `KeyPath` (no name of the library may shadow it), and a Lua transformer.
    static func hostFiles(url: String) throws -> [String: String] {
        [
            "Sources/readme/main.swift": try readmeHost(),
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
                            .product(name: "MappingsMacros", package: "mappings"),
                            .product(name: "MappingsSQL", package: "mappings"),
                        ]
                    ),
                    // The README's complete host, its block as it stands.
                    .executableTarget(
                        name: "readme",
                        dependencies: [
                            .product(name: "MappingsLua", package: "mappings"),
                            .product(name: "MappingsMacros", package: "mappings"),
                        ]
                    ),
                    // Types the macro cannot bind: this target must not compile.
                    .target(
                        name: "broken",
                        dependencies: [.product(name: "MappingsMacros", package: "mappings")]
                    ),
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
            try mapThroughMacro()
            try writeIntoDatabase()

            """,
            "Sources/host/Database.swift": #"""
            import Foundation
            import Mappings
            import MappingsSQL

            /// Three records into a SQLite file through a sink, then the job started again.
            func writeIntoDatabase() throws {
                let contexts = #"{ "$Note": { "@class": "Note", "@identity": "id", "id": "id", "text": "text" } }"#
                let models = #"{ "@models": { "Note": { "id": "Int", "text": "String" } } }"#
                let catalog = try Catalog.load(
                    ["models.mappings", "notes.mappings"],
                    from: .memory(["models.mappings": models, "notes.mappings": contexts]))
                let mapper = Mapper(catalog: catalog)
                let context = try mapper.context("$Note")
                let folder = FileManager.default.temporaryDirectory.appendingPathComponent("host-\(getpid())")
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                defer { try? FileManager.default.removeItem(at: folder) }
                var options = DatabaseSink.Options()
                options.createTables = true
                options.job = "notes"
                let lines = [#"{"id": 1, "text": "a"}"#, #"{"id": "x"}"#, #"{"id": 1, "text": "b"}"#].map { Array($0.utf8) }
                let stream = MappingStream(records: RecordMapper(mapper: mapper, context: context), workers: 2)
                for run in ["database", "again"] {
                    let sink = try DatabaseSink(
                        .sqlite(path: folder.appendingPathComponent("notes.db").path), context: context, in: catalog,
                        options: options)
                    let start = try sink.storedPosition() ?? RecordPosition(source: "notes")
                    let report = try stream.map(lines[(start.line - 1)...], into: sink, from: start)
                    print("\(run): read \(report.records), written \(report.written), rejected \(report.rejected), at \(report.end)")
                    sink.close()
                }
            }

            """#,
            "Sources/host/Macro.swift": #"""
            import Foundation
            import MappingsMacros

            @MappedModel("Author")
            struct Author {
                var name = ""
                var homepage: URL?
            }

            @MappedModel("Reply")
            struct Reply {
                var text = ""
            }

            @MappedModel("Post")
            struct Post {
                @MappedProperty("text") var message = ""
                var author = Author()
                var posted: Date?
                var replies: [Reply] = []
                var tags: [String]?
                @MappedIgnored var seen = false
            }

            /// A type of the host's that only knows Codable.
            struct Digest: Decodable {
                var text: String
                var author: Author
                var replies: [Reply]

                struct Author: Decodable { var name: String }
                struct Reply: Decodable { var text: String }
            }

            func mapThroughMacro() throws {
                let contexts = """
                    {
                        "$Author": { "@class": "Author", "name": "name", "homepage": { "@keyPath": "web", "@optional": true } },
                        "$Reply": { "@class": "Reply", "text": "text" },
                        "$Post": {
                            "@class": "Post",
                            "text": "text",
                            "author": { "@keyPath": "user", "@object": { "@mappings": "$Author" } },
                            "posted": { "@keyPath": "at", "@optional": true },
                            "replies": { "@keyPath": "replies", "@object": { "@mappings": "$Reply" } },
                            "tags": { "@keyPath": "tags", "@optional": true }
                        }
                    }
                    """
                var definitions = Definitions()
                definitions.register(Post.self)
                let mapper = Mapper(
                    catalog: try Catalog.load(
                        ["host.mappings"], from: .memory(["host.mappings": contexts]), definitions: definitions))
                let payload = Data(
                    """
                    {"text": "Hello from a host", "user": {"name": "Ann", "web": "https://example.com/ann"},
                     "at": "2024-02-29T12:00:00Z", "replies": [{"text": "hi"}, {}]}
                    """.utf8)
                let post = try mapper.map(payload, to: Post.self, context: "$Post")
                let at = post.value.posted.map { ISO8601DateFormatter().string(from: $0) } ?? "never"
                print(
                    "macro: \(post.value.message) by \(post.value.author.name) (\(post.value.author.homepage!)) at \(at),",
                    "\(post.value.replies.count) replies, \(post.issues.count) issues")
                print("missing: \(post.errors[0])")

                let complete = Data(#"{"text": "Hello from a host", "user": {"name": "Ann"}, "replies": [{"text": "a"}, {"text": "b"}]}"#.utf8)
                let digest = try mapper.decode(Digest.self, from: complete, context: "$Post")
                if let value = digest.value {
                    print("decoded: \(value.text) by \(value.author.name), \(value.replies.count) replies, \(digest.issues.count) issues")
                }
                let undecodable = try mapper.decode(Digest.self, from: payload, context: "$Post")
                print("undecodable: \(undecodable.value.map { "\($0)" } ?? "nil"), \(undecodable.errors[0].kind)")
            }

            """#,
            "Sources/broken/Broken.swift": """
            import MappingsMacros

            struct Color { var hex = "" }

            @MappedModel("Badge")
            struct Badge {
                let id: String

                init() { id = "" }
            }

            @MappedModel("Swatch")
            struct Swatch {
                var color = Color()
            }

            """,
            "scripts/Shout.lua": """
            return { upper = function(text) return string.upper(text) end }

            """,
        ]
    }
}
