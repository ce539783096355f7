// The `tables` library: the lookup tables of `@tables`, read-only, loaded once per interpreter.
// Stack effects are written as sandbox.c says.
//
// `tables.<name>` is a handle (a full userdata): `handle[key]` is the row of that key or nil,
// `handle:get(key)` the same (for a key named "get" or "find"), `handle:find{column = value, …}`
// the first row, in the file's order, whose cells equal those values, and `#handle` the number
// of rows. A row is a full userdata too: `row.column` reads a cell (nil when the cell is empty),
// and `pairs(row)` its columns that have a cell (a nested value's `pairs` works too).
// Rows and their cells are built once, when the host adds the table; a lookup hashes its key
// and returns the row it finds, copying nothing. Nothing of a table can be written: userdata take
// no fields, their metatables are hidden, and a nested value (JSON lines) is behind a read-only
// proxy. A lookup costs CLUA_TABLE_LOOKUP_COST steps of the instruction budget; `find` one step
// more per row and column compared.
#include "sandbox_internal.h"

#include <string.h>

/// Registry keys (their addresses): the tables by name, and the metatables of handles, rows
/// and read-only nested values.
static const char clua_tables_store = 0;
static const char clua_tables_handle_mt = 0;
static const char clua_tables_row_mt = 0;
static const char clua_tables_frozen_mt = 0;

/// `__newindex` of everything the library hands out. Stack: [-3, +0, v]
static int clua_tables_readonly(lua_State *L) {
    return luaL_error(L, "attempt to modify a lookup table (tables are read-only)");
}

/// Pushes the key text of the value at `index` as the host indexes rows (a string as it is, an
/// integer, or a float with an integer value, as its digits, a boolean as true or false, an array of
/// those — a table or a view — for a composite key, its parts apart by U+001F); returns 0, pushing nothing, for a value
/// that is no key. Stack: [-0, +(0|1), m]
static int clua_tables_push_key(lua_State *L, int index) {
    index = lua_absindex(L, index);
    switch (lua_type(L, index)) {
    case LUA_TSTRING:
        lua_pushvalue(L, index);
        return 1;
    case LUA_TNUMBER: {
        lua_Integer integer;
        if (lua_isinteger(L, index)) integer = lua_tointeger(L, index);
        else if (!lua_numbertointeger(lua_tonumber(L, index), &integer)) {
            lua_pushstring(L, lua_tostring(L, index));
            return 1;
        }
        lua_pushfstring(L, "%I", (LUA_INTEGER)integer);
        return 1;
    }
    case LUA_TBOOLEAN:
        lua_pushstring(L, lua_toboolean(L, index) ? "true" : "false");
        return 1;
    case LUA_TTABLE:
    case LUA_TUSERDATA: {
        // An array: a table, or a view of the record's (read through its metamethods).
        if (lua_type(L, index) == LUA_TUSERDATA && !clua_view_is(L, index)) return 0;
        lua_Integer count = luaL_len(L, index);
        if (count < 1 || count > 64) return 0;
        clua_sandbox_charge(L, count);
        luaL_Buffer buffer;
        luaL_buffinit(L, &buffer);
        for (lua_Integer part = 1; part <= count; part++) {
            int kind = lua_geti(L, index, part);  // a part is a scalar: no array nests in a key
            if ((kind != LUA_TSTRING && kind != LUA_TNUMBER && kind != LUA_TBOOLEAN) || !clua_tables_push_key(L, -1)) {
                lua_pop(L, 1);
                return 0;  // the buffer's box goes with the call
            }
            lua_remove(L, -2);
            if (part > 1) luaL_addchar(&buffer, '\x1f');
            luaL_addvalue(&buffer);
        }
        luaL_pushresult(&buffer);
        return 1;
    }
    default:
        return 0;
    }
}

/// Pushes the row of the key at `key` in the handle at `handle`, or nil. Stack: [-0, +1, m]
static void clua_tables_push_row(lua_State *L, int handle, int key) {
    key = lua_absindex(L, key);
    lua_getiuservalue(L, handle, 1);  // rows by key text
    if (!clua_tables_push_key(L, key)) {
        lua_pop(L, 1);
        lua_pushnil(L);
        return;
    }
    lua_rawget(L, -2);
    lua_remove(L, -2);
}

/// Whether the value at `index` is a userdata whose metatable is the one kept under `key`
/// (a handle's, a row's). Stack: [-0, +0, -]
static int clua_tables_is(lua_State *L, int index, const void *key) {
    if (lua_type(L, index) != LUA_TUSERDATA || !lua_getmetatable(L, index)) return 0;
    lua_rawgetp(L, LUA_REGISTRYINDEX, key);
    int same = lua_rawequal(L, -1, -2);
    lua_pop(L, 2);
    return same;
}

/// `handle:get(key)`: the row of `key`, or nil. Stack: [-2, +1, m]
static int clua_tables_method_get(lua_State *L) {
    if (!clua_tables_is(L, 1, &clua_tables_handle_mt)) return luaL_error(L, "get is called on a table: tables.name:get(key)");
    clua_sandbox_charge(L, CLUA_TABLE_LOOKUP_COST);
    clua_tables_push_row(L, 1, 2);
    return 1;
}

/// `handle:find{column = value, …}`: the first row, in the file's order, whose cells equal every
/// value given, or nil. Stack: [-2, +1, m]
static int clua_tables_method_find(lua_State *L) {
    if (!clua_tables_is(L, 1, &clua_tables_handle_mt)) return luaL_error(L, "find is called on a table: tables.name:find{column = value}");
    if (lua_type(L, 2) != LUA_TTABLE) return luaL_error(L, "find takes a table of column = value");
    lua_settop(L, 2);
    lua_getiuservalue(L, 1, 2);  // 3: rows in order
    lua_Integer count = (lua_Integer)lua_rawlen(L, 3);
    clua_sandbox_charge(L, CLUA_TABLE_LOOKUP_COST);
    for (lua_Integer index = 1; index <= count; index++) {
        lua_rawgeti(L, 3, index);     // 4: the row
        lua_getiuservalue(L, 4, 1);   // 5: its cells
        int matches = 1;
        lua_pushnil(L);
        while (lua_next(L, 2)) {
            clua_sandbox_charge(L, 1);
            lua_pushvalue(L, -2);
            lua_rawget(L, 5);
            int equal = lua_rawequal(L, -1, -2);
            lua_pop(L, 2);
            if (!equal) {
                lua_pop(L, 1);
                matches = 0;
                break;
            }
        }
        lua_pop(L, 1);  // the cells
        if (matches) return 1;
        lua_pop(L, 1);  // the row
    }
    lua_pushnil(L);
    return 1;
}

/// `handle[key]`: `get` and `find`, else the row of `key` or nil. Stack: [-2, +1, m]
static int clua_tables_handle_index(lua_State *L) {
    if (lua_type(L, 2) == LUA_TSTRING) {
        const char *name = lua_tostring(L, 2);
        if (strcmp(name, "get") == 0) {
            lua_pushcfunction(L, clua_tables_method_get);
            return 1;
        }
        if (strcmp(name, "find") == 0) {
            lua_pushcfunction(L, clua_tables_method_find);
            return 1;
        }
    }
    clua_sandbox_charge(L, CLUA_TABLE_LOOKUP_COST);
    clua_tables_push_row(L, 1, 2);
    return 1;
}

/// `#handle`: how many rows. Stack: [-1, +1, -]
static int clua_tables_handle_len(lua_State *L) {
    lua_getiuservalue(L, 1, 2);
    lua_pushinteger(L, (lua_Integer)lua_rawlen(L, -1));
    return 1;
}

/// `row.column`: the cell, or nil. Stack: [-2, +1, -]
static int clua_tables_row_index(lua_State *L) {
    lua_getiuservalue(L, 1, 1);
    lua_pushvalue(L, 2);
    lua_rawget(L, -2);
    return 1;
}

/// Pushes the value behind the read-only proxy at `index`, or returns 0 (pushing nothing) when
/// it is no proxy. Stack: [-0, +(0|1), -]
static int clua_tables_push_frozen(lua_State *L, int index) {
    if (lua_type(L, index) != LUA_TTABLE || !lua_getmetatable(L, index)) return 0;
    lua_pushliteral(L, "__readonly");
    int readonly = lua_rawget(L, -2) == LUA_TBOOLEAN && lua_toboolean(L, -1);
    lua_pop(L, 1);
    lua_pushliteral(L, "__index");
    if (!readonly || lua_rawget(L, -2) != LUA_TTABLE) {
        lua_pop(L, 2);
        return 0;
    }
    lua_remove(L, -2);
    return 1;
}

/// The iterator `pairs` returns for a row or a nested value: the key after the one at 2 and its
/// value (a row's column and cell; a nested value behind its own proxy), or nil at the end. Its
/// state is the row or the proxy itself, so what they hold never reaches the script.
/// Stack: [-2, +(1|2), e]
static int clua_tables_next(lua_State *L) {
    lua_settop(L, 2);
    if (clua_tables_is(L, 1, &clua_tables_row_mt)) {
        lua_getiuservalue(L, 1, 1);  // 3: the cells
    } else if (!clua_tables_push_frozen(L, 1)) {
        return luaL_error(L, "the iterator of pairs(row) is called with its row");
    }
    lua_pushvalue(L, 2);
    if (lua_next(L, 3)) return 2;
    lua_pushnil(L);
    return 1;
}

/// `pairs(row)` and `pairs(value)` of a nested value: its columns (keys) and cells (values),
/// read-only. Stack: [-1, +3, -]
static int clua_tables_pairs(lua_State *L) {
    lua_pushcfunction(L, clua_tables_next);
    lua_pushvalue(L, 1);
    lua_pushnil(L);
    return 3;
}

/// `#value` of a nested value behind its proxy. Stack: [-1, +1, -]
static int clua_tables_frozen_len(lua_State *L) {
    lua_getmetatable(L, 1);
    lua_getfield(L, -1, "__index");
    lua_pushinteger(L, (lua_Integer)lua_rawlen(L, -1));
    return 1;
}

static const luaL_Reg clua_tables_handle_methods[] = {
    {"__index", clua_tables_handle_index},
    {"__newindex", clua_tables_readonly},
    {"__len", clua_tables_handle_len},
    {NULL, NULL},
};

static const luaL_Reg clua_tables_row_methods[] = {
    {"__index", clua_tables_row_index},
    {"__newindex", clua_tables_readonly},
    {"__pairs", clua_tables_pairs},
    {NULL, NULL},
};

/// Pushes a metatable of `methods`, hidden from scripts, and keeps it in the registry under
/// `key`. Stack: [-0, +0, m]
static void clua_tables_make_metatable(lua_State *L, const void *key, const luaL_Reg *methods) {
    lua_createtable(L, 0, 4);
    luaL_setfuncs(L, methods, 0);
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    lua_rawsetp(L, LUA_REGISTRYINDEX, key);
}

/// Sets `tables` in the table at `base` (the environment's base) and makes the library's
/// metatables; why: `environment.c` builds the environment, this file what `tables` is.
/// Stack: [-0, +0, m]
void clua_tables_setup(lua_State *L, int base) {
    base = lua_absindex(L, base);
    lua_createtable(L, 0, 0);  // the handles by name
    lua_pushvalue(L, -1);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &clua_tables_store);
    lua_createtable(L, 0, 0);  // `tables`: an empty proxy of the handles
    lua_createtable(L, 0, 4);
    lua_pushvalue(L, -3);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, clua_tables_readonly);
    lua_setfield(L, -2, "__newindex");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    lua_pushboolean(L, 1);
    lua_setfield(L, -2, "__readonly");
    lua_setmetatable(L, -2);
    lua_setfield(L, base, "tables");
    lua_pop(L, 1);
    clua_tables_make_metatable(L, &clua_tables_handle_mt, clua_tables_handle_methods);
    clua_tables_make_metatable(L, &clua_tables_row_mt, clua_tables_row_methods);
    lua_createtable(L, 0, 4);
    lua_pushcfunction(L, clua_tables_readonly);
    lua_setfield(L, -2, "__newindex");
    lua_pushcfunction(L, clua_tables_frozen_len);
    lua_setfield(L, -2, "__len");
    lua_pushcfunction(L, clua_tables_pairs);
    lua_setfield(L, -2, "__pairs");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    lua_pushboolean(L, 1);
    lua_setfield(L, -2, "__readonly");
    lua_rawsetp(L, LUA_REGISTRYINDEX, &clua_tables_frozen_mt);
}

/// Replaces the table at `index` by a read-only proxy of it, its nested tables first; why: a
/// nested cell is shared by every call, so no call may change it. Stack: [-0, +0, m]
static void clua_tables_freeze(lua_State *L, int index, int depth) {
    index = lua_absindex(L, index);
    if (depth < CLUA_MAX_DEPTH) {
        lua_pushnil(L);
        while (lua_next(L, index)) {
            if (lua_type(L, -1) == LUA_TTABLE) {
                clua_tables_freeze(L, -1, depth + 1);
                lua_pushvalue(L, -2);
                lua_insert(L, -2);
                lua_rawset(L, index);
            } else {
                lua_pop(L, 1);
            }
        }
    }
    lua_createtable(L, 0, 0);
    lua_createtable(L, 0, 5);  // a metatable per value: its `__index` is that value
    lua_rawgetp(L, LUA_REGISTRYINDEX, &clua_tables_frozen_mt);
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        lua_pushvalue(L, -2);
        lua_insert(L, -2);
        lua_rawset(L, -5);
    }
    lua_pop(L, 1);
    lua_pushvalue(L, index);
    lua_setfield(L, -2, "__index");
    lua_setmetatable(L, -2);
    lua_replace(L, index);
}

/// Adds the table `call->module` from `call->input`, the wire of an array of [key text, row
/// object] pairs in the file's order, replacing one of that name; its memory is added to the
/// interpreter's cap rather than taken from the scripts'. Runs under `lua_pcall`, with the call
/// (a light userdata) as its argument. Stack: [-1, +0, m]
int clua_tables_add_protected(lua_State *L) {
    clua_call *call = (clua_call *)lua_touserdata(L, 1);
    clua_sandbox *s = call->sandbox;
    size_t cap = s->memory_limit, before = s->memory_used;
    s->memory_limit = (size_t)-1;
    const uint8_t *cursor = call->input;
    if (clua_wire_push(L, s, &cursor, call->input + call->input_count, 0) != CLUA_PUSH_OK ||
        cursor != call->input + call->input_count || lua_type(L, -1) != LUA_TTABLE) {
        s->memory_limit = cap;
        return luaL_error(L, "the wire of the table %s is malformed", call->module);
    }
    int pairs = lua_gettop(L);
    lua_Integer count = (lua_Integer)lua_rawlen(L, pairs);
    lua_newuserdatauv(L, 0, 2);  // the handle
    int handle = lua_gettop(L);
    lua_rawgetp(L, LUA_REGISTRYINDEX, &clua_tables_handle_mt);
    lua_setmetatable(L, handle);
    lua_createtable(L, 0, (int)(count > 0x3fffffff ? 0x3fffffff : count));  // rows by key
    int by_key = lua_gettop(L);
    lua_createtable(L, (int)(count > 0x3fffffff ? 0x3fffffff : count), 0);  // rows in order
    int in_order = lua_gettop(L);
    for (lua_Integer index = 1; index <= count; index++) {
        lua_rawgeti(L, pairs, index);
        int pair = lua_gettop(L);
        lua_rawgeti(L, pair, 1);  // the key text
        lua_newuserdatauv(L, 0, 1);
        lua_rawgetp(L, LUA_REGISTRYINDEX, &clua_tables_row_mt);
        lua_setmetatable(L, -2);
        lua_rawgeti(L, pair, 2);  // the cells
        int cells = lua_gettop(L);
        lua_pushnil(L);
        while (lua_next(L, cells)) {
            if (lua_type(L, -1) == LUA_TTABLE) {
                clua_tables_freeze(L, -1, 0);
                lua_pushvalue(L, -2);
                lua_insert(L, -2);
                lua_rawset(L, cells);
            } else {
                lua_pop(L, 1);
            }
        }
        lua_pushnil(L);  // drops the JSON object mark
        lua_setmetatable(L, cells);
        lua_setiuservalue(L, -2, 1);
        lua_pushvalue(L, -1);
        lua_rawseti(L, in_order, index);
        lua_rawset(L, by_key);
        lua_settop(L, in_order);
    }
    lua_setiuservalue(L, handle, 2);
    lua_setiuservalue(L, handle, 1);
    lua_rawgetp(L, LUA_REGISTRYINDEX, &clua_tables_store);
    lua_pushvalue(L, handle);
    lua_setfield(L, -2, call->module);
    lua_settop(L, 0);
    lua_gc(L, LUA_GCCOLLECT);
    s->memory_limit = cap + (s->memory_used > before ? s->memory_used - before : 0);
    return 0;
}
