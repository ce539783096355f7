import Foundation
import MappingsTestSupport
import Testing

/// `tools/ensure-dependencies`, which every script of the project runs first: it installs only
/// what is missing, never what is there, and each command asks only for what it needs.
@Suite("tools/ensure-dependencies")
struct EnsureDependenciesTests {
    /// A folder of stand-ins for `apt-get` and `sudo` that log each call to `calls` and fail,
    /// and for `ldconfig`, which lists the system's libraries first, then 300,000 bytes more: a
    /// reader that stops at the first match ends the pipe early (SIGPIPE).
    static func standIns() throws -> URL {
        let folder = try ToolRunner.directory(with: [:])
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for name in ["apt-get", "sudo"] {
            let script = "#!/bin/sh\necho \"\(name) $*\" >> \"$(dirname \"$0\")/calls\"\nexit 100\n"
            let created = FileManager.default.createFile(
                atPath: folder.appendingPathComponent(name).path, contents: Data(script.utf8),
                attributes: [.posixPermissions: 0o755])
            try #require(created)
        }
        let ldconfig = """
            #!/bin/sh
            /sbin/ldconfig "$@"
            i=0
            while [ $i -lt 5000 ]; do
                echo "\tlibpadding$i.so.1 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libpadding$i.so.1"
                i=$((i + 1))
            done

            """
        try #require(
            FileManager.default.createFile(
                atPath: folder.appendingPathComponent("ldconfig").path, contents: Data(ldconfig.utf8),
                attributes: [.posixPermissions: 0o755]))
        return folder
    }

    @Test(
        "with everything installed, forty runs of each scope call apt-get none of the times",
        arguments: [[], ["build"], ["test"]])
    func neverRunsAptForWhatIsInstalled(arguments: [String]) throws {
        let standIns = try Self.standIns()
        defer { try? FileManager.default.removeItem(at: standIns) }
        let script = ToolRunner.packageRoot.appendingPathComponent("tools/ensure-dependencies")
        let path = standIns.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        for _ in 0..<40 {
            let run = try ToolRunner.runProgram(script, arguments, environment: ["PATH": path])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stderr == "")
        }
        #expect(!FileManager.default.fileExists(atPath: standIns.appendingPathComponent("calls").path))
    }

    @Test("the build's scope asks for the compiler's needs alone: none of the tests' programs")
    func buildScopeIsSmall() throws {
        let text = try String(
            contentsOf: ToolRunner.packageRoot.appendingPathComponent("tools/ensure-dependencies"), encoding: .utf8)
        let testScope = try #require(text.range(of: "if [ \"$scope\" = test ]; then"))
        let build = text[..<testScope.lowerBound]
        for package in ["chromium", "neovim", "postgresql", "debootstrap", "wrk", "man-db", "unicode-data"] {
            #expect(!build.contains("packages+=(\(package)"), "\(package) installed for a build")
            #expect(text.contains(package), "\(package) in the test scope")
        }
        #expect(build.contains("liblua5.4-dev"))
        let refused = try ToolRunner.runProgram(
            ToolRunner.packageRoot.appendingPathComponent("tools/ensure-dependencies"), ["everything"])
        #expect(refused.status == 2)
        #expect(refused.stderr == "usage: tools/ensure-dependencies [build|test]\n")
    }
}
