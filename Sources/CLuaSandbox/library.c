// The sandbox: the functions scripts call in place of Lua's, and the `json` library.
// Stack effects are written as sandbox.c says.
#define _GNU_SOURCE
#include "sandbox_internal.h"

#include <math.h>
#include <pthread.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

// MARK: Functions scripts call in place of Lua's

/// Whether a table has one of the sandbox's read-only metatables (marked `__readonly`, or a
/// lookup table's row: its `__newindex` is the `tables` library's); why: `rawset` must not
/// write through. Stack: [-0, +0, m]
static int clua_sandbox_is_readonly(lua_State *L, int index) {
    if (!lua_getmetatable(L, index)) return 0;
    lua_pushliteral(L, "__readonly");
    lua_rawget(L, -2);
    int readonly = lua_toboolean(L, -1);
    lua_pushliteral(L, "__newindex");
    lua_rawget(L, -3);
    readonly = readonly || lua_tocfunction(L, -1) == clua_tables_readonly;
    lua_pop(L, 3);
    return readonly;
}

/// `setmetatable` for scripts; why: refuses `__gc` and `__close`, which run where no hook can
/// stop them. Stack: [-2, +1, v]
int clua_sandbox_setmetatable(lua_State *L) {
    if (clua_view_is(L, 1)) return luaL_error(L, "cannot change a protected metatable");
    luaL_checktype(L, 1, LUA_TTABLE);
    int kind = lua_type(L, 2);
    luaL_argexpected(L, kind == LUA_TNIL || kind == LUA_TTABLE, 2, "nil or table");
    if (kind == LUA_TTABLE) {
        static const char *const banned[] = {"__gc", "__close", NULL};
        for (const char *const *field = banned; *field; field++) {
            lua_pushstring(L, *field);
            if (lua_rawget(L, 2) != LUA_TNIL) return luaL_error(L, "setmetatable: %s is not allowed here", *field);
            lua_pop(L, 1);
        }
    }
    if (luaL_getmetafield(L, 1, "__metatable") != LUA_TNIL) return luaL_error(L, "cannot change a protected metatable");
    lua_settop(L, 2);
    lua_setmetatable(L, 1);
    return 1;
}

/// `rawset` for scripts; why: the library tables are read-only proxies, even to raw writes.
/// Stack: [-3, +1, v]
int clua_sandbox_rawset(lua_State *L) {
    if (clua_view_is(L, 1)) return clua_view_rawset(L);
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_checkany(L, 2);
    luaL_checkany(L, 3);
    if (clua_sandbox_is_readonly(L, 1)) return luaL_error(L, "attempt to modify a read-only table");
    lua_settop(L, 3);
    lua_rawset(L, 1);
    return 1;
}

/// `pcall` for scripts; why: a limit that tripped inside (budget, deadline, memory) is raised
/// again at once, so not even a tail call `return pcall(f)` gets back to the host as a value.
/// Stack: [-(nargs+1), +(nresults+1|2), e]
int clua_sandbox_pcall(lua_State *L) {
    luaL_checkany(L, 1);
    int status = lua_pcall(L, lua_gettop(L) - 1, LUA_MULTRET, 0);
    if (status != LUA_OK) {
        if (clua_sandbox_trips(L, status)) return lua_error(L);
        lua_pushboolean(L, 0);
        lua_insert(L, -2);
        return 2;
    }
    lua_pushboolean(L, 1);
    lua_insert(L, 1);
    return lua_gettop(L);
}

/// `xpcall` for scripts; why: Lua runs a message handler inside the hook that raised, where
/// hooks are off, so a handler that loops would never stop. This one runs the handler after
/// the error has unwound, under its own `pcall`, with hooks (and the sticky budget) on; a
/// tripped limit skips the handler and is raised again, like `pcall` does.
/// Stack: [-(nargs+2), +(nresults+1|2), e]
int clua_sandbox_xpcall(lua_State *L) {
    int arguments = lua_gettop(L);
    luaL_checktype(L, 2, LUA_TFUNCTION);
    luaL_checkstack(L, arguments + 2, "too many arguments");
    lua_pushvalue(L, 1);
    for (int i = 3; i <= arguments; i++) lua_pushvalue(L, i);
    int status = lua_pcall(L, arguments - 2, LUA_MULTRET, 0);
    if (status == LUA_OK) {
        lua_pushboolean(L, 1);
        lua_insert(L, arguments + 1);
        return lua_gettop(L) - arguments;
    }
    if (clua_sandbox_trips(L, status)) return lua_error(L);
    lua_pushvalue(L, 2);
    lua_insert(L, -2);
    status = lua_pcall(L, 1, 1, 0);
    if (status != LUA_OK && clua_sandbox_trips(L, status)) return lua_error(L);
    lua_pushboolean(L, 0);
    lua_insert(L, -2);
    return 2;
}

/// Raises "read-only"; why: the `__newindex` of every library proxy. Stack: [-3, +0, v]
int clua_sandbox_readonly_error(lua_State *L) {
    return luaL_error(L, "attempt to modify a read-only table");
}

/// Moves every entry of the table at `from` into the table at `to` (or drops them if `to` is 0);
/// why: globals are cleared between calls, and load-time globals are kept apart. Stack: [-0, +0, m]
void clua_sandbox_drain(lua_State *L, int from, int to) {
    from = lua_absindex(L, from);
    if (to) to = lua_absindex(L, to);
    lua_pushnil(L);
    while (lua_next(L, from)) {
        if (to) {
            lua_pushvalue(L, -2);
            lua_insert(L, -2);
            lua_rawset(L, to);
        } else {
            lua_pop(L, 1);
        }
        lua_pushvalue(L, -1);
        lua_pushnil(L);
        lua_rawset(L, from);
    }
}

/// `require` for scripts; why: loads only other scripts the host handed over, as text, once.
/// Stack: [-1, +1, e]
int clua_sandbox_require(lua_State *L) {
    clua_sandbox *s = clua_sandbox_of(L);
    const char *name = luaL_checkstring(L, 1);
    lua_settop(L, 1);
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->loaded_ref);
    int loaded = lua_gettop(L);
    lua_pushvalue(L, 1);
    if (lua_rawget(L, loaded) != LUA_TNIL) {
        if (lua_type(L, -1) == LUA_TLIGHTUSERDATA && lua_touserdata(L, -1) == (void *)&s->loaded_ref)
            return luaL_error(L, "require cycle through '%s'", name);
        return 1;
    }
    lua_pop(L, 1);
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->sources_ref);
    lua_pushvalue(L, 1);
    if (lua_rawget(L, -2) != LUA_TTABLE) return luaL_error(L, "module '%s' not found in the scripts directory", name);
    int source = lua_gettop(L);  // {text, chunk name}
    lua_rawgeti(L, source, 1);
    lua_rawgeti(L, source, 2);
    size_t length = 0;
    const char *text = lua_tolstring(L, -2, &length);
    const char *chunk_name = lua_tostring(L, -1);
    if (luaL_loadbufferx(L, text, length, chunk_name, "t") != LUA_OK) return lua_error(L);
    // Loading: a mark that a `require` of the same name while it loads is a cycle.
    lua_pushvalue(L, 1);
    lua_pushlightuserdata(L, (void *)&s->loaded_ref);
    lua_rawset(L, loaded);
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->env_ref);
    lua_setupvalue(L, -2, 1);
    if (lua_pcall(L, 0, 1, 0) != LUA_OK) {
        // Forget the half-loaded module, so a later require reports the real error again.
        lua_pushvalue(L, 1);
        lua_pushnil(L);
        lua_rawset(L, loaded);
        return lua_error(L);
    }
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        lua_pushboolean(L, 1);
    }
    lua_pushvalue(L, 1);
    lua_pushvalue(L, -2);
    lua_rawset(L, loaded);
    // The globals a script defines while it loads stay; those a call defines do not.
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->env_ref);
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->snapshot_ref);
    clua_sandbox_drain(L, -2, -1);
    lua_pop(L, 2);
    return 1;
}

/// The upvalues every `json` function has: the metatables that mark arrays and objects.
enum { CLUA_JSON_ARRAY_MT = 1, CLUA_JSON_OBJECT_MT = 2 };

/// Sets the mark (the metatable in upvalue `mark`) of the table argument, or of a new table;
/// why: scripts mark an (empty) table as the JSON kind they mean. Stack: [-(0|1), +1, v]
static int clua_json_mark(lua_State *L, int mark) {
    if (lua_isnoneornil(L, 1)) {
        lua_settop(L, 0);
        lua_createtable(L, 0, 0);
    }
    // A view is the kind its text is; it cannot be marked as the other.
    if (clua_view_is(L, 1)) {
        int is_array = clua_view_is_array(L, 1);
        if (is_array != (mark == CLUA_JSON_ARRAY_MT))
            return luaL_error(L, "json.%s: the value is a JSON %s", is_array ? "object" : "array",
                              is_array ? "array" : "object");
        lua_settop(L, 1);
        return 1;
    }
    luaL_checktype(L, 1, LUA_TTABLE);
    if (lua_getmetatable(L, 1)) {
        int ours = lua_rawequal(L, -1, lua_upvalueindex(CLUA_JSON_ARRAY_MT))
            || lua_rawequal(L, -1, lua_upvalueindex(CLUA_JSON_OBJECT_MT));
        lua_pop(L, 1);
        if (!ours) return luaL_error(L, "the table already has a metatable");
    }
    lua_settop(L, 1);
    lua_pushvalue(L, lua_upvalueindex(mark));
    lua_setmetatable(L, 1);
    return 1;
}

/// `json.array(t)`: marks `t` (or a new table) as a JSON array. Stack: [-(0|1), +1, v]
int clua_json_array(lua_State *L) { return clua_json_mark(L, CLUA_JSON_ARRAY_MT); }

/// `json.object(t)`: marks `t` (or a new table) as a JSON object. Stack: [-(0|1), +1, v]
int clua_json_object(lua_State *L) { return clua_json_mark(L, CLUA_JSON_OBJECT_MT); }

/// `json.type(v)`; why: tells "array" from "object" and "integer" from "float", which `type`
/// cannot. Stack: [-1, +1, v]
int clua_json_type(lua_State *L) {
    clua_sandbox *s = clua_sandbox_of(L);
    luaL_checkany(L, 1);
    switch (lua_type(L, 1)) {
    case LUA_TNIL: lua_pushliteral(L, "null"); break;
    case LUA_TLIGHTUSERDATA:
        if (lua_touserdata(L, 1) == (void *)s) lua_pushliteral(L, "null");
        else lua_pushliteral(L, "userdata");
        break;
    case LUA_TBOOLEAN: lua_pushliteral(L, "boolean"); break;
    case LUA_TNUMBER:
        if (lua_isinteger(L, 1)) lua_pushliteral(L, "integer");
        else lua_pushliteral(L, "float");
        break;
    case LUA_TSTRING: lua_pushliteral(L, "string"); break;
    case LUA_TUSERDATA:
        if (clua_view_is(L, 1)) {
            if (clua_view_is_array(L, 1)) lua_pushliteral(L, "array");
            else lua_pushliteral(L, "object");
        } else {
            lua_pushliteral(L, "userdata");
        }
        break;
    case LUA_TTABLE: {
        const void *mt = lua_getmetatable(L, 1) ? lua_topointer(L, -1) : NULL;
        if (mt == s->array_mt) lua_pushliteral(L, "array");
        else if (mt == s->object_mt) lua_pushliteral(L, "object");
        else lua_pushliteral(L, "table");
        break;
    }
    default: lua_pushstring(L, luaL_typename(L, 1)); break;
    }
    return 1;
}
