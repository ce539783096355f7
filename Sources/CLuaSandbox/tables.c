// The `tables` library: the lookup tables of `@tables`, read-only, loaded once per interpreter.
// Stack effects are written as sandbox.c says.
//
// `tables.<name>` is a handle: `handle[key]` is the row of that key or nil, `handle:get(key)`
// the same (for a key named "get" or "find"), `handle:find{column = value, …}` the first row, in
// the file's order, whose cells equal those values, and `#handle` the number of rows. A row reads
// by column: `row.column` is a cell (nil when the cell is empty), `pairs(row)` its columns that
// have a cell (a nested value's `pairs` works too).
//
// Why handles and rows are empty tables behind metatables whose `__index` is a table (the rows by
// key, a row's cells): the VM then finds a row and a cell as it indexes any table, with no call
// into C, so a lookup costs what indexing a Lua table of the same rows costs plus one step through
// each metatable. Rows are also kept under their key's other spellings (the integer 7 for "7",
// the boolean true for "true"); a key the rows-by-key table does not have (a composite key, a
// float, a key no row has) reaches `clua_tables_miss`, which finds its key text and costs
// CLUA_TABLE_LOOKUP_COST steps of the instruction budget, as `get` does; `find` costs one step
// more per row and column compared. Rows and cells are built once, when the host adds the
// table; nothing is copied per lookup. Nothing of a table can be written: the proxies are empty
// and take no fields (`__newindex` raises; `rawset` refuses them), their metatables are hidden,
// and a nested value (JSON lines) is behind a read-only proxy of its own.
#include "sandbox_internal.h"

#include <string.h>

/// Registry keys (their addresses): the tables by name, the metatable of the rows-by-key
/// tables (their `__index` for keys they do not hold), and the fields of a read-only nested
/// value's metatable; and keys of a handle's metatable (never reachable by scripts): its rows in
/// the file's order, and the rows whose key text is a method's name.
static const char clua_tables_store = 0;
static const char clua_tables_miss_mt = 0;
static const char clua_tables_frozen_mt = 0;
static const char clua_tables_in_order = 0;
static const char clua_tables_shadowed = 0;

/// `__newindex` of everything the library hands out. Stack: [-3, +0, v]
int clua_tables_readonly(lua_State *L) {
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
        lua_Number number = lua_tonumber(L, index);
        if (lua_isinteger(L, index)) integer = lua_tointeger(L, index);
        else if (!lua_numbertointeger(number, &integer) || (lua_Number)integer != number) {
            // A fraction (lua_numbertointeger checks the range only), an infinity, NaN: Lua's text.
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

/// Pushes the field under the registry-style key `key` of the metatable of the handle at
/// `index` (its rows in order, its shadowed rows), or returns 0, pushing nothing, when the
/// value is no handle. Stack: [-0, +(0|1), -]
static int clua_tables_handle_part(lua_State *L, int index, const void *key) {
    if (lua_type(L, index) != LUA_TTABLE || !lua_getmetatable(L, index)) return 0;
    if (lua_rawgetp(L, -1, key) != LUA_TTABLE) {
        lua_pop(L, 2);
        return 0;
    }
    lua_remove(L, -2);
    return 1;
}

/// Whether a key text is spelled as one of a handle's methods (`get`, `find`).
static int clua_tables_is_method(const char *text, size_t length) {
    return (length == 3 && memcmp(text, "get", 3) == 0) || (length == 4 && memcmp(text, "find", 4) == 0);
}

/// Pushes the row whose key text is the string at `text` in the handle at `handle`, or nil: a
/// key spelled as a method is among the shadowed rows. Stack: [-0, +1, -]
static void clua_tables_push_row_of_text(lua_State *L, int handle, int text) {
    text = lua_absindex(L, text);
    size_t length = 0;
    const char *name = lua_tolstring(L, text, &length);
    if (clua_tables_is_method(name, length)) {
        clua_tables_handle_part(L, handle, &clua_tables_shadowed);
    } else {
        lua_getmetatable(L, handle);
        lua_getfield(L, -1, "__index");  // the rows by key (raw: the metatable has no metatable)
        lua_remove(L, -2);
    }
    lua_pushvalue(L, text);
    lua_rawget(L, -2);
    lua_remove(L, -2);
}

/// `handle:get(key)`: the row of `key`, or nil. Stack: [-2, +1, m]
static int clua_tables_method_get(lua_State *L) {
    if (!clua_tables_handle_part(L, 1, &clua_tables_in_order))
        return luaL_error(L, "get is called on a table: tables.name:get(key)");
    clua_sandbox_charge(L, CLUA_TABLE_LOOKUP_COST);
    if (!clua_tables_push_key(L, 2)) {
        lua_pushnil(L);
        return 1;
    }
    clua_tables_push_row_of_text(L, 1, -1);
    return 1;
}

/// Pushes the table behind the read-only proxy at `index` that is a lookup table's row or a
/// nested value of one (its cells, the value) and returns 1; returns -1, pushing nothing, for
/// a proxy of the library's that stands for no value (`tables`, a handle); 0 for any other
/// value. Stack: [-0, +(0|1), -]
int clua_tables_push_behind(lua_State *L, int index) {
    if (lua_type(L, index) != LUA_TTABLE || !lua_getmetatable(L, index)) return 0;
    int mt = lua_gettop(L);
    lua_pushliteral(L, "__newindex");
    int ours = lua_rawget(L, mt) == LUA_TFUNCTION && lua_tocfunction(L, -1) == clua_tables_readonly;
    lua_pushliteral(L, "__pairs");
    int value = lua_rawget(L, mt) == LUA_TFUNCTION && lua_tocfunction(L, -1) == clua_tables_pairs;
    lua_pushliteral(L, "__index");
    if (!ours || !value || lua_rawget(L, mt) != LUA_TTABLE) {
        lua_settop(L, mt - 1);
        return ours ? -1 : 0;
    }
    lua_replace(L, mt);
    lua_settop(L, mt);
    return 1;
}

/// `handle:find{column = value, …}`: the first row, in the file's order, whose cells equal every
/// value given, or nil. Stack: [-2, +1, m]
static int clua_tables_method_find(lua_State *L) {
    if (lua_type(L, 2) != LUA_TTABLE) return luaL_error(L, "find takes a table of column = value");
    lua_settop(L, 2);
    if (!clua_tables_handle_part(L, 1, &clua_tables_in_order))  // 3: rows in order
        return luaL_error(L, "find is called on a table: tables.name:find{column = value}");
    lua_Integer count = (lua_Integer)lua_rawlen(L, 3);
    clua_sandbox_charge(L, CLUA_TABLE_LOOKUP_COST);
    for (lua_Integer index = 1; index <= count; index++) {
        lua_rawgeti(L, 3, index);         // 4: the row
        clua_tables_push_behind(L, 4);  // 5: its cells
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

/// `__index` of a rows-by-key table, for a key it does not hold: the row of the key's text (a
/// composite key, a float) or nil, for CLUA_TABLE_LOOKUP_COST steps. Stack: [-2, +1, m]
static int clua_tables_miss(lua_State *L) {
    clua_sandbox_charge(L, CLUA_TABLE_LOOKUP_COST);
    if (lua_type(L, 2) == LUA_TSTRING || !clua_tables_push_key(L, 2)) {
        lua_pushnil(L);  // a string is its own text: no row has it
        return 1;
    }
    lua_rawget(L, 1);
    return 1;
}

/// `#handle`: how many rows. Stack: [-1, +1, -]
static int clua_tables_handle_len(lua_State *L) {
    clua_tables_handle_part(L, 1, &clua_tables_in_order);
    lua_pushinteger(L, (lua_Integer)lua_rawlen(L, -1));
    return 1;
}

/// The iterator `pairs` returns for a row or a nested value: the key after the one at 2 and its
/// value (a row's column and cell; a nested value behind its own proxy), or nil at the end. Its
/// state is the row or the proxy itself, so what they hold never reaches the script.
/// Stack: [-2, +(1|2), e]
static int clua_tables_next(lua_State *L) {
    lua_settop(L, 2);
    if (clua_tables_push_behind(L, 1) != 1) return luaL_error(L, "the iterator of pairs(row) is called with its row");
    lua_pushvalue(L, 2);
    if (lua_next(L, 3)) return 2;
    lua_pushnil(L);
    return 1;
}

/// `pairs(row)` and `pairs(value)` of a nested value: its columns (keys) and cells (values),
/// read-only. Stack: [-1, +3, -]
int clua_tables_pairs(lua_State *L) {
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

/// Pushes a new metatable of a read-only proxy of the library's, with room for `extra` more
/// fields: `__newindex` raises, `__len` is `len` (unless NULL), `__metatable` hides it and
/// `__readonly` makes `rawset` refuse it. Stack: [-0, +1, m]
static void clua_tables_push_readonly_mt(lua_State *L, lua_CFunction len, int extra) {
    lua_createtable(L, 0, 4 + extra);
    lua_pushcfunction(L, clua_tables_readonly);
    lua_setfield(L, -2, "__newindex");
    if (len) {
        lua_pushcfunction(L, len);
        lua_setfield(L, -2, "__len");
    }
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    lua_pushboolean(L, 1);
    lua_setfield(L, -2, "__readonly");
}

/// Sets `tables` in the table at `base` (the environment's base) and makes the library's
/// shared metatables; why: `environment.c` builds the environment, this file what `tables` is.
/// Stack: [-0, +0, m]
void clua_tables_setup(lua_State *L, int base) {
    base = lua_absindex(L, base);
    lua_createtable(L, 0, 0);  // the handles by name
    lua_pushvalue(L, -1);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &clua_tables_store);
    lua_createtable(L, 0, 0);  // `tables`: an empty proxy of the handles
    clua_tables_push_readonly_mt(L, NULL, 1);
    lua_pushvalue(L, -3);
    lua_setfield(L, -2, "__index");
    lua_setmetatable(L, -2);
    lua_setfield(L, base, "tables");
    lua_pop(L, 1);
    lua_createtable(L, 0, 1);
    lua_pushcfunction(L, clua_tables_miss);
    lua_setfield(L, -2, "__index");
    lua_rawsetp(L, LUA_REGISTRYINDEX, &clua_tables_miss_mt);
    clua_tables_push_readonly_mt(L, clua_tables_frozen_len, 1);
    lua_pushcfunction(L, clua_tables_pairs);
    lua_setfield(L, -2, "__pairs");
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

/// Replaces the row object at `index` (its cells) by the row: an empty proxy whose metatable's
/// `__index` is the cells, each nested cell behind a read-only proxy of its own; four fields a
/// metatable (`__index`, `__newindex`, `__pairs`, `__metatable`), the fewest a read-only row
/// that the VM reads needs. Stack: [-0, +0, m]
static void clua_tables_make_row(lua_State *L, int index) {
    index = lua_absindex(L, index);
    lua_pushnil(L);
    while (lua_next(L, index)) {
        if (lua_type(L, -1) == LUA_TTABLE) {
            clua_tables_freeze(L, -1, 0);
            lua_pushvalue(L, -2);
            lua_insert(L, -2);
            lua_rawset(L, index);
        } else {
            lua_pop(L, 1);
        }
    }
    lua_pushnil(L);  // drops the JSON object mark
    lua_setmetatable(L, index);
    lua_createtable(L, 0, 0);  // the row
    lua_createtable(L, 0, 4);
    lua_pushvalue(L, index);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, clua_tables_readonly);
    lua_setfield(L, -2, "__newindex");
    lua_pushcfunction(L, clua_tables_pairs);
    lua_setfield(L, -2, "__pairs");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    lua_setmetatable(L, -2);
    lua_replace(L, index);
}

/// Sets the row at the top under the key text at `text` in the rows by key at `by_key`, and
/// under the key's other spellings: the integer whose digits the text is, the boolean it
/// names; a text spelled as a method goes among the shadowed rows at `shadowed`. Pops the row.
/// Stack: [-1, +0, m]
static void clua_tables_keep_row(lua_State *L, int by_key, int shadowed, int text) {
    size_t length = 0;
    const char *name = lua_tolstring(L, text, &length);
    if (clua_tables_is_method(name, length)) {
        lua_pushvalue(L, text);
        lua_insert(L, -2);
        lua_rawset(L, shadowed);
        return;
    }
    if ((length == 4 && memcmp(name, "true", 4) == 0) || (length == 5 && memcmp(name, "false", 5) == 0)) {
        lua_pushboolean(L, name[0] == 't');
        lua_pushvalue(L, -2);
        lua_rawset(L, by_key);
    } else if (lua_stringtonumber(L, name) == length + 1) {
        // The integer whose digits, as `push_key` writes them, are the text ("7", not "07").
        int alias = 0;
        if (lua_isinteger(L, -1)) {
            alias = strcmp(lua_pushfstring(L, "%I", (LUA_INTEGER)lua_tointeger(L, -1)), name) == 0;
            lua_pop(L, 1);
        }
        if (alias) {
            lua_pushvalue(L, -2);
            lua_rawset(L, by_key);
        } else {
            lua_pop(L, 1);
        }
    }
    lua_pushvalue(L, text);
    lua_insert(L, -2);
    lua_rawset(L, by_key);
}

/// Pushes a new handle: an empty proxy whose metatable's `__index` is the rows by key at
/// `by_key` (its methods `get` and `find` among them), with its rows in order at `in_order` and
/// its shadowed rows at `shadowed` under keys scripts cannot reach. Stack: [-0, +1, m]
static void clua_tables_push_handle(lua_State *L, int by_key, int in_order, int shadowed) {
    lua_pushcfunction(L, clua_tables_method_get);
    lua_setfield(L, by_key, "get");
    lua_pushcfunction(L, clua_tables_method_find);
    lua_setfield(L, by_key, "find");
    lua_rawgetp(L, LUA_REGISTRYINDEX, &clua_tables_miss_mt);
    lua_setmetatable(L, by_key);
    lua_createtable(L, 0, 0);
    clua_tables_push_readonly_mt(L, clua_tables_handle_len, 3);
    lua_pushvalue(L, by_key);
    lua_setfield(L, -2, "__index");
    lua_pushvalue(L, in_order);
    lua_rawsetp(L, -2, &clua_tables_in_order);
    lua_pushvalue(L, shadowed);
    lua_rawsetp(L, -2, &clua_tables_shadowed);
    lua_setmetatable(L, -2);
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
    int size = (int)(count > 0x3fffffff ? 0x3fffffff : count);
    lua_createtable(L, 0, size);  // rows by key
    int by_key = lua_gettop(L);
    lua_createtable(L, size, 0);  // rows in order
    int in_order = lua_gettop(L);
    lua_createtable(L, 0, 0);  // rows whose key is a method's name
    int shadowed = lua_gettop(L);
    for (lua_Integer index = 1; index <= count; index++) {
        lua_rawgeti(L, pairs, index);
        int pair = lua_gettop(L);
        lua_rawgeti(L, pair, 1);  // the key text
        lua_rawgeti(L, pair, 2);  // the cells, made the row
        clua_tables_make_row(L, -1);
        lua_pushvalue(L, -1);
        lua_rawseti(L, in_order, index);
        clua_tables_keep_row(L, by_key, shadowed, pair + 1);
        lua_settop(L, shadowed);
    }
    clua_tables_push_handle(L, by_key, in_order, shadowed);
    lua_rawgetp(L, LUA_REGISTRYINDEX, &clua_tables_store);
    lua_insert(L, -2);
    lua_setfield(L, -2, call->module);
    lua_settop(L, 0);
    lua_gc(L, LUA_GCCOLLECT);
    s->memory_limit = cap + (s->memory_used > before ? s->memory_used - before : 0);
    return 0;
}
