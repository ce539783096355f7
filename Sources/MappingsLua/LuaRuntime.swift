internal import CLua

/// Facts about the Lua library the bridge is linked against.
package enum LuaRuntime {
    /// The Lua release the bridge was built with, such as `5.4.4`.
    package static var release: String {
        let number = Int(clua_version_release_num())
        return "\(number / 10000).\(number / 100 % 100).\(number % 100)"
    }
}
