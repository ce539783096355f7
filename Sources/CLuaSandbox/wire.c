// The sandbox: the wire format values cross the bridge in, both ways.
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

// MARK: Wire encoding

/// Reads `count` bytes of the input wire, or fails the decode; why: a host wire is checked, not trusted.
static const uint8_t *clua_wire_take(const uint8_t **cursor, const uint8_t *end, size_t count) {
    if ((size_t)(end - *cursor) < count) return NULL;
    const uint8_t *at = *cursor;
    *cursor += count;
    return at;
}

/// Pushes the value a wire encodes; why: host values enter Lua under `lua_pcall`. Returns
/// CLUA_PUSH_OK, or why not, leaving what it pushed so far. Stack: [-0, +1, v]
int clua_wire_push(lua_State *L, clua_sandbox *s, const uint8_t **cursor, const uint8_t *end, int depth) {
    const uint8_t *tag = clua_wire_take(cursor, end, 1);
    if (tag == NULL) return CLUA_PUSH_MALFORMED;
    // A container inside `depth` others is level depth + 1: at most CLUA_MAX_DEPTH levels cross.
    if (depth >= CLUA_MAX_DEPTH && (*tag == CLUA_WIRE_ARRAY || *tag == CLUA_WIRE_OBJECT)) return CLUA_PUSH_TOO_DEEP;
    switch (*tag) {
    case CLUA_WIRE_NULL: lua_pushlightuserdata(L, (void *)s); return 1;
    case CLUA_WIRE_TRUE: lua_pushboolean(L, 1); return 1;
    case CLUA_WIRE_FALSE: lua_pushboolean(L, 0); return 1;
    case CLUA_WIRE_INTEGER: {
        const uint8_t *bytes = clua_wire_take(cursor, end, 8);
        if (bytes == NULL) return 0;
        int64_t value;
        memcpy(&value, bytes, 8);
        lua_pushinteger(L, (lua_Integer)value);
        return 1;
    }
    case CLUA_WIRE_DOUBLE: {
        const uint8_t *bytes = clua_wire_take(cursor, end, 8);
        if (bytes == NULL) return 0;
        double value;
        memcpy(&value, bytes, 8);
        lua_pushnumber(L, (lua_Number)value);
        return 1;
    }
    case CLUA_WIRE_STRING: {
        const uint8_t *header = clua_wire_take(cursor, end, 4);
        if (header == NULL) return 0;
        uint32_t length;
        memcpy(&length, header, 4);
        const uint8_t *bytes = clua_wire_take(cursor, end, length);
        if (bytes == NULL) return 0;
        lua_pushlstring(L, (const char *)bytes, length);
        return 1;
    }
    case CLUA_WIRE_ARRAY:
    case CLUA_WIRE_OBJECT: {
        const uint8_t *header = clua_wire_take(cursor, end, 4);
        if (header == NULL) return 0;
        uint32_t count;
        memcpy(&count, header, 4);
        int is_array = *tag == CLUA_WIRE_ARRAY;
        if (count > (uint32_t)(end - *cursor)) return 0;
        luaL_checkstack(L, 4, "value too deep");  // the table, a key, a value, and the next level's table
        lua_createtable(L, is_array ? (int)count : 0, is_array ? 0 : (int)count);
        for (uint32_t i = 0; i < count; i++) {
            if (!is_array) {
                const uint8_t *key_header = clua_wire_take(cursor, end, 4);
                if (key_header == NULL) return 0;
                uint32_t length;
                memcpy(&length, key_header, 4);
                const uint8_t *key = clua_wire_take(cursor, end, length);
                if (key == NULL) return 0;
                lua_pushlstring(L, (const char *)key, length);
            }
            int pushed = clua_wire_push(L, s, cursor, end, depth + 1);
            if (pushed != CLUA_PUSH_OK) return pushed;
            if (is_array) lua_rawseti(L, -2, (lua_Integer)i + 1);
            else lua_rawset(L, -3);
        }
        lua_rawgeti(L, LUA_REGISTRYINDEX, is_array ? s->array_mt_ref : s->object_mt_ref);
        lua_setmetatable(L, -2);
        return 1;
    }
    case CLUA_WIRE_TEXT: {
        const uint8_t *header = clua_wire_take(cursor, end, 4);
        if (header == NULL) return 0;
        uint32_t length;
        memcpy(&length, header, 4);
        const uint8_t *text = clua_wire_take(cursor, end, length);
        if (text == NULL) return 0;
        return clua_text_push_input(L, text, text + length);
    }
    default: return 0;
    }
}

/// Grows the output wire to hold `count` more bytes, within its limit; why: results are bounded.
/// Returns 0 when the limit or the memory is reached.
static int clua_wire_grow(clua_call *call, size_t count) {
    size_t limit = call->output_limit ? call->output_limit : CLUA_MAX_WIRE_BYTES;
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

/// Appends bytes to the output wire, within its limit. Returns 0 when full.
int clua_wire_append(clua_call *call, const void *bytes, size_t count) {
    if (call->output_capacity - call->output_count < count && !clua_wire_grow(call, count)) return 0;
    memcpy(call->output + call->output_count, bytes, count);
    call->output_count += count;
    return 1;
}

/// Appends a tag and a payload of `count` bytes in one step. Returns 0 when full.
static inline int clua_wire_append_tagged(clua_call *call, uint8_t tag, const void *payload, size_t count) {
    if (call->output_capacity - call->output_count < count + 1 && !clua_wire_grow(call, count + 1)) return 0;
    call->output[call->output_count] = tag;
    if (count) memcpy(call->output + call->output_count + 1, payload, count);
    call->output_count += count + 1;
    return 1;
}

/// A value read off the stack (or off a table while traversing it): its type and, for a
/// scalar, what the wire needs; why: an object's members are written in key order after one
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
static void clua_wire_capture(lua_State *L, int index, clua_value *value) {
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
static int clua_wire_refuse(clua_call *call, const char *message) {
    snprintf(call->message, CLUA_MESSAGE_SIZE, "%s", message);
    return 0;
}

/// Records that a result holds more than CLUA_MAX_NODES values.
static int clua_wire_refuse_too_many(clua_call *call) {
    snprintf(call->message, CLUA_MESSAGE_SIZE, "the value is too large (more than %d values)", CLUA_MAX_NODES);
    return 0;
}

static int clua_wire_write_table(lua_State *L, clua_call *call, int index, const void **ancestors, int depth);

/// Enters the container at `index` (a table or a view) at `depth`: refuses a cycle and a value
/// nested past CLUA_MAX_DEPTH, else keeps it among the ancestors. Returns 0 with `call->message`
/// set when it refuses. Stack: [-0, +0, -]
static int clua_wire_enter(lua_State *L, clua_call *call, int index, const void **ancestors, int depth) {
    const void *self = lua_topointer(L, index);
    for (int i = 0; i < depth; i++)
        if (ancestors[i] == self) return clua_wire_refuse(call, "the value contains itself (a cycle)");
    if (depth >= CLUA_MAX_DEPTH) {
        snprintf(call->message, CLUA_MESSAGE_SIZE, "the value is nested too deeply (more than %d levels)",
                 CLUA_MAX_DEPTH);
        return 0;
    }
    ancestors[depth] = self;
    return 1;
}

/// Writes the cells behind a lookup table's row or nested value at `index`, or refuses a proxy
/// of the `tables` library that is no value (a handle); returns -1, writing nothing, for any
/// other table, which `clua_wire_write_table` writes. Stack: [-0, +0, v]
static int clua_wire_write_lookup(lua_State *L, clua_call *call, int index, const void **ancestors, int depth) {
    if (!lua_getmetatable(L, index)) return -1;
    const void *mt = lua_topointer(L, -1);
    lua_pop(L, 1);
    if (mt == call->sandbox->array_mt || mt == call->sandbox->object_mt) return -1;
    int behind = clua_tables_push_behind(L, index);
    if (behind == 0) return -1;
    if (behind < 0) return clua_wire_refuse(call, "a lookup table is not a JSON value (return a row or its cells)");
    int ok = clua_wire_write(L, call, lua_gettop(L), ancestors, depth);
    lua_pop(L, 1);
    return ok;
}

/// Writes a captured value; a table (`value->type` LUA_TTABLE) is at `index` on the stack.
/// Returns 0 with `call->message` set when it cannot. Stack: [-0, +0, v]
static int clua_wire_write_value(lua_State *L, clua_call *call, const clua_value *value, int index,
                                 const void **ancestors, int depth) {
    if (++call->nodes > CLUA_MAX_NODES) return clua_wire_refuse_too_many(call);
    switch (value->type) {
    case LUA_TNIL:
        return clua_wire_append_tagged(call, CLUA_WIRE_NULL, NULL, 0) || clua_wire_refuse(call, "the value is too large");
    case LUA_TLIGHTUSERDATA:
        if (value->as.pointer != (void *)call->sandbox) return clua_wire_refuse(call, "a userdata is not a JSON value");
        return clua_wire_append_tagged(call, CLUA_WIRE_NULL, NULL, 0) || clua_wire_refuse(call, "the value is too large");
    case LUA_TBOOLEAN:
        return clua_wire_append_tagged(call, value->as.boolean ? CLUA_WIRE_TRUE : CLUA_WIRE_FALSE, NULL, 0)
            || clua_wire_refuse(call, "the value is too large");
    case LUA_TNUMBER: {
        if (value->is_integer) {
            int64_t number = (int64_t)value->as.integer;
            return clua_wire_append_tagged(call, CLUA_WIRE_INTEGER, &number, 8)
                || clua_wire_refuse(call, "the value is too large");
        }
        double number = (double)value->as.number;
        if (isnan(number)) return clua_wire_refuse(call, "NaN is not a JSON number");
        if (isinf(number)) return clua_wire_refuse(call, "an infinite number is not a JSON number");
        return clua_wire_append_tagged(call, CLUA_WIRE_DOUBLE, &number, 8)
            || clua_wire_refuse(call, "the value is too large");
    }
    case LUA_TSTRING: {
        size_t length = value->as.string.length;
        uint32_t length32 = (uint32_t)length;
        if (length <= UINT32_MAX && clua_wire_append_tagged(call, CLUA_WIRE_STRING, &length32, 4)
            && clua_wire_append(call, value->as.string.bytes, length))
            return 1;
        snprintf(call->message, CLUA_MESSAGE_SIZE, "the value is too large (more than the result limit of %zu bytes)",
                 call->output_limit ? call->output_limit : (size_t)CLUA_MAX_WIRE_BYTES);
        return 0;
    }
    case LUA_TTABLE: {
        int written = clua_wire_write_lookup(L, call, index, ancestors, depth);
        return written >= 0 ? written : clua_wire_write_table(L, call, index, ancestors, depth);
    }
    case LUA_TUSERDATA:
        if (index != 0 && clua_view_is(L, index)) {
            if (!clua_wire_enter(L, call, index, ancestors, depth)) return 0;
            return clua_view_write(L, call, index, ancestors, depth);
        }
        /* fall through */
    default: {
        char message[80];
        snprintf(message, sizeof message, "a %s is not a JSON value", lua_typename(L, value->type));
        return clua_wire_refuse(call, message);
    }
    }
}

/// Writes the value at `index` to the output wire, with raw access only: no metamethod of a
/// script's table ever runs here. Returns 0 with `call->message` set when it cannot. Stack: [-0, +0, v]
int clua_wire_write(lua_State *L, clua_call *call, int index, const void **ancestors, int depth) {
    clua_value value;
    index = lua_absindex(L, index);
    clua_wire_capture(L, index, &value);
    return clua_wire_write_value(L, call, &value, index, ancestors, depth);
}

/// What one raw traversal of a table found: how many keys, how many of them are integers from
/// 1 and the largest of those, how many are strings; while every key is a string, the members,
/// in the caller's inline array (`members`) or, once `spilled`, a userdata at the top of the stack.
typedef struct clua_table_shape {
    clua_member *members;
    size_t capacity;
    int spilled;
    lua_Integer keys, strings, positives, largest;
} clua_table_shape;

/// Moves the members to a block twice as large, anchored below the key at the top of the stack
/// (so the collector frees it whatever happens next). Stack: [-0, +(0|1), m]
static void clua_table_shape_grow(lua_State *L, clua_table_shape *shape) {
    size_t grown = shape->capacity * 2;
    clua_member *block = (clua_member *)lua_newuserdatauv(L, grown * sizeof(clua_member), 0);
    memcpy(block, shape->members, shape->capacity * sizeof(clua_member));
    if (shape->spilled) lua_replace(L, -4);
    else lua_insert(L, -3);
    shape->members = block;
    shape->capacity = grown;
    shape->spilled = 1;
}

/// Classifies the table at `index` with raw traversal into `shape`; 0 with the refusal set (and
/// nothing left on the stack) when it has too many keys. Stack: [-0, +(0|1), m]
static inline int clua_wire_classify(lua_State *L, clua_call *call, int index, clua_table_shape *shape) {
    lua_pushnil(L);
    while (lua_next(L, index)) {
        shape->keys++;
        if (lua_type(L, -2) == LUA_TSTRING) {
            shape->strings++;
            if (shape->strings == shape->keys) {
                if ((size_t)shape->strings > shape->capacity) clua_table_shape_grow(L, shape);
                clua_member *member = &shape->members[shape->strings - 1];
                member->key = lua_tolstring(L, -2, &member->length);
                clua_wire_capture(L, -1, &member->value);
            }
        } else if (lua_isinteger(L, -2)) {
            lua_Integer k = lua_tointeger(L, -2);
            if (k >= 1) {
                shape->positives++;
                if (k > shape->largest) shape->largest = k;
            }
        }
        lua_pop(L, 1);
        if (shape->keys > CLUA_MAX_NODES) {
            lua_pop(L, 1 + shape->spilled);
            return clua_wire_refuse_too_many(call);
        }
    }
    return 1;
}

/// Whether the table is an array (`*is_array`) or an object, by its marking metatable `mt` or
/// else its keys: 0 with the refusal set when it is neither.
static inline int clua_wire_table_kind(clua_call *call, const void *mt, const clua_table_shape *shape, int *is_array) {
    clua_sandbox *s = call->sandbox;
    lua_Integer keys = shape->keys;
    *is_array = 0;
    if (mt == s->array_mt) {
        *is_array = 1;
        if (shape->positives != keys || shape->largest != keys)
            return clua_wire_refuse(call, "a table marked as an array has keys other than 1..n");
        return 1;
    }
    if (mt == s->object_mt || keys == 0) {
        if (shape->strings != keys)
            return clua_wire_refuse(call, "a table marked as an object has keys that are not strings");
        return 1;
    }
    if (shape->positives == keys && shape->largest == keys) {
        *is_array = 1;
        return 1;
    }
    if (shape->strings == keys) return 1;
    if (shape->positives == keys) return clua_wire_refuse(call, "an array with holes (keys are not 1..n)");
    return clua_wire_refuse(call, "a table mixes array and object keys, or has keys that are neither");
}

/// Writes the elements 1...count of the table at `index`; inlined, as the loop was before it
/// was a function of its own (a table's values recurse through clua_wire_write). Stack: [-0, +0, v]
static inline __attribute__((always_inline)) int clua_wire_write_elements(lua_State *L, clua_call *call, int index,
                                                                          lua_Integer count, const void **ancestors,
                                                                          int depth) {
    int ok = 1;
    for (lua_Integer i = 1; i <= count && ok; i++) {
        lua_rawgeti(L, index, i);
        ok = clua_wire_write(L, call, -1, ancestors, depth + 1);
        lua_pop(L, 1);
    }
    return ok;
}

/// Writes the members of the table at `index` in key order: scalars from what the traversal
/// captured, nested tables looked up again by key; inlined, as clua_wire_write_elements.
/// Stack: [-0, +0, v]
static inline __attribute__((always_inline)) int clua_wire_write_members(lua_State *L, clua_call *call, int index,
                                                                         const clua_table_shape *shape,
                                                                         const void **ancestors, int depth) {
    clua_member *members = shape->members;
    size_t n = (size_t)shape->keys;
    uint8_t order[CLUA_INLINE_MEMBERS];
    if (shape->spilled) qsort(members, n, sizeof(clua_member), clua_member_qsort_compare);
    else clua_members_order(members, order, n);
    int ok = 1;
    for (size_t k = 0; k < n && ok; k++) {
        size_t i = shape->spilled ? k : order[k];
        uint32_t length = (uint32_t)members[i].length;
        if (!clua_wire_append(call, &length, 4) || !clua_wire_append(call, members[i].key, members[i].length))
            return clua_wire_refuse(call, "the value is too large");
        if (members[i].value.type != LUA_TTABLE && members[i].value.type != LUA_TUSERDATA) {
            ok = clua_wire_write_value(L, call, &members[i].value, 0, ancestors, depth + 1);
            continue;
        }
        lua_pushlstring(L, members[i].key, members[i].length);
        lua_rawget(L, index);
        ok = clua_wire_write(L, call, -1, ancestors, depth + 1);
        lua_pop(L, 1);
    }
    return ok;
}

/// Writes the table at `index`: an array in index order, an object in key order. Scalars are
/// written from what one traversal captured; nested tables are looked up again by key.
/// Stack: [-0, +0, v]
static int clua_wire_write_table(lua_State *L, clua_call *call, int index, const void **ancestors, int depth) {
    if (!clua_wire_enter(L, call, index, ancestors, depth)) return 0;
    luaL_checkstack(L, 6, "value too deep");

    const void *mt = lua_getmetatable(L, index) ? lua_topointer(L, -1) : NULL;
    if (mt) lua_pop(L, 1);
    // Classify with raw traversal: how many keys, how many are the integers 1..n, how many
    // strings; while every key is a string, keep the members for writing them in key order.
    clua_member inline_members[CLUA_INLINE_MEMBERS];
    clua_table_shape shape = {inline_members, CLUA_INLINE_MEMBERS, 0, 0, 0, 0, 0};
    if (!clua_wire_classify(L, call, index, &shape)) return 0;
    int is_array = 0;
    int ok = clua_wire_table_kind(call, mt, &shape, &is_array);
    uint32_t count = (uint32_t)shape.keys;
    // An empty table nobody marked has no kind: the host gives it the kind the property needs.
    if (ok && shape.keys == 0 && mt == NULL) {
        if (shape.spilled) lua_pop(L, 1);
        if (!clua_wire_append_tagged(call, CLUA_WIRE_EMPTY, NULL, 0)) return clua_wire_refuse(call, "the value is too large");
        return 1;
    }
    if (ok && !clua_wire_append_tagged(call, is_array ? CLUA_WIRE_ARRAY : CLUA_WIRE_OBJECT, &count, 4))
        ok = clua_wire_refuse(call, "the value is too large");
    if (ok && is_array) ok = clua_wire_write_elements(L, call, index, shape.keys, ancestors, depth);
    else if (ok) ok = clua_wire_write_members(L, call, index, &shape, ancestors, depth);
    if (shape.spilled) lua_pop(L, 1);
    return ok;
}
