// The transformer sandbox; lua_sandbox.h says what it is for, docs/lua.md what scripts see.
//
// Stack effects are written as the Lua manual writes them, `Stack: [-o, +p, x]`: `o` values
// popped, `p` pushed, and `x` one of `-` (raises nothing), `m` (may raise a memory error), `v`
// (raises on purpose) or `e` (may raise anything: it runs a script's code). For a function
// scripts call, what it pops is its arguments and what it pushes its results.
#define _GNU_SOURCE
#include "sandbox_internal.h"

#include <math.h>
#include <pthread.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/// Nanoseconds of CLOCK_MONOTONIC; why: the deadline is checked in the hook without a syscall.
static int64_t clua_now_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

/// The sandbox of a state; why: the hook and the C functions find their limits through `ud`.
clua_sandbox *clua_sandbox_of(lua_State *L) {
    void *ud = NULL;
    lua_getallocf(L, &ud);
    return (clua_sandbox *)ud;
}

/// The capped allocator; why: a per-interpreter memory cap. Refuses growth past the cap, never a shrink.
static void *clua_sandbox_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    clua_sandbox *s = (clua_sandbox *)ud;
    size_t old = ptr ? osize : 0;
    if (nsize == 0) {
        free(ptr);
        s->memory_used -= old;
        return NULL;
    }
    if (nsize > old && s->memory_used - old + nsize > s->memory_limit) return NULL;
    void *block = realloc(ptr, nsize);
    if (block == NULL) return nsize <= old ? ptr : NULL;
    s->memory_used = s->memory_used - old + nsize;
    return block;
}

/// What a tripped limit says; why: the hook, the checkpoints and the call's outcome say it alike.
static const char *clua_sandbox_limit_message(int tripped) {
    switch (tripped) {
    case CLUA_BUDGET: return "instruction budget exhausted";
    case CLUA_DEADLINE: return "deadline passed";
    default: return "not enough memory";
    }
}

/// The count hook; why: a sticky instruction budget and deadline. Once tripped (memory too) it
/// re-arms on every instruction, so a script's `pcall` cannot swallow the error and go on.
/// Stack: [-0, +0, v]
static void clua_sandbox_hook(lua_State *L, lua_Debug *ar) {
    (void)ar;
    clua_sandbox *s = clua_sandbox_of(L);
    if (!s->tripped) {
        s->budget_left -= CLUA_HOOK_STEP;
        if (s->budget_left <= 0) {
            s->tripped = CLUA_BUDGET;
        } else if (s->deadline_ns != 0 && clua_now_ns() >= s->deadline_ns) {
            s->tripped = CLUA_DEADLINE;
        } else {
            return;
        }
        lua_sethook(L, clua_sandbox_hook, LUA_MASKCOUNT, 1);
    }
    lua_pushstring(L, clua_sandbox_limit_message(s->tripped));
    lua_error(L);
}

/// Trips `limit` and raises it (see sandbox_internal.h). Stack: [-0, +0, v]
int clua_sandbox_trip(lua_State *L, int limit) {
    clua_sandbox *s = clua_sandbox_of(L);
    if (!s->tripped) s->tripped = limit;
    lua_sethook(L, clua_sandbox_hook, LUA_MASKCOUNT, 1);
    lua_pushstring(L, clua_sandbox_limit_message(s->tripped));
    return lua_error(L);
}

/// Charges `steps` of a C loop to the budget (see sandbox_internal.h). Stack: [-0, +0, v]
void clua_sandbox_charge(lua_State *L, int64_t steps) {
    clua_sandbox *s = clua_sandbox_of(L);
    if (s->tripped) clua_sandbox_trip(L, s->tripped);
    s->budget_left -= steps;
    if (s->budget_left <= 0) clua_sandbox_trip(L, CLUA_BUDGET);
    s->unclocked += steps;
    if (s->unclocked >= CLUA_STEP_QUANTUM) {
        s->unclocked = 0;
        if (s->deadline_ns != 0 && clua_now_ns() >= s->deadline_ns) clua_sandbox_trip(L, CLUA_DEADLINE);
    }
}

/// The bytes the interpreter may still allocate under its memory cap; what the bounded library
/// sizes a result against before it allocates. Stack: [-0, +0, -]
size_t clua_sandbox_headroom(lua_State *L) {
    clua_sandbox *s = clua_sandbox_of(L);
    return s->memory_used >= s->memory_limit ? 0 : s->memory_limit - s->memory_used;
}

/// Makes a limit sticky once it has tripped: a memory error becomes `tripped` too, and the
/// hook fires on every instruction from now on; why: the protected calls scripts make (pcall,
/// xpcall) must hand a tripped limit on, not swallow it. Returns whether a limit has tripped.
static int clua_sandbox_trips(lua_State *L, int status) {
    clua_sandbox *s = clua_sandbox_of(L);
    if (!s->tripped && status == LUA_ERRMEM) s->tripped = CLUA_MEMORY;
    if (s->tripped) lua_sethook(L, clua_sandbox_hook, LUA_MASKCOUNT, 1);
    return s->tripped != 0;
}

/// Panics only on a host bug (an unprotected error); why: `lua_newstate` installs no panic handler.
/// Stack: [-0, +0, -]
static int clua_sandbox_panic(lua_State *L) {
    const char *message = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "(not a string)";
    fprintf(stderr, "mappings: unprotected Lua error (a bug in the host): %s\n", message);
    abort();
}

// MARK: Functions scripts call in place of Lua's

/// Whether a table has one of the sandbox's read-only metatables; why: `rawset` must not write
/// through. Stack: [-0, +0, m]
static int clua_sandbox_is_readonly(lua_State *L, int index) {
    if (!lua_getmetatable(L, index)) return 0;
    lua_pushliteral(L, "__readonly");
    lua_rawget(L, -2);
    int readonly = lua_toboolean(L, -1);
    lua_pop(L, 2);
    return readonly;
}

/// `setmetatable` for scripts; why: refuses `__gc` and `__close`, which run where no hook can
/// stop them. Stack: [-2, +1, v]
static int clua_sandbox_setmetatable(lua_State *L) {
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
static int clua_sandbox_rawset(lua_State *L) {
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
static int clua_sandbox_pcall(lua_State *L) {
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
static int clua_sandbox_xpcall(lua_State *L) {
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
static int clua_sandbox_readonly_error(lua_State *L) {
    return luaL_error(L, "attempt to modify a read-only table");
}

/// Moves every entry of the table at `from` into the table at `to` (or drops them if `to` is 0);
/// why: globals are cleared between calls, and load-time globals are kept apart. Stack: [-0, +0, m]
static void clua_sandbox_drain(lua_State *L, int from, int to) {
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
static int clua_sandbox_require(lua_State *L) {
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
static int clua_json_array(lua_State *L) { return clua_json_mark(L, CLUA_JSON_ARRAY_MT); }

/// `json.object(t)`: marks `t` (or a new table) as a JSON object. Stack: [-(0|1), +1, v]
static int clua_json_object(lua_State *L) { return clua_json_mark(L, CLUA_JSON_OBJECT_MT); }

/// `json.type(v)`; why: tells "array" from "object" and "integer" from "float", which `type`
/// cannot. Stack: [-1, +1, v]
static int clua_json_type(lua_State *L) {
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
    "assert", "error", "getmetatable", "ipairs", "next", "pairs", "rawequal", "rawget", "rawlen", "select",
    "tonumber", "tostring", "type", "_VERSION", NULL,
};

/// The base functions the sandbox writes itself; `null`, `json`, `_G` and the libraries are
/// filled in by `clua_sandbox_setup` (a NULL function is a placeholder, as in `lbaselib.c`).
static const luaL_Reg clua_sandbox_base[] = {
    {"setmetatable", clua_sandbox_setmetatable},
    {"rawset", clua_sandbox_rawset},
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

// MARK: Tapes

/// Reads `count` bytes of the input tape, or fails the decode; why: a host tape is checked, not trusted.
static const uint8_t *clua_tape_take(const uint8_t **cursor, const uint8_t *end, size_t count) {
    if ((size_t)(end - *cursor) < count) return NULL;
    const uint8_t *at = *cursor;
    *cursor += count;
    return at;
}

/// What `clua_tape_push` answers: the value is pushed, the tape is malformed (a host bug), or
/// the value nests deeper than CLUA_MAX_DEPTH (a payload can).
enum { CLUA_PUSH_OK = 1, CLUA_PUSH_MALFORMED = 0, CLUA_PUSH_TOO_DEEP = -1 };

/// Pushes the value a tape encodes; why: host values enter Lua under `lua_pcall`. Returns
/// CLUA_PUSH_OK, or why not, leaving what it pushed so far. Stack: [-0, +1, v]
static int clua_tape_push(lua_State *L, clua_sandbox *s, const uint8_t **cursor, const uint8_t *end, int depth) {
    if (depth > CLUA_MAX_DEPTH) return CLUA_PUSH_TOO_DEEP;
    const uint8_t *tag = clua_tape_take(cursor, end, 1);
    if (tag == NULL) return CLUA_PUSH_MALFORMED;
    switch (*tag) {
    case CLUA_TAPE_NULL: lua_pushlightuserdata(L, (void *)s); return 1;
    case CLUA_TAPE_TRUE: lua_pushboolean(L, 1); return 1;
    case CLUA_TAPE_FALSE: lua_pushboolean(L, 0); return 1;
    case CLUA_TAPE_INTEGER: {
        const uint8_t *bytes = clua_tape_take(cursor, end, 8);
        if (bytes == NULL) return 0;
        int64_t value;
        memcpy(&value, bytes, 8);
        lua_pushinteger(L, (lua_Integer)value);
        return 1;
    }
    case CLUA_TAPE_DOUBLE: {
        const uint8_t *bytes = clua_tape_take(cursor, end, 8);
        if (bytes == NULL) return 0;
        double value;
        memcpy(&value, bytes, 8);
        lua_pushnumber(L, (lua_Number)value);
        return 1;
    }
    case CLUA_TAPE_STRING: {
        const uint8_t *header = clua_tape_take(cursor, end, 4);
        if (header == NULL) return 0;
        uint32_t length;
        memcpy(&length, header, 4);
        const uint8_t *bytes = clua_tape_take(cursor, end, length);
        if (bytes == NULL) return 0;
        lua_pushlstring(L, (const char *)bytes, length);
        return 1;
    }
    case CLUA_TAPE_ARRAY:
    case CLUA_TAPE_OBJECT: {
        const uint8_t *header = clua_tape_take(cursor, end, 4);
        if (header == NULL) return 0;
        uint32_t count;
        memcpy(&count, header, 4);
        int is_array = *tag == CLUA_TAPE_ARRAY;
        if (count > (uint32_t)(end - *cursor)) return 0;
        luaL_checkstack(L, 4, "value too deep");  // the table, a key, a value, and the next level's table
        lua_createtable(L, is_array ? (int)count : 0, is_array ? 0 : (int)count);
        for (uint32_t i = 0; i < count; i++) {
            if (!is_array) {
                const uint8_t *key_header = clua_tape_take(cursor, end, 4);
                if (key_header == NULL) return 0;
                uint32_t length;
                memcpy(&length, key_header, 4);
                const uint8_t *key = clua_tape_take(cursor, end, length);
                if (key == NULL) return 0;
                lua_pushlstring(L, (const char *)key, length);
            }
            int pushed = clua_tape_push(L, s, cursor, end, depth + 1);
            if (pushed != CLUA_PUSH_OK) return pushed;
            if (is_array) lua_rawseti(L, -2, (lua_Integer)i + 1);
            else lua_rawset(L, -3);
        }
        lua_rawgeti(L, LUA_REGISTRYINDEX, is_array ? s->array_mt_ref : s->object_mt_ref);
        lua_setmetatable(L, -2);
        return 1;
    }
    default: return 0;
    }
}

/// Grows the output tape to hold `count` more bytes, within its limit; why: results are bounded.
/// Returns 0 when the limit or the memory is reached.
static int clua_tape_grow(clua_call *call, size_t count) {
    size_t limit = call->output_limit ? call->output_limit : CLUA_MAX_TAPE_BYTES;
    if (call->output_count + count > limit) return 0;
    if (call->output_count + count > call->output_capacity) {
        size_t capacity = call->output_capacity ? call->output_capacity : 256;
        while (capacity < call->output_count + count) capacity *= 2;
        uint8_t *grown = (uint8_t *)realloc(call->output, capacity);
        if (grown == NULL) return 0;
        call->output = grown;
        call->output_capacity = capacity;
    }
    return 1;
}

/// Appends bytes to the output tape, within its limit. Returns 0 when full.
static inline int clua_tape_append(clua_call *call, const void *bytes, size_t count) {
    if (call->output_capacity - call->output_count < count && !clua_tape_grow(call, count)) return 0;
    memcpy(call->output + call->output_count, bytes, count);
    call->output_count += count;
    return 1;
}

/// Appends a tag and a payload of `count` bytes in one step. Returns 0 when full.
static inline int clua_tape_append_tagged(clua_call *call, uint8_t tag, const void *payload, size_t count) {
    if (call->output_capacity - call->output_count < count + 1 && !clua_tape_grow(call, count + 1)) return 0;
    call->output[call->output_count] = tag;
    if (count) memcpy(call->output + call->output_count + 1, payload, count);
    call->output_count += count + 1;
    return 1;
}

/// A value read off the stack (or off a table while traversing it): its type and, for a
/// scalar, what the tape needs; why: an object's members are written in key order after one
/// traversal, without looking each value up again. A string's bytes stay valid while the
/// table or stack slot holding it does.
typedef struct clua_value {
    int type;
    int is_integer;
    union {
        lua_Integer integer;
        lua_Number number;
        int boolean;
        const void *pointer;
        struct {
            const char *bytes;
            size_t length;
        } string;
    } as;
} clua_value;

/// Reads the value at `index` into `value`. Stack: [-0, +0, -]
static void clua_tape_capture(lua_State *L, int index, clua_value *value) {
    value->type = lua_type(L, index);
    value->is_integer = 0;
    switch (value->type) {
    case LUA_TLIGHTUSERDATA: value->as.pointer = lua_touserdata(L, index); break;
    case LUA_TBOOLEAN: value->as.boolean = lua_toboolean(L, index); break;
    case LUA_TNUMBER:
        value->is_integer = lua_isinteger(L, index);
        if (value->is_integer) value->as.integer = lua_tointeger(L, index);
        else value->as.number = lua_tonumber(L, index);
        break;
    case LUA_TSTRING: value->as.string.bytes = lua_tolstring(L, index, &value->as.string.length); break;
    default: break;
    }
}

/// An object member found while traversing a table: its key's bytes and its value.
typedef struct clua_member {
    const char *key;
    size_t length;
    clua_value value;
} clua_member;

/// Orders keys bytewise; why: object members come back in a stable order (Lua tables have none).
static inline int clua_member_compare(const clua_member *l, const clua_member *r) {
    size_t common = l->length < r->length ? l->length : r->length;
    for (size_t i = 0; i < common; i++) {
        unsigned char a = (unsigned char)l->key[i], b = (unsigned char)r->key[i];
        if (a != b) return a < b ? -1 : 1;
    }
    return l->length < r->length ? -1 : (l->length > r->length ? 1 : 0);
}

static int clua_member_qsort_compare(const void *a, const void *b) {
    return clua_member_compare((const clua_member *)a, (const clua_member *)b);
}

/// How many members an object's traversal keeps on the C stack before it moves them to a block
/// the interpreter's allocator holds.
#define CLUA_INLINE_MEMBERS 32

/// Puts the first `count` member positions in key order into `order`: insertion sort of one-byte
/// positions for the few members of most objects (at most CLUA_INLINE_MEMBERS).
static void clua_members_order(const clua_member *members, uint8_t *order, size_t count) {
    for (size_t i = 0; i < count; i++) {
        uint8_t position = (uint8_t)i;
        size_t j = i;
        while (j > 0 && clua_member_compare(&members[order[j - 1]], &members[position]) > 0) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = position;
    }
}

/// Records why a result cannot cross; why: the message names the place in the value.
static int clua_tape_refuse(clua_call *call, const char *message) {
    snprintf(call->message, CLUA_MESSAGE_SIZE, "%s", message);
    return 0;
}

/// Records that a result holds more than CLUA_MAX_NODES values.
static int clua_tape_refuse_too_many(clua_call *call) {
    snprintf(call->message, CLUA_MESSAGE_SIZE, "the value is too large (more than %d values)", CLUA_MAX_NODES);
    return 0;
}

static int clua_tape_write_table(lua_State *L, clua_call *call, int index, const void **ancestors, int depth);

/// Writes a captured value; a table (`value->type` LUA_TTABLE) is at `index` on the stack.
/// Returns 0 with `call->message` set when it cannot. Stack: [-0, +0, v]
static int clua_tape_write_value(lua_State *L, clua_call *call, const clua_value *value, int index,
                                 const void **ancestors, int depth) {
    if (++call->nodes > CLUA_MAX_NODES) return clua_tape_refuse_too_many(call);
    switch (value->type) {
    case LUA_TNIL:
        return clua_tape_append_tagged(call, CLUA_TAPE_NULL, NULL, 0) || clua_tape_refuse(call, "the value is too large");
    case LUA_TLIGHTUSERDATA:
        if (value->as.pointer != (void *)call->sandbox) return clua_tape_refuse(call, "a userdata is not a JSON value");
        return clua_tape_append_tagged(call, CLUA_TAPE_NULL, NULL, 0) || clua_tape_refuse(call, "the value is too large");
    case LUA_TBOOLEAN:
        return clua_tape_append_tagged(call, value->as.boolean ? CLUA_TAPE_TRUE : CLUA_TAPE_FALSE, NULL, 0)
            || clua_tape_refuse(call, "the value is too large");
    case LUA_TNUMBER: {
        if (value->is_integer) {
            int64_t number = (int64_t)value->as.integer;
            return clua_tape_append_tagged(call, CLUA_TAPE_INTEGER, &number, 8)
                || clua_tape_refuse(call, "the value is too large");
        }
        double number = (double)value->as.number;
        if (isnan(number)) return clua_tape_refuse(call, "NaN is not a JSON number");
        if (isinf(number)) return clua_tape_refuse(call, "an infinite number is not a JSON number");
        return clua_tape_append_tagged(call, CLUA_TAPE_DOUBLE, &number, 8)
            || clua_tape_refuse(call, "the value is too large");
    }
    case LUA_TSTRING: {
        size_t length = value->as.string.length;
        uint32_t length32 = (uint32_t)length;
        if (length <= UINT32_MAX && clua_tape_append_tagged(call, CLUA_TAPE_STRING, &length32, 4)
            && clua_tape_append(call, value->as.string.bytes, length))
            return 1;
        snprintf(call->message, CLUA_MESSAGE_SIZE, "the value is too large (more than the result limit of %zu bytes)",
                 call->output_limit ? call->output_limit : (size_t)CLUA_MAX_TAPE_BYTES);
        return 0;
    }
    case LUA_TTABLE: return clua_tape_write_table(L, call, index, ancestors, depth);
    default: {
        char message[80];
        snprintf(message, sizeof message, "a %s is not a JSON value", lua_typename(L, value->type));
        return clua_tape_refuse(call, message);
    }
    }
}

/// Writes the value at `index` to the output tape, with raw access only: no metamethod of a
/// script's table ever runs here. Returns 0 with `call->message` set when it cannot. Stack: [-0, +0, v]
static int clua_tape_write(lua_State *L, clua_call *call, int index, const void **ancestors, int depth) {
    clua_value value;
    index = lua_absindex(L, index);
    clua_tape_capture(L, index, &value);
    return clua_tape_write_value(L, call, &value, index, ancestors, depth);
}

/// Writes the table at `index`: an array in index order, an object in key order. Scalars are
/// written from what one traversal captured; nested tables are looked up again by key.
/// Stack: [-0, +0, v]
static int clua_tape_write_table(lua_State *L, clua_call *call, int index, const void **ancestors, int depth) {
    clua_sandbox *s = call->sandbox;
    const void *self = lua_topointer(L, index);
    for (int i = 0; i < depth; i++)
        if (ancestors[i] == self) return clua_tape_refuse(call, "the value contains itself (a cycle)");
    if (depth >= CLUA_MAX_DEPTH) {
        snprintf(call->message, CLUA_MESSAGE_SIZE, "the value is nested too deeply (more than %d levels)",
                 CLUA_MAX_DEPTH);
        return 0;
    }
    ancestors[depth] = self;
    luaL_checkstack(L, 6, "value too deep");

    const void *mt = lua_getmetatable(L, index) ? lua_topointer(L, -1) : NULL;
    if (mt) lua_pop(L, 1);
    // Classify with raw traversal: how many keys, how many are the integers 1..n, how many
    // strings; while every key is a string, keep the members for writing them in key order.
    clua_member inline_members[CLUA_INLINE_MEMBERS];
    clua_member *members = inline_members;
    size_t capacity = CLUA_INLINE_MEMBERS;
    int spilled = 0;  // members live in a userdata at the top of the stack
    lua_Integer keys = 0, strings = 0, positives = 0, largest = 0;
    lua_pushnil(L);
    while (lua_next(L, index)) {
        keys++;
        if (lua_type(L, -2) == LUA_TSTRING) {
            strings++;
            if (strings == keys) {
                if ((size_t)strings > capacity) {
                    // Anchored below the key, so the collector frees it whatever happens next.
                    size_t grown = capacity * 2;
                    clua_member *block = (clua_member *)lua_newuserdatauv(L, grown * sizeof(clua_member), 0);
                    memcpy(block, members, capacity * sizeof(clua_member));
                    if (spilled) lua_replace(L, -4);
                    else lua_insert(L, -3);
                    members = block;
                    capacity = grown;
                    spilled = 1;
                }
                clua_member *member = &members[strings - 1];
                member->key = lua_tolstring(L, -2, &member->length);
                clua_tape_capture(L, -1, &member->value);
            }
        } else if (lua_isinteger(L, -2)) {
            lua_Integer k = lua_tointeger(L, -2);
            if (k >= 1) {
                positives++;
                if (k > largest) largest = k;
            }
        }
        lua_pop(L, 1);
        if (keys > CLUA_MAX_NODES) {
            lua_pop(L, 1 + spilled);
            return clua_tape_refuse_too_many(call);
        }
    }
    int is_array = 0;
    int ok = 1;
    if (mt == s->array_mt) {
        if (positives != keys || largest != keys)
            ok = clua_tape_refuse(call, "a table marked as an array has keys other than 1..n");
        is_array = 1;
    } else if (mt == s->object_mt || keys == 0) {
        if (strings != keys) ok = clua_tape_refuse(call, "a table marked as an object has keys that are not strings");
        is_array = 0;
    } else if (positives == keys && largest == keys) {
        is_array = 1;
    } else if (strings == keys) {
        is_array = 0;
    } else if (positives == keys) {
        ok = clua_tape_refuse(call, "an array with holes (keys are not 1..n)");
    } else {
        ok = clua_tape_refuse(call, "a table mixes array and object keys, or has keys that are neither");
    }
    uint32_t count = (uint32_t)keys;
    // An empty table nobody marked has no kind: the host gives it the kind the property needs.
    if (ok && keys == 0 && mt == NULL) {
        if (spilled) lua_pop(L, 1);
        if (!clua_tape_append_tagged(call, CLUA_TAPE_EMPTY, NULL, 0)) return clua_tape_refuse(call, "the value is too large");
        return 1;
    }
    if (ok && !clua_tape_append_tagged(call, is_array ? CLUA_TAPE_ARRAY : CLUA_TAPE_OBJECT, &count, 4))
        ok = clua_tape_refuse(call, "the value is too large");
    if (ok && is_array) {
        for (lua_Integer i = 1; i <= keys && ok; i++) {
            lua_rawgeti(L, index, i);
            ok = clua_tape_write(L, call, -1, ancestors, depth + 1);
            lua_pop(L, 1);
        }
    } else if (ok) {
        size_t n = (size_t)keys;
        uint8_t order[CLUA_INLINE_MEMBERS];
        if (spilled) qsort(members, n, sizeof(clua_member), clua_member_qsort_compare);
        else clua_members_order(members, order, n);
        for (size_t k = 0; k < n && ok; k++) {
            size_t i = spilled ? k : order[k];
            uint32_t length = (uint32_t)members[i].length;
            if (!clua_tape_append(call, &length, 4) || !clua_tape_append(call, members[i].key, members[i].length)) {
                ok = clua_tape_refuse(call, "the value is too large");
                break;
            }
            if (members[i].value.type != LUA_TTABLE) {
                ok = clua_tape_write_value(L, call, &members[i].value, 0, ancestors, depth + 1);
                continue;
            }
            lua_pushlstring(L, members[i].key, members[i].length);
            lua_rawget(L, index);
            ok = clua_tape_write(L, call, -1, ancestors, depth + 1);
            lua_pop(L, 1);
        }
    }
    if (spilled) lua_pop(L, 1);
    return ok;
}

// MARK: Protected operations

/// Keeps a script's message, cut to what `call->message` holds: a longer one keeps its head (up
/// to a whole UTF-8 character) and says how long it was; why: a message is read by people and
/// logged per record, and a script chooses its size.
static void clua_call_keep_message(clua_call *call, const char *message, size_t length) {
    if (length < CLUA_MESSAGE_SIZE) {
        memcpy(call->message, message, length);
        call->message[length] = 0;
        return;
    }
    size_t head = CLUA_MESSAGE_SIZE - 64;
    while (head > 0 && ((unsigned char)message[head] & 0xC0) == 0x80) head--;
    snprintf(call->message, CLUA_MESSAGE_SIZE, "%.*s… (cut: %zu bytes in all)", (int)head, message, length);
}

/// Re-arms the instruction budget, the deadline and the count hook for the next call, and
/// clears what tripped the previous one (the globals are cleared by the call itself).
/// Stack: [-0, +0, -]
static void clua_sandbox_arm(lua_State *L, int64_t budget, int64_t timeout_ns) {
    clua_sandbox *s = clua_sandbox_of(L);
    s->budget_left = budget;
    s->deadline_ns = timeout_ns > 0 ? clua_now_ns() + timeout_ns : 0;
    s->tripped = 0;
    s->unclocked = 0;
    lua_sethook(L, clua_sandbox_hook, LUA_MASKCOUNT, CLUA_HOOK_STEP);
}

/// Registers a script's text under its module name; runs under `lua_pcall`, with the call (a
/// light userdata) as its argument. Stack: [-1, +0, m]
int clua_sandbox_add_source_protected(lua_State *L) {
    clua_call *call = (clua_call *)lua_touserdata(L, 1);
    clua_sandbox *s = call->sandbox;
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->sources_ref);
    lua_createtable(L, 2, 0);
    lua_pushlstring(L, (const char *)call->input, call->input_count);
    lua_rawseti(L, -2, 1);
    lua_pushstring(L, call->function);
    lua_rawseti(L, -2, 2);
    lua_setfield(L, -2, call->module);
    return 0;
}

/// Loads a module and finds one of its functions: a registry reference in `call->function_ref`,
/// or CLUA_RESOLVE_NOT_A_TABLE or CLUA_RESOLVE_MISSING_FUNCTION; runs under `lua_pcall`, with the
/// call (a light userdata) as its argument. Stack: [-1, +0, e]
int clua_sandbox_resolve_protected(lua_State *L) {
    clua_call *call = (clua_call *)lua_touserdata(L, 1);
    lua_settop(L, 0);
    lua_pushcfunction(L, clua_sandbox_require);
    lua_pushstring(L, call->module);
    lua_call(L, 1, 1);
    int module = lua_gettop(L);
    if (lua_type(L, module) != LUA_TTABLE) {
        call->function_ref = CLUA_RESOLVE_NOT_A_TABLE;
        snprintf(call->source, sizeof call->source, "%s", luaL_typename(L, module));
        return 0;
    }
    lua_pushstring(L, call->function);
    if (lua_rawget(L, module) != LUA_TFUNCTION) {
        call->function_ref = CLUA_RESOLVE_MISSING_FUNCTION;
        return 0;
    }
    lua_Debug info;
    lua_pushvalue(L, -1);
    lua_getinfo(L, ">S", &info);
    call->line_defined = info.linedefined;
    snprintf(call->source, sizeof call->source, "%s", info.short_src);
    call->function_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    return 0;
}

/// Lists the function names a module returns, newline-separated, into `call->output`; why:
/// suggestions. Runs under `lua_pcall`, with the call (a light userdata) as its argument.
/// Stack: [-1, +0, e]
int clua_sandbox_functions_protected(lua_State *L) {
    clua_call *call = (clua_call *)lua_touserdata(L, 1);
    lua_settop(L, 0);
    lua_pushcfunction(L, clua_sandbox_require);
    lua_pushstring(L, call->module);
    lua_call(L, 1, 1);
    int module = lua_gettop(L);
    if (lua_type(L, module) != LUA_TTABLE) return 0;
    lua_pushnil(L);
    while (lua_next(L, module)) {
        if (lua_type(L, -2) == LUA_TSTRING && lua_type(L, -1) == LUA_TFUNCTION) {
            size_t length = 0;
            const char *name = lua_tolstring(L, -2, &length);
            clua_tape_append(call, name, length);
            clua_tape_append(call, "\n", 1);
        }
        lua_pop(L, 1);
    }
    return 0;
}

/// Marks a call whose input could not be given to the script, and says why in its message; why:
/// no issue may have an empty reason.
static void clua_sandbox_refuse_input(clua_call *call, int pushed, const char *what) {
    call->status = CLUA_BAD_INPUT;
    if (pushed == CLUA_PUSH_TOO_DEEP)
        snprintf(call->message, sizeof call->message,
                 "the %s nests deeper than %d levels, more than a script is given", what, CLUA_MAX_DEPTH);
    else
        snprintf(call->message, sizeof call->message, "the host's encoding of the %s is malformed (a bug)", what);
}

/// One transformer call: decode the input and user data, call, encode. Runs under `lua_pcall`,
/// with the call (a light userdata) as its argument. Stack: [-1, +0, e]
int clua_sandbox_call_protected(lua_State *L) {
    clua_call *call = (clua_call *)lua_touserdata(L, 1);
    clua_sandbox *s = call->sandbox;
    lua_settop(L, 0);
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->env_ref);
    clua_sandbox_drain(L, -1, 0);
    lua_pop(L, 1);
    lua_rawgeti(L, LUA_REGISTRYINDEX, call->function_ref);
    const uint8_t *cursor = call->input;
    int pushed = clua_tape_push(L, s, &cursor, call->input + call->input_count, 0);
    if (pushed != CLUA_PUSH_OK || cursor != call->input + call->input_count) {
        clua_sandbox_refuse_input(call, pushed, "value");
        return 0;
    }
    if (call->user_data) {
        cursor = call->user_data;
        pushed = clua_tape_push(L, s, &cursor, call->user_data + call->user_data_count, 0);
        if (pushed != CLUA_PUSH_OK) {
            clua_sandbox_refuse_input(call, pushed, "user data");
            return 0;
        }
    } else {
        lua_pushnil(L);
    }
    call->status = CLUA_FAILED;  // until the function returns
    lua_call(L, 2, 2);
    int result = lua_gettop(L) - 1, refusal = lua_gettop(L);
    // `nil, message` refuses the value; a second value that is no message is a refusal too.
    if (lua_isnil(L, result) && !lua_isnil(L, refusal)) {
        int kind = lua_type(L, refusal);
        if (kind == LUA_TSTRING || kind == LUA_TNUMBER) {
            size_t length = 0;
            const char *message = lua_tolstring(L, refusal, &length);
            clua_call_keep_message(call, message, length);
        } else {
            snprintf(call->message, CLUA_MESSAGE_SIZE, "refused without a message (its second value is a %s, not a string)",
                     kind == LUA_TLIGHTUSERDATA ? "json.null" : luaL_typename(L, refusal));
        }
        return 0;
    }
    const void *ancestors[CLUA_MAX_DEPTH];
    call->nodes = 0;
    call->output_count = 0;
    if (!clua_tape_write(L, call, result, ancestors, 0)) {
        call->status = CLUA_BAD_RESULT;
        return 0;
    }
    call->status = CLUA_OK;
    return 0;
}

/// Runs `operation` under `lua_pcall` with the budget armed and turns the outcome into a status,
/// with the message in `call->message`; why: the one place a Lua error becomes a host value.
/// Stack: [-0, +0, -]
int clua_sandbox_run(lua_State *L, lua_CFunction operation, clua_call *call, int64_t budget,
                                   int64_t timeout_ns) {
    clua_sandbox *s = clua_sandbox_of(L);
    call->sandbox = s;
    call->status = CLUA_OK;
    call->message[0] = 0;
    int top = lua_gettop(L);
    clua_sandbox_arm(L, budget, timeout_ns);
    lua_pushcfunction(L, operation);
    lua_pushlightuserdata(L, call);
    s->call = call;
    int status = lua_pcall(L, 1, 0, 0);
    s->call = NULL;
    int tripped = s->tripped;
    // A result that comes back after the deadline is refused too: the call ran past it.
    if (!tripped && s->deadline_ns != 0 && clua_now_ns() >= s->deadline_ns) tripped = CLUA_DEADLINE;
    lua_sethook(L, clua_sandbox_hook, LUA_MASKCOUNT, CLUA_HOOK_STEP);
    s->tripped = 0;
    // A limit that tripped during the call decides its outcome, whatever the script did after.
    if (status == LUA_OK && !tripped) {
        lua_settop(L, top);
        return call->status;
    }
    if (tripped == CLUA_BUDGET || tripped == CLUA_DEADLINE) {
        call->status = tripped;
        snprintf(call->message, CLUA_MESSAGE_SIZE, "%s", clua_sandbox_limit_message(tripped));
    } else if (tripped == CLUA_MEMORY || status == LUA_ERRMEM) {
        call->status = CLUA_MEMORY;
        snprintf(call->message, CLUA_MESSAGE_SIZE, "not enough memory (the interpreter's limit is %zu bytes)",
                 s->memory_limit);
    } else {
        call->status = CLUA_FAILED;
        if (status == LUA_ERRERR) {
            snprintf(call->message, CLUA_MESSAGE_SIZE, "error in error handling");
        } else if (lua_type(L, -1) == LUA_TSTRING) {
            size_t length = 0;
            const char *message = lua_tolstring(L, -1, &length);
            clua_call_keep_message(call, message, length);
        } else if (lua_type(L, -1) == LUA_TNIL) {
            snprintf(call->message, CLUA_MESSAGE_SIZE, "error called with nil");
        } else {
            snprintf(call->message, CLUA_MESSAGE_SIZE, "(error object is a %s value)", luaL_typename(L, -1));
        }
    }
    lua_settop(L, top);
    return call->status;
}

/// Frees a call's output tape and log lines.
void clua_call_release(clua_call *call) {
    free(call->output);
    call->output = NULL;
    call->output_count = call->output_capacity = 0;
    free(call->log);
    call->log = NULL;
    call->log_count = 0;
}

/// The output block a reused call keeps between calls; a larger one is freed.
#define CLUA_KEPT_OUTPUT_CAPACITY (64u << 10)

/// Readies a call for the next operation: frees its log lines, keeps its output block (when
/// small), clears its inputs; why: an interpreter reuses one call for every transformer call.
void clua_call_reuse(clua_call *call) {
    if (call->output_capacity > CLUA_KEPT_OUTPUT_CAPACITY) {
        free(call->output);
        call->output = NULL;
        call->output_capacity = 0;
    }
    call->output_count = 0;
    free(call->log);
    call->log = NULL;
    call->log_count = 0;
    call->log_kept = call->log_dropped = 0;
    call->input = call->user_data = NULL;
    call->input_count = call->user_data_count = 0;
    call->module = call->function = NULL;
    call->nodes = 0;
}

/// Bytes of stack left below the current frame on this thread; why: Lua's C recursion needs
/// about 512 KiB, and a host may call from a thread with less.
size_t clua_stack_remaining(void) {
    static _Thread_local uintptr_t low = 0;
    if (low == 0) {
#if defined(__APPLE__)
        // Darwin gives the top of the stack (it grows down) and its size.
        pthread_t self = pthread_self();
        uintptr_t top = (uintptr_t)pthread_get_stackaddr_np(self);
        size_t size = pthread_get_stacksize_np(self);
        low = top > size ? top - size : 1;
#else
        pthread_attr_t attributes;
        void *address = NULL;
        size_t size = 0;
        if (pthread_getattr_np(pthread_self(), &attributes) == 0) {
            pthread_attr_getstack(&attributes, &address, &size);
            pthread_attr_destroy(&attributes);
        }
        low = address ? (uintptr_t)address : 1;
#endif
    }
    char here = 0;
    uintptr_t at = (uintptr_t)&here;
    return at > low ? (size_t)(at - low) : 0;
}


/// A connected pair of Unix sockets whose ends close on exec; why: a worker process started by
/// another thread must not inherit them, and the host writes with MSG_NOSIGNAL, so a worker
/// that died is an error to handle, never a SIGPIPE that ends the host.
int clua_worker_channel(int descriptors[2]) {
    return socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, descriptors);
}
