#ifndef CLUA_SHIM_H
#define CLUA_SHIM_H

// The Lua 5.4 C API as Swift sees it. Lua's function-like macros do not import into
// Swift, so each one Swift code needs (MappingsLua, and the reference interpreter of
// PatternMatcherTests) is re-declared here as a `static inline` function with the `clua_`
// prefix. Nothing here raises a Lua error: errors are raised from C only, never from a Swift
// frame (see STYLE.md, "A longjmp never crosses a Swift frame"). Stack effects are in the Lua
// manual's notation.

#include <lua.h>
#include <lualib.h>
#include <lauxlib.h>

/// Replaces `lua_pop(L, n)`. Stack: [-n, +0, -]
static inline void clua_pop(lua_State *L, int n) { lua_settop(L, -(n) - 1); }

/// Replaces `lua_newtable(L)`. Stack: [-0, +1, m]
static inline void clua_newtable(lua_State *L) { lua_createtable(L, 0, 0); }

/// Replaces `lua_pcall(L, nargs, nresults, msgh)`. Stack: [-(nargs+1), +(nresults|1), -]
static inline int clua_pcall(lua_State *L, int nargs, int nresults, int msgh) {
    return lua_pcallk(L, nargs, nresults, msgh, 0, NULL);
}

/// Replaces `lua_tostring(L, i)`. Stack: [-0, +0, m]
static inline const char *clua_tostring(lua_State *L, int i) { return lua_tolstring(L, i, NULL); }

/// Replaces `luaL_loadbuffer(L, s, sz, name)`, forcing text mode: binary chunks never load. Stack: [-0, +1, -]
static inline int clua_loadtext(lua_State *L, const char *s, size_t sz, const char *name) {
    return luaL_loadbufferx(L, s, sz, name, "t");
}

/// Replaces `LUA_VERSION_RELEASE_NUM` (an arithmetic macro): the release of the headers, such as 50404.
static inline int clua_version_release_num(void) { return LUA_VERSION_RELEASE_NUM; }

#endif
