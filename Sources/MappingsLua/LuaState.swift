internal import CLua

/// One Lua 5.4 interpreter, owned: created in `init`, closed in `deinit`.
///
/// This is the bridge's foundation; the sandbox (allow-listed environment, memory cap,
/// instruction budget) is built on it by the transformer provider.
final class LuaState {
    let state: OpaquePointer

    init() {
        guard let state = luaL_newstate() else {
            fatalError("Lua could not allocate an interpreter")
        }
        self.state = state
    }

    deinit {
        lua_close(state)
    }

    /// Runs a text chunk under `lua_pcall` and returns its first result rendered as a string.
    ///
    /// Stack: [-0, +0, -] (the chunk and its results are popped before returning).
    func evaluate(_ source: String, name: String) throws(LuaError) -> String? {
        let base = lua_gettop(state)
        defer { lua_settop(state, base) }
        let chunkName = "=" + name
        let status = source.withCString { pointer in
            clua_loadtext(state, pointer, source.utf8.count, chunkName)
        }
        guard status == LUA_OK else { throw LuaError(message: message(at: -1)) }
        guard clua_pcall(state, 0, 1, 0) == LUA_OK else { throw LuaError(message: message(at: -1)) }
        if clua_isnil(state, -1) != 0 { return nil }
        return message(at: -1)
    }

    /// The value at `index` as a string (`luaL_tolstring` calls no metamethod on strings and numbers).
    private func message(at index: Int32) -> String {
        var length = 0
        guard let pointer = lua_tolstring(state, index, &length) else { return "(\(typeName(at: index)))" }
        return String(decoding: UnsafeRawBufferPointer(start: pointer, count: length), as: UTF8.self)
    }

    private func typeName(at index: Int32) -> String {
        String(cString: lua_typename(state, lua_type(state, index)))
    }
}

/// Facts about the Lua library the bridge is linked against.
public enum LuaRuntime {
    /// The Lua release the bridge was built with, such as `5.4.4`.
    public static var release: String {
        let number = Int(clua_version_release_num())
        return "\(number / 10000).\(number / 100 % 100).\(number % 100)"
    }

    /// Runs a trivial text chunk in a fresh interpreter and returns its first result as text;
    /// proves the library is linked and callable.
    public static func evaluate(_ source: String, name: String = "chunk") throws(LuaError) -> String? {
        try LuaState().evaluate(source, name: name)
    }
}

/// A Lua error, with the message Lua gave (`script:line: message`).
public struct LuaError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
