import Foundation
import MappingsTestSupport
import Testing

/// The package declares Apple platforms it is not built on here; what keeps that claim honest
/// is that every Linux-only call in its sources sits behind a Linux condition (`#if os(Linux)`,
/// `canImport(Glibc)`, `__linux__`), so a Mac's build takes the other branch.
@Suite("Linux-only APIs stay behind Linux conditions")
struct PlatformAPITests {
    /// Swift spellings of what only Linux (or glibc) has.
    static let swiftOnly = [
        "import Glibc", "Glibc.", "/proc/", "MSG_NOSIGNAL", "SOCK_CLOEXEC", "pthread_getattr_np", "epoll_", "prctl",
        "seccomp_", "eventfd", "memfd_create", "inotify_", "mallopt(", "malloc_trim",
    ]
    /// C spellings of the same.
    static let cOnly = [
        "<linux/", "<sys/prctl.h>", "prctl(", "SOCK_CLOEXEC", "MSG_NOSIGNAL", "pthread_getattr_np", "SECCOMP_",
        "seccomp_data", "/proc/", "epoll_", "accept4(", "pipe2(",
    ]

    /// The Linux-only spellings of `text` outside a Linux branch, as `line: spelling`.
    static func unguarded(_ text: String, spellings: [String], linux: [String]) -> [String] {
        // Each open conditional: whether the branch being read is Linux's, and whether its
        // `#else` would be (after `#if !os(Linux)`).
        var branches: [(linux: Bool, elseIsLinux: Bool)] = []
        var found: [String] = []
        for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            let condition = line.split(separator: " ", maxSplits: 1).dropFirst().first.map(String.init) ?? ""
            let namesLinux = linux.contains { condition.contains($0) }
            let negated = condition.hasPrefix("!")
            let branch = (linux: namesLinux && !negated, elseIsLinux: namesLinux && negated)
            if line.hasPrefix("#if") {
                branches.append(branch)
            } else if line.hasPrefix("#elseif") || line.hasPrefix("#elif") {
                if !branches.isEmpty { branches[branches.count - 1] = branch }
            } else if line.hasPrefix("#else") {
                if let last = branches.last { branches[branches.count - 1] = (last.elseIsLinux, false) }
            } else if line.hasPrefix("#endif") {
                _ = branches.popLast()
            } else if !branches.contains(where: \.linux) {
                let code = line.hasPrefix("//") || line.hasPrefix("*") || line.hasPrefix("/*") ? "" : line
                let uncommented = code.components(separatedBy: " //").first ?? code
                for spelling in spellings where uncommented.contains(spelling) {
                    found.append("\(number + 1): \(spelling)")
                }
            }
        }
        return found
    }

    @Test("every Swift and C source of the package")
    func sources() throws {
        let sources = Fixtures.root.appendingPathComponent("Sources")
        let files = FileManager.default.enumerator(atPath: sources.path)?.compactMap { $0 as? String } ?? []
        var problems: [String] = []
        var read = 0
        for file in files.sorted() where file.hasSuffix(".swift") || file.hasSuffix(".c") || file.hasSuffix(".h") {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            read += 1
            let found =
                file.hasSuffix(".swift")
                ? Self.unguarded(text, spellings: Self.swiftOnly, linux: ["os(Linux)", "canImport(Glibc)"])
                : Self.unguarded(text, spellings: Self.cOnly, linux: ["__linux__"])
            problems += found.map { "Sources/\(file):\($0)" }
        }
        #expect(read > 100)
        #expect(problems.isEmpty, "Linux-only outside a Linux condition:\n\(problems.joined(separator: "\n"))")
    }

    @Test("the check itself: a bare use is found, guarded ones and comments are not")
    func checker() {
        let text = """
            import Glibc
            #if canImport(Glibc)
                import Glibc
            #elseif canImport(Darwin)
                import Darwin
            #endif
            // reads /proc/self/exe on Linux
            #if !os(Linux)
                let path = "/proc/self/exe"
            #else
                let path = "/proc/self/exe"
            #endif
            let flags = MSG_NOSIGNAL
            """
        let found = Self.unguarded(text, spellings: Self.swiftOnly, linux: ["os(Linux)", "canImport(Glibc)"])
        #expect(found == ["1: import Glibc", "9: /proc/", "13: MSG_NOSIGNAL"])
    }
}
