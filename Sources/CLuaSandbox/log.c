// `log(...)` (and `print`, the same function) for scripts: one line per call, kept in the
// running call for the host to write (on stderr, with the record it maps); docs/lua.md, "Logging".
//
// Bounded like every library function: each call costs CLUA_LOG_COST steps of the instruction
// budget plus one per table entry shown; a line is at most CLUA_LOG_LINE_SIZE bytes; a call
// keeps at most its `log_limit` lines and counts the rest as dropped. Values render without
// running a metamethod: strings as they are, tables compactly and only so far.
#include "sandbox_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// A message (or a place) being built: at most CLUA_LOG_LINE_SIZE bytes, then only whether more
/// was cut.
typedef struct clua_log_line {
    char bytes[CLUA_LOG_LINE_SIZE];
    size_t count;
    int cut;
} clua_log_line;

/// The record this thread maps; why: a host sets it per record without a lock (lua_sandbox.h).
static _Thread_local int64_t clua_log_current_record = 0;

int64_t clua_log_record(void) { return clua_log_current_record; }

void clua_log_set_record(int64_t record) { clua_log_current_record = record; }

/// The room the note of a cut line takes.
#define CLUA_LOG_NOTE_ROOM 48

/// Appends bytes, escaping the control bytes but tab (`\n`, `\r`, `\ddd`) so a line stays one
/// line; a byte that does not fit marks the line cut.
static void clua_log_append(clua_log_line *line, const char *bytes, size_t length, int keep_tabs) {
    for (size_t i = 0; i < length && !line->cut; i++) {
        unsigned char byte = (unsigned char)bytes[i];
        char escaped[5];
        size_t size = 1;
        escaped[0] = (char)byte;
        if (byte == '\n') memcpy(escaped, "\\n", size = 2);
        else if (byte == '\r') memcpy(escaped, "\\r", size = 2);
        else if ((byte < 0x20 && !(byte == '\t' && keep_tabs)) || byte == 0x7f)
            size = (size_t)snprintf(escaped, sizeof escaped, "\\%03d", byte);
        if (line->count + size > CLUA_LOG_LINE_SIZE) {
            line->cut = 1;
            // Never end inside a UTF-8 character: drop the head of the one this byte continues.
            if ((byte & 0xC0) == 0x80) {
                while (line->count > 0 && ((unsigned char)line->bytes[line->count - 1] & 0xC0) == 0x80) line->count--;
                if (line->count > 0) line->count--;
            }
            return;
        }
        memcpy(line->bytes + line->count, escaped, size);
        line->count += size;
    }
}

static void clua_log_literal(clua_log_line *line, const char *text) { clua_log_append(line, text, strlen(text), 1); }

static void clua_log_value(lua_State *L, clua_log_line *line, int index, int depth, int quoted);

/// Whether `a` sorts before `b` (bytes, then length).
static int clua_log_key_before(const char *a, size_t a_length, const char *b, size_t b_length) {
    int order = memcmp(a, b, a_length < b_length ? a_length : b_length);
    return order < 0 || (order == 0 && a_length < b_length);
}

/// Shows a table: its sequence `1..#t` in order, then its string keys in byte order, at most
/// CLUA_LOG_TABLE_ITEMS entries and CLUA_LOG_TABLE_DEPTH levels, `…` for the rest; raw access
/// only. Charges a step per key looked at. Stack: [-0, +0, v]
static void clua_log_table(lua_State *L, clua_log_line *line, int index, int depth) {
    if (depth >= CLUA_LOG_TABLE_DEPTH) {
        clua_log_literal(line, "{…}");
        return;
    }
    luaL_checkstack(L, 4, "log: too deep");
    lua_Integer length = (lua_Integer)lua_rawlen(L, index);
    int shown = 0, more = 0;
    clua_log_literal(line, "{");
    for (lua_Integer i = 1; i <= length; i++) {
        clua_sandbox_charge(L, 1);
        if (shown == CLUA_LOG_TABLE_ITEMS || line->cut) {
            more = 1;
            break;
        }
        if (shown++) clua_log_literal(line, ", ");
        lua_rawgeti(L, index, i);
        clua_log_value(L, line, lua_gettop(L), depth + 1, 1);
        lua_pop(L, 1);
    }
    // The smallest string keys, kept sorted; the strings stay alive in the table meanwhile.
    struct {
        const char *bytes;
        size_t length;
    } keys[CLUA_LOG_TABLE_ITEMS];
    int room = CLUA_LOG_TABLE_ITEMS - shown, count = 0;
    lua_pushnil(L);
    while (lua_next(L, index)) {
        lua_pop(L, 1);
        clua_sandbox_charge(L, 1);
        if (lua_type(L, -1) != LUA_TSTRING) {
            if (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < 1 || lua_tointeger(L, -1) > length) more = 1;
            continue;
        }
        size_t key_length = 0;
        const char *key = lua_tolstring(L, -1, &key_length);
        int at = count;
        while (at > 0 && clua_log_key_before(key, key_length, keys[at - 1].bytes, keys[at - 1].length)) at--;
        if (at >= room) {
            more = 1;
            continue;
        }
        if (count == room) more = 1;
        int last = count < room ? count : room - 1;
        memmove(&keys[at + 1], &keys[at], sizeof keys[0] * (size_t)(last - at));
        keys[at].bytes = key;
        keys[at].length = key_length;
        if (count < room) count++;
    }
    for (int i = 0; i < count && !line->cut; i++) {
        if (shown++) clua_log_literal(line, ", ");
        clua_log_append(line, keys[i].bytes, keys[i].length, 0);
        clua_log_literal(line, "=");
        lua_pushlstring(L, keys[i].bytes, keys[i].length);
        lua_rawget(L, index);
        clua_log_value(L, line, lua_gettop(L), depth + 1, 1);
        lua_pop(L, 1);
    }
    if (more) clua_log_literal(line, shown ? ", …" : "…");
    clua_log_literal(line, "}");
}

/// Shows one value as `print` would, but with no metamethod: a string as it is (quoted inside
/// a table), `null` for json.null, a table compactly. Stack: [-0, +0, v]
static void clua_log_value(lua_State *L, clua_log_line *line, int index, int depth, int quoted) {
    clua_sandbox *s = clua_sandbox_of(L);
    switch (lua_type(L, index)) {
    case LUA_TSTRING: {
        size_t length = 0;
        const char *text = lua_tolstring(L, index, &length);
        if (quoted) clua_log_literal(line, "\"");
        clua_log_append(line, text, length, !quoted);
        if (quoted) clua_log_literal(line, "\"");
        break;
    }
    case LUA_TNUMBER: {
        lua_pushvalue(L, index);
        size_t length = 0;
        const char *text = lua_tolstring(L, -1, &length);
        clua_log_append(line, text, length, 0);
        lua_pop(L, 1);
        break;
    }
    case LUA_TNIL: clua_log_literal(line, "nil"); break;
    case LUA_TBOOLEAN: clua_log_literal(line, lua_toboolean(L, index) ? "true" : "false"); break;
    case LUA_TTABLE:
        // A lookup table's row or nested value shows as its cells.
        if (clua_tables_push_behind(L, index) == 1) {
            clua_log_table(L, line, lua_gettop(L), depth);
            lua_pop(L, 1);
            break;
        }
        clua_log_table(L, line, index, depth);
        break;
    case LUA_TUSERDATA:
        if (clua_view_is(L, index)) {
            // A view shows as the table it stands for.
            clua_value_copy(L, index, 0);
            clua_log_table(L, line, lua_gettop(L), depth);
            lua_pop(L, 1);
            break;
        }
        /* fall through */
    case LUA_TLIGHTUSERDATA:
        if (lua_touserdata(L, index) == (void *)s) {
            clua_log_literal(line, "null");
            break;
        }
        /* fall through */
    default: {
        char text[64];
        snprintf(text, sizeof text, "%s: %p", luaL_typename(L, index), lua_topointer(L, index));
        clua_log_literal(line, text);
        break;
    }
    }
}

/// Appends `line` (cut or not) to the call's log as `place\tmessage\n`. Returns 0 when the
/// host's memory is short (the line is dropped).
static int clua_log_keep(clua_call *call, const clua_log_line *place, const clua_log_line *line) {
    char note[CLUA_LOG_NOTE_ROOM];
    int note_length = line->cut ? snprintf(note, sizeof note, "… (cut at %d bytes)", CLUA_LOG_LINE_SIZE) : 0;
    size_t size = place->count + 1 + line->count + (size_t)note_length + 1;
    char *grown = (char *)realloc(call->log, call->log_count + size);
    if (grown == NULL) return 0;
    call->log = grown;
    char *at = grown + call->log_count;
    memcpy(at, place->bytes, place->count), at += place->count;
    *at++ = '\t';
    memcpy(at, line->bytes, line->count), at += line->count;
    memcpy(at, note, (size_t)note_length), at += note_length;
    *at = '\n';
    call->log_count += size;
    return 1;
}

/// Names where `log` was called from, `scripts/Geo.lua:12`: the nearest Lua function up the
/// stack (a `pcall(log, x)` is named by its caller). Stack: [-0, +0, -]
static void clua_log_place(lua_State *L, clua_log_line *place) {
    lua_Debug frame;
    for (int level = 1; lua_getstack(L, level, &frame); level++) {
        if (!lua_getinfo(L, "Sl", &frame) || frame.currentline <= 0) continue;
        char text[LUA_IDSIZE + 24];
        snprintf(text, sizeof text, "%s:%d", frame.short_src, frame.currentline);
        clua_log_append(place, text, strlen(text), 0);
        return;
    }
    clua_log_literal(place, "?");
}

/// `log(...)` and `print(...)`: a line of its arguments, `tostring`-like and tab-separated,
/// kept for the host; see the top of this file for its bounds. Stack: [-n, +0, v]
int clua_sandbox_log(lua_State *L) {
    clua_sandbox *s = clua_sandbox_of(L);
    clua_sandbox_charge(L, CLUA_LOG_COST);
    clua_call *call = s->call;
    if (call == NULL || call->log_limit <= 0) return 0;
    if (call->log_kept >= call->log_limit) {
        call->log_dropped++;
        return 0;
    }
    clua_log_line place = {.count = 0, .cut = 0};
    clua_log_line line = {.count = 0, .cut = 0};
    clua_log_place(L, &place);
    int arguments = lua_gettop(L);
    for (int i = 1; i <= arguments && !line.cut; i++) {
        if (i > 1) clua_log_literal(&line, "\t");
        clua_log_value(L, &line, i, 0, 0);
    }
    if (clua_log_keep(call, &place, &line)) call->log_kept++;
    else call->log_dropped++;
    return 0;
}
