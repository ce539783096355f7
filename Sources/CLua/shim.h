#ifndef CLUA_SHIM_H
#define CLUA_SHIM_H

// The Lua 5.4 C API as Swift sees it. Lua's function-like macros do not import into
// Swift, so each one the bridge needs is re-declared here as a `static inline` function
// with the `clua_` prefix. Nothing here raises a Lua error: errors are raised from C only,
// never from a Swift frame (see STYLE.md, "A longjmp never crosses a Swift frame").

#include <lua.h>
#include <lualib.h>
#include <lauxlib.h>

/// Replaces `LUA_REGISTRYINDEX`, which Swift cannot import (it is an expression macro).
static inline int clua_registryindex(void) { return LUA_REGISTRYINDEX; }

/// Replaces `lua_pop(L, n)`.
static inline void clua_pop(lua_State *L, int n) { lua_settop(L, -(n) - 1); }

/// Replaces `lua_newtable(L)`.
static inline void clua_newtable(lua_State *L) { lua_createtable(L, 0, 0); }

/// Replaces `lua_pcall(L, nargs, nresults, msgh)`.
static inline int clua_pcall(lua_State *L, int nargs, int nresults, int msgh) {
    return lua_pcallk(L, nargs, nresults, msgh, 0, NULL);
}

/// Replaces `lua_tostring(L, i)`.
static inline const char *clua_tostring(lua_State *L, int i) { return lua_tolstring(L, i, NULL); }

/// Replaces `luaL_loadbuffer(L, s, sz, name)`, forcing text mode: binary chunks never load.
static inline int clua_loadtext(lua_State *L, const char *s, size_t sz, const char *name) {
    return luaL_loadbufferx(L, s, sz, name, "t");
}

/// Replaces `lua_isnil(L, i)`.
static inline int clua_isnil(lua_State *L, int i) { return lua_type(L, i) == LUA_TNIL; }

/// Replaces `LUA_VERSION_RELEASE_NUM` (an arithmetic macro): the release of the headers, such as 50404.
static inline int clua_version_release_num(void) { return LUA_VERSION_RELEASE_NUM; }

#endif
