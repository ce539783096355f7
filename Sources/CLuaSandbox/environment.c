// The sandbox: the environment scripts run in.
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

// MARK: The environment

/// The standard libraries the sandbox takes its functions from, opened as `linit.c` opens them.
/// Scripts never see these tables: only the copies and proxies built from them below.
static const luaL_Reg clua_standard_libraries[] = {
    {LUA_GNAME, luaopen_base},         {LUA_STRLIBNAME, luaopen_string}, {LUA_TABLIBNAME, luaopen_table},
    {LUA_MATHLIBNAME, luaopen_math},   {LUA_UTF8LIBNAME, luaopen_utf8},  {LUA_OSLIBNAME, luaopen_os},
    {NULL, NULL},
};

/// What scripts keep of Lua's base library, as Lua has it.
static const char *const clua_base_kept[] = {
    "assert", "error", "getmetatable", "ipairs", "pairs", "rawequal", "select", "tonumber", "tostring", "_VERSION",
    NULL,
};

/// The base functions the sandbox writes itself; `null`, `json`, `_G` and the libraries are
/// filled in by `clua_sandbox_setup` (a NULL function is a placeholder, as in `lbaselib.c`).
static const luaL_Reg clua_sandbox_base[] = {
    {"setmetatable", clua_sandbox_setmetatable},
    {"rawset", clua_sandbox_rawset},
    {"rawget", clua_sandbox_rawget},
    {"rawlen", clua_sandbox_rawlen},
    {"next", clua_sandbox_next},
    {"type", clua_sandbox_type},
    {"pcall", clua_sandbox_pcall},
    {"xpcall", clua_sandbox_xpcall},
    {"require", clua_sandbox_require},
    {"log", clua_sandbox_log},
    {"print", clua_sandbox_log},
    {"null", NULL},
    {"json", NULL},
    {"_G", NULL},
    {NULL, NULL},
};

/// The `json` library; every function has the array and object metatables as its upvalues
/// (CLUA_JSON_ARRAY_MT, CLUA_JSON_OBJECT_MT); `null` is filled in by `clua_sandbox_push_json`.
static const luaL_Reg clua_sandbox_json[] = {
    {"array", clua_json_array},
    {"object", clua_json_object},
    {"type", clua_json_type},
    {"copy", clua_json_copy},
    {"null", NULL},
    {NULL, NULL},
};

/// The metamethods of every library proxy; `clua_sandbox_push_readonly` adds `__index` (the copy
/// behind it), `__metatable` (false: scripts cannot see it) and `__readonly` (for `rawset`).
static const luaL_Reg clua_readonly_metamethods[] = {
    {"__newindex", clua_sandbox_readonly_error},
    {NULL, NULL},
};

/// A library scripts see: a copy of a standard library with some of its fields, where the
/// functions that could outrun the limits are replaced by bounded ones, behind a read-only proxy.
typedef struct clua_sandbox_library {
    const char *name;
    const char *const *kept;        // the only fields kept (NULL-terminated); NULL: all but `dropped`
    const char *dropped;            // a field left out of the copy, or NULL
    const luaL_Reg *bounded;        // replacements with Lua's own library as their upvalue, or NULL
    int indexed_by_strings;         // whether the string metatable's `__index` is this copy
} clua_sandbox_library;

static const char *const clua_os_kept[] = {"time", "clock", "date", NULL};

/// The libraries scripts see, besides the base and `json` (docs/lua.md, "The sandbox").
static const clua_sandbox_library clua_sandbox_libraries[] = {
    {LUA_STRLIBNAME, NULL, "dump", clua_bounded_string_functions, 1},
    {LUA_TABLIBNAME, NULL, NULL, clua_bounded_table_functions, 0},
    {LUA_MATHLIBNAME, NULL, "randomseed", NULL, 0},
    {LUA_UTF8LIBNAME, NULL, NULL, NULL, 0},
    {LUA_OSLIBNAME, clua_os_kept, NULL, NULL, 0},
    {NULL, NULL, NULL, NULL, 0},
};

/// Pushes a read-only proxy of the table at `index`; why: a library table scripts can read but
/// never change, not even with `rawset`. Stack: [-0, +1, m]
static void clua_sandbox_push_readonly(lua_State *L, int index) {
    index = lua_absindex(L, index);
    lua_createtable(L, 0, 0);  // the proxy
    lua_createtable(L, 0, 4);  // its metatable
    luaL_setfuncs(L, clua_readonly_metamethods, 0);
    lua_pushvalue(L, index);
    lua_setfield(L, -2, "__index");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    lua_pushboolean(L, 1);
    lua_setfield(L, -2, "__readonly");
    lua_setmetatable(L, -2);
}

/// Pushes the copy of `library` that scripts see, made from the standard library of that name
/// in the table at `globals`; why: an allow-list, never the library as Lua has it. Stack: [-0, +1, m]
static void clua_sandbox_push_library(lua_State *L, int globals, const clua_sandbox_library *library) {
    lua_getfield(L, globals, library->name);
    int original = lua_gettop(L);
    lua_createtable(L, 0, 0);
    if (library->kept) {
        for (const char *const *field = library->kept; *field; field++) {
            lua_getfield(L, original, *field);
            lua_setfield(L, -2, *field);
        }
    } else {
        lua_pushnil(L);
        while (lua_next(L, original)) {
            lua_pushvalue(L, -2);
            lua_insert(L, -2);
            lua_rawset(L, -4);
        }
        if (library->dropped) {
            lua_pushnil(L);
            lua_setfield(L, -2, library->dropped);
        }
    }
    if (library->bounded) {
        lua_pushvalue(L, original);
        luaL_setfuncs(L, library->bounded, 1);
    }
    lua_remove(L, original);
}

/// Makes strings index the library copy at `index` (so `("").upper` finds it) and hides the
/// string metatable (`getmetatable("")` is false); why: scripts can neither reach nor change
/// what a string's methods are. Stack: [-0, +0, m]
static void clua_sandbox_index_strings(lua_State *L, int index) {
    index = lua_absindex(L, index);
    lua_pushliteral(L, "");
    lua_getmetatable(L, -1);
    lua_pushvalue(L, index);
    lua_setfield(L, -2, "__index");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    lua_pop(L, 2);
}

/// Pushes a metatable that marks a JSON kind (array or object); scripts cannot see it.
/// Stack: [-0, +1, m]
static void clua_sandbox_push_mark(lua_State *L) {
    lua_createtable(L, 0, 2);
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
}

/// Pushes the read-only `json` library and records its array and object metatables in the
/// sandbox; why: the bridge marks the tables it decodes with the same two. Stack: [-0, +1, m]
static void clua_sandbox_push_json(lua_State *L, clua_sandbox *s) {
    luaL_newlibtable(L, clua_sandbox_json);
    int json = lua_gettop(L);
    clua_sandbox_push_mark(L);  // upvalue CLUA_JSON_ARRAY_MT
    s->array_mt = lua_topointer(L, -1);
    clua_sandbox_push_mark(L);  // upvalue CLUA_JSON_OBJECT_MT
    s->object_mt = lua_topointer(L, -1);
    lua_pushvalue(L, -1);
    s->object_mt_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_pushvalue(L, -2);
    s->array_mt_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    luaL_setfuncs(L, clua_sandbox_json, 2);
    lua_pushlightuserdata(L, (void *)s);
    lua_setfield(L, json, "null");
    clua_sandbox_push_readonly(L, json);
    lua_remove(L, json);
}

/// Pushes an empty table that finds what it lacks in the table at `fallback`, behind a metatable
/// scripts can neither see nor change; why: the environment is layers (the globals of a call,
/// those of loading, the base). Stack: [-0, +1, m]
static void clua_sandbox_push_layer(lua_State *L, int fallback) {
    fallback = lua_absindex(L, fallback);
    lua_createtable(L, 0, 0);
    lua_createtable(L, 0, 2);
    lua_pushvalue(L, fallback);
    lua_setfield(L, -2, "__index");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    lua_setmetatable(L, -2);
}

/// Builds the environment scripts see; why: an allow-list, never the full standard library.
/// Runs under `lua_pcall`. Stack: [-0, +0, m]
static int clua_sandbox_setup(lua_State *L) {
    clua_sandbox *s = clua_sandbox_of(L);
    for (const luaL_Reg *library = clua_standard_libraries; library->func; library++) {
        luaL_requiref(L, library->name, library->func, 1);
        lua_pop(L, 1);
    }
    lua_pushglobaltable(L);  // the real globals, never seen by scripts
    int globals = lua_gettop(L);

    lua_createtable(L, 0, 32);  // the base every lookup falls back to
    int base = lua_gettop(L);
    for (const char *const *name = clua_base_kept; *name; name++) {
        lua_getfield(L, globals, *name);
        lua_setfield(L, base, *name);
    }
    luaL_setfuncs(L, clua_sandbox_base, 0);
    lua_pushlightuserdata(L, (void *)s);
    lua_setfield(L, base, "null");
    for (const clua_sandbox_library *library = clua_sandbox_libraries; library->name; library++) {
        clua_sandbox_push_library(L, globals, library);
        if (library->indexed_by_strings) clua_sandbox_index_strings(L, -1);
        clua_sandbox_push_readonly(L, -1);
        lua_setfield(L, base, library->name);
        lua_pop(L, 1);
    }
    clua_sandbox_push_json(L, s);
    lua_setfield(L, base, "json");
    lua_createtable(L, 0, 8);
    luaL_setfuncs(L, clua_text_functions, 0);
    lua_pushstring(L, clua_text_unicode_version);
    lua_setfield(L, -2, "unicode");
    clua_sandbox_push_readonly(L, -1);
    lua_setfield(L, base, "text");
    lua_pop(L, 1);
    clua_view_setup(L, s);
    clua_tables_setup(L, base);

    // Load-time globals sit between the per-call globals and the base.
    clua_sandbox_push_layer(L, base);
    int snapshot = lua_gettop(L);
    clua_sandbox_push_layer(L, snapshot);  // the environment, emptied before every call
    int env = lua_gettop(L);
    lua_pushvalue(L, env);
    lua_setfield(L, base, "_G");
    lua_pushvalue(L, snapshot);
    s->snapshot_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_pushvalue(L, env);
    s->env_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_createtable(L, 0, 0);
    s->loaded_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_createtable(L, 0, 0);
    s->sources_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_createtable(L, 0, 0);
    s->view_cache_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    s->cached_record = NULL;
    s->view_cache_bytes = 0;
    s->cached_serial = 0;
    lua_settop(L, 0);
    return 0;
}

/// Creates a sandboxed interpreter with a memory cap, or NULL when even that fails; its stack is
/// left empty. Stack: [-0, +0, -]
lua_State *clua_sandbox_open(size_t memory_limit) {
    clua_sandbox *s = (clua_sandbox *)calloc(1, sizeof(clua_sandbox));
    if (s == NULL) return NULL;
    s->memory_limit = memory_limit;
    lua_State *L = lua_newstate(clua_sandbox_alloc, s);
    if (L == NULL) {
        free(s);
        return NULL;
    }
    lua_atpanic(L, clua_sandbox_panic);
    lua_pushcfunction(L, clua_sandbox_setup);
    if (lua_pcall(L, 0, 0, 0) != LUA_OK) {
        lua_close(L);
        free(s);
        return NULL;
    }
    // Generational collection: nearly everything a transformer call makes (views, strings of
    // its input, its result's tables) is garbage when the call returns, and a young collection
    // frees it without walking the sandbox's libraries and modules again (measured on the
    // twitter benchmark shape: the incremental collector's steps cost more than a member table
    // each call). The memory cap holds the same: an allocation past it runs a full collection
    // before it fails.
    lua_gc(L, LUA_GCGEN, 0, 0);
    lua_sethook(L, clua_sandbox_hook, LUA_MASKCOUNT, CLUA_HOOK_STEP);
    return L;
}

/// Closes an interpreter made by `clua_sandbox_open`.
void clua_sandbox_close(lua_State *L) {
    clua_sandbox *s = clua_sandbox_of(L);
    lua_close(L);
    free(s);
}

/// Bytes the interpreter holds now; why: tests and reports show memory against the cap.
size_t clua_sandbox_memory(lua_State *L) { return clua_sandbox_of(L)->memory_used; }
