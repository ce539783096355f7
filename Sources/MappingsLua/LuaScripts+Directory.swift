import Foundation

extension LuaScripts {
    /// Where a project's scripts are when no folder is named: the `scripts` folder beside the
    /// contexts' folder — `PROJECT/scripts` for `PROJECT/contexts` or a file in it, the layout
    /// `mappings init` writes and the Python module's `load` reads — when it exists; else
    /// `scripts` where you stand. `contexts` is the first `--mappings` path (`nil`: none, and
    /// the contexts are `contexts` where you stand).
    package static func directory(besideContexts contexts: String?) -> String {
        guard let contexts else { return "scripts" }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: contexts, isDirectory: &isDirectory) else { return "scripts" }
        let url = URL(fileURLWithPath: contexts)
        let folder = isDirectory.boolValue ? url : url.deletingLastPathComponent()
        let beside = folder.standardizedFileURL.deletingLastPathComponent().appendingPathComponent("scripts")
        var besideIsDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: beside.path, isDirectory: &besideIsDirectory),
            besideIsDirectory.boolValue
        else { return "scripts" }
        // Named as the user would: relative to where they stand when it lies below.
        let here = FileManager.default.currentDirectoryPath + "/"
        return beside.path.hasPrefix(here) ? String(beside.path.dropFirst(here.count)) : beside.path
    }
}
