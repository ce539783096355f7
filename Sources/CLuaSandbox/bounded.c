// Bounded versions of the library functions that can run long or allocate much inside one C
// call, where the count hook never runs: Lua patterns (a matcher written here, which counts
// its steps against the instruction budget and the deadline), plain `find` (linear), and
// `rep`, `format`, `pack`, `concat`, `insert`, `remove`, `move`, `sort` (sizes checked against
// the memory left before they allocate; loops counted). docs/lua.md lists what stays unbounded.
#define _GNU_SOURCE
#include "sandbox_internal.h"

#include <ctype.h>
#include <stdint.h>
#include <string.h>

/// The deepest recursion of the matcher (as in Lua: "pattern too complex").
#define CLUA_MATCH_DEPTH 200
/// At most this many captures (as in Lua).
#define CLUA_MAX_CAPTURES 32

// MARK: Compiled patterns

/// What one element of a compiled pattern is.
enum {
    ITEM_SINGLE,    // one byte of a set, maybe with a quantifier
    ITEM_OPEN,      // '('
    ITEM_POSITION,  // '()'
    ITEM_CLOSE,     // ')'
    ITEM_BALANCE,   // %bxy
    ITEM_FRONTIER,  // %f[set]
    ITEM_BACKREF,   // %1 .. %9
    ITEM_END,       // '$' as the last character
    ITEM_ERROR,     // a malformed rest: raised when matching reaches it, as Lua does
};

/// Why a pattern is malformed, by the code an ITEM_ERROR holds.
static const char *const clua_pattern_errors[] = {
    "malformed pattern (ends with '%')",
    "malformed pattern (missing ']')",
    "malformed pattern (missing arguments to '%b')",
    "missing '[' after '%f' in pattern",
    "invalid capture index in pattern",
    "invalid pattern capture",
    "too many captures",
};
enum { ERROR_ENDS, ERROR_SET, ERROR_BALANCE, ERROR_FRONTIER, ERROR_INDEX, ERROR_CLOSE, ERROR_CAPTURES };

/// One element of a compiled pattern; the byte set of a single or a frontier is a bitmap.
typedef struct clua_item {
    uint8_t kind;
    uint8_t quantifier;  // 0, '*', '+', '-' or '?'
    uint8_t first, second;  // %b's delimiters; the back-reference's capture index
    uint32_t set[8];
} clua_item;

typedef struct clua_pattern {
    int count;
    int anchored;
    int captures;  // how many '(' the pattern has
    clua_item *items;
} clua_pattern;

static void clua_set_add(uint32_t *set, unsigned char c) { set[c >> 5] |= 1u << (c & 31); }

static int clua_set_has(const uint32_t *set, unsigned char c) { return (set[c >> 5] >> (c & 31)) & 1; }

/// Adds the class `%letter` to `set`; returns 0 when `letter` names no class (then it is a literal).
static int clua_set_add_class(uint32_t *set, unsigned char letter) {
    int (*test)(int) = NULL;
    switch (tolower(letter)) {
    case 'a': test = isalpha; break;
    case 'c': test = iscntrl; break;
    case 'd': test = isdigit; break;
    case 'g': test = isgraph; break;
    case 'l': test = islower; break;
    case 'p': test = ispunct; break;
    case 's': test = isspace; break;
    case 'u': test = isupper; break;
    case 'w': test = isalnum; break;
    case 'x': test = isxdigit; break;
    default: return 0;
    }
    int complement = isupper(letter) != 0;
    for (int c = 0; c < 256; c++)
        if ((test(c) != 0) != complement) clua_set_add(set, (unsigned char)c);
    return 1;
}

/// Reads the set that starts at `p` (just after '['), up to its ']'; returns what follows it.
static const char *clua_compile_set(const char *p, const char *end, uint32_t *set) {
    int negate = 0;
    if (p < end && *p == '^') {
        negate = 1;
        p++;
    }
    // The first character is part of the set even when it is ']'.
    const char *close = p;
    do {
        if (close >= end) return NULL;
        if (*close++ == '%') {
            if (close >= end) return NULL;
            close++;
        }
    } while (close >= end || *close != ']');
    uint32_t members[8] = {0};
    while (p < close) {
        unsigned char c = (unsigned char)*p;
        if (c == '%') {
            unsigned char next = (unsigned char)p[1];
            if (!clua_set_add_class(members, next)) clua_set_add(members, next);
            p += 2;
        } else if (p + 2 < close && p[1] == '-') {
            for (int x = c; x <= (unsigned char)p[2]; x++) clua_set_add(members, (unsigned char)x);
            p += 3;
        } else {
            clua_set_add(members, c);
            p++;
        }
    }
    for (int i = 0; i < 8; i++) set[i] = negate ? ~members[i] : members[i];
    return close + 1;
}

/// Ends a compilation at a malformed place: matching raises `code` if it ever gets there.
static void clua_compile_fail(clua_pattern *out, clua_item *item, int code) {
    item->kind = ITEM_ERROR;
    item->first = (uint8_t)code;
    out->count = (int)(item - out->items) + 1;
}

/// The captures a compilation has opened and not closed yet (`open`, `depth` of them), and
/// which ones are closed (a back reference names only those).
typedef struct clua_compile_captures {
    int open[CLUA_MAX_CAPTURES];
    int depth;
    int closed[CLUA_MAX_CAPTURES];
} clua_compile_captures;

/// Compiles the parenthesis at `p` into `item`: a capture opened, a position capture `()`, or
/// the open capture closed. Returns where the pattern goes on, or NULL when the compilation
/// ended at a malformed place.
static const char *clua_compile_capture(const char *p, const char *end, clua_pattern *out, clua_item *item,
                                        clua_compile_captures *captures) {
    if (*p == ')') {
        if (captures->depth == 0) {
            clua_compile_fail(out, item, ERROR_CLOSE);
            return NULL;
        }
        captures->closed[captures->open[--captures->depth]] = 1;
        item->kind = ITEM_CLOSE;
        return p + 1;
    }
    if (out->captures >= CLUA_MAX_CAPTURES) {
        clua_compile_fail(out, item, ERROR_CAPTURES);
        return NULL;
    }
    captures->open[captures->depth++] = out->captures++;
    if (p + 1 < end && p[1] == ')') {
        item->kind = ITEM_POSITION;
        captures->depth--;
        captures->closed[out->captures - 1] = 1;
        return p + 2;
    }
    item->kind = ITEM_OPEN;
    return p + 1;
}

/// Compiles `pattern` into `out->items` (room for `length` items); why: matching then reads
/// small structs instead of re-parsing text. A malformed place becomes an ITEM_ERROR.
static void clua_compile(const char *p, size_t length, int anchor_allowed, clua_pattern *out) {
    const char *end = p + length;
    out->count = 0;
    out->captures = 0;
    out->anchored = anchor_allowed && p < end && *p == '^';
    if (out->anchored) p++;
    clua_compile_captures captures;
    memset(&captures, 0, sizeof captures);
    while (p < end) {
        clua_item *item = &out->items[out->count++];
        memset(item, 0, sizeof *item);
        unsigned char c = (unsigned char)*p;
        if (c == '(' || c == ')') {
            p = clua_compile_capture(p, end, out, item, &captures);
            if (p == NULL) return;
            continue;
        }
        if (c == '$' && p + 1 == end) {
            item->kind = ITEM_END;
            p++;
            continue;
        }
        item->kind = ITEM_SINGLE;
        if (c == '%') {
            if (p + 1 >= end) return clua_compile_fail(out, item, ERROR_ENDS);
            unsigned char next = (unsigned char)p[1];
            if (next == 'b') {
                if (p + 3 >= end) return clua_compile_fail(out, item, ERROR_BALANCE);
                item->kind = ITEM_BALANCE;
                item->first = (uint8_t)p[2];
                item->second = (uint8_t)p[3];
                p += 4;
                continue;
            }
            if (next == 'f') {
                if (p + 2 >= end || p[2] != '[') return clua_compile_fail(out, item, ERROR_FRONTIER);
                item->kind = ITEM_FRONTIER;
                p = clua_compile_set(p + 3, end, item->set);
                if (p == NULL) return clua_compile_fail(out, item, ERROR_SET);
                continue;
            }
            if (isdigit(next)) {
                int index = next - '1';
                if (index < 0 || index >= out->captures || !captures.closed[index])
                    return clua_compile_fail(out, item, ERROR_INDEX);
                item->kind = ITEM_BACKREF;
                item->first = (uint8_t)index;
                p += 2;
                continue;
            }
            if (!clua_set_add_class(item->set, next)) clua_set_add(item->set, next);
            p += 2;
        } else if (c == '[') {
            p = clua_compile_set(p + 1, end, item->set);
            if (p == NULL) return clua_compile_fail(out, item, ERROR_SET);
        } else if (c == '.') {
            memset(item->set, 0xff, sizeof item->set);
            p++;
        } else {
            clua_set_add(item->set, c);
            p++;
        }
        if (p < end && (*p == '*' || *p == '+' || *p == '-' || *p == '?')) item->quantifier = (uint8_t)*p++;
    }
}

// MARK: Matching

/// One match in progress: the subject, the captures so far, and the steps not yet charged.
typedef struct clua_match {
    lua_State *L;
    const clua_pattern *pattern;
    const char *subject, *subject_end;
    int depth;
    int level;
    int64_t steps;
    struct {
        const char *start;
        ptrdiff_t length;  // -1 while open, -2 for a position capture
    } capture[CLUA_MAX_CAPTURES];
} clua_match;

#define CAPTURE_OPEN (-1)
#define CAPTURE_POSITION (-2)

/// Counts one step of matching; charges them in quanta. Stack: [-0, +0, v]
static inline void clua_match_step(clua_match *m, int64_t steps) {
    m->steps += steps;
    if (m->steps >= CLUA_STEP_QUANTUM) {
        int64_t charged = m->steps;
        m->steps = 0;
        clua_sandbox_charge(m->L, charged);
    }
}

static const char *clua_match_from(clua_match *m, const char *s, int i);

/// Opens a capture (or takes a position) at `s`, then matches the items after it; the capture
/// is undone when they do not match. Stack: [-0, +0, v]
static const char *clua_match_open(clua_match *m, const char *s, int i, const clua_item *item) {
    m->capture[m->level].start = s;
    m->capture[m->level].length = item->kind == ITEM_OPEN ? CAPTURE_OPEN : CAPTURE_POSITION;
    m->level++;
    const char *result = clua_match_from(m, s, i + 1);
    if (result == NULL) m->level--;
    return result;
}

/// Closes the last open capture at `s`, then matches the items after it; the capture is open
/// again when they do not match. Stack: [-0, +0, v]
static const char *clua_match_close(clua_match *m, const char *s, int i) {
    int open = m->level - 1;
    while (open >= 0 && m->capture[open].length != CAPTURE_OPEN) open--;
    m->capture[open].length = s - m->capture[open].start;
    const char *result = clua_match_from(m, s, i + 1);
    if (result == NULL) m->capture[open].length = CAPTURE_OPEN;
    return result;
}

/// `%bxy` at `s`: where the balanced run ends (after its closing byte), or NULL. Stack: [-0, +0, v]
static inline const char *clua_match_balance(clua_match *m, const char *s, const clua_item *item) {
    if (s >= m->subject_end || (unsigned char)*s != item->first) return NULL;
    int open = 1;
    const char *at = s + 1;
    for (; at < m->subject_end; at++) {
        unsigned char c = (unsigned char)*at;
        if (c == item->second) {
            if (--open == 0) break;
        } else if (c == item->first) {
            open++;
        }
    }
    clua_match_step(m, at - s);
    return at >= m->subject_end ? NULL : at + 1;
}

/// `%1`…`%9` at `s`: past the repeated capture, or NULL. Stack: [-0, +0, v]
static inline const char *clua_match_backref(clua_match *m, const char *s, const clua_item *item) {
    ptrdiff_t length = m->capture[item->first].length;
    if (length < 0) return NULL;  // a position capture repeats nothing (as in Lua)
    if (m->subject_end - s < length || memcmp(m->capture[item->first].start, s, (size_t)length) != 0) return NULL;
    clua_match_step(m, length);
    return s + length;
}

/// A byte of a set repeated (`-`: the shortest run first; `*` and `+`: the longest first), then
/// the items after it: where the match ends, or NULL. Stack: [-0, +0, v]
static const char *clua_match_repeat(clua_match *m, const char *s, int i, const clua_item *item) {
    const char *result = NULL;
    if (item->quantifier == '-') {
        for (;;) {
            result = clua_match_from(m, s, i + 1);
            if (result != NULL || s >= m->subject_end || !clua_set_has(item->set, (unsigned char)*s)) break;
            s++;
        }
        return result;
    }
    ptrdiff_t run = 0;
    while (s + run < m->subject_end && clua_set_has(item->set, (unsigned char)s[run])) run++;
    clua_match_step(m, run);
    ptrdiff_t least = item->quantifier == '+' ? 1 : 0;
    for (; run >= least; run--) {
        result = clua_match_from(m, s + run, i + 1);
        if (result != NULL) break;
    }
    return result;
}

/// Where the match of items `i...` starting at `s` ends, or NULL. Backtracking, with each
/// attempt and each byte scanned counted as a step. Stack: [-0, +0, v]
static const char *clua_match_from(clua_match *m, const char *s, int i) {
    if (++m->depth > CLUA_MATCH_DEPTH) luaL_error(m->L, "pattern too complex");
    const char *result = NULL;
    const clua_pattern *pattern = m->pattern;
    for (;;) {
        clua_match_step(m, 1);
        if (i == pattern->count) {
            result = s;
            break;
        }
        const clua_item *item = &pattern->items[i];
        if (item->kind == ITEM_OPEN || item->kind == ITEM_POSITION) {
            result = clua_match_open(m, s, i, item);
            break;
        }
        if (item->kind == ITEM_CLOSE) {
            result = clua_match_close(m, s, i);
            break;
        }
        if (item->kind == ITEM_ERROR) luaL_error(m->L, "%s", clua_pattern_errors[item->first]);
        if (item->kind == ITEM_END) {
            result = s == m->subject_end ? s : NULL;
            break;
        }
        if (item->kind == ITEM_BALANCE || item->kind == ITEM_BACKREF) {
            s = item->kind == ITEM_BALANCE ? clua_match_balance(m, s, item) : clua_match_backref(m, s, item);
            if (s == NULL) break;
            i++;
            continue;
        }
        if (item->kind == ITEM_FRONTIER) {
            unsigned char before = s == m->subject ? 0 : (unsigned char)s[-1];
            unsigned char here = s < m->subject_end ? (unsigned char)*s : 0;
            if (clua_set_has(item->set, before) || !clua_set_has(item->set, here)) break;
            i++;
            continue;
        }
        // A single byte of a set, with its quantifier.
        int here = s < m->subject_end && clua_set_has(item->set, (unsigned char)*s);
        if (item->quantifier == 0) {
            if (!here) break;
            s++;
            i++;
            continue;
        }
        if (item->quantifier == '?') {
            if (here) {
                result = clua_match_from(m, s + 1, i + 1);
                if (result != NULL) break;
            }
            i++;
            continue;
        }
        if (item->quantifier == '+' && !here) break;
        result = clua_match_repeat(m, s, i, item);
        break;
    }
    m->depth--;
    return result;
}

/// Tries a match at `s` with fresh captures. Stack: [-0, +0, v]
static const char *clua_match_at(clua_match *m, const char *s) {
    m->level = 0;
    m->depth = 0;
    return clua_match_from(m, s, 0);
}

/// Pushes capture `i` (or the whole match `s..e` when the pattern has none). Stack: [-0, +1, v]
static void clua_push_capture(clua_match *m, int i, const char *s, const char *e) {
    if (i >= m->level) {
        if (i != 0) luaL_error(m->L, "invalid capture index %%%d", i + 1);
        lua_pushlstring(m->L, s, (size_t)(e - s));
        return;
    }
    ptrdiff_t length = m->capture[i].length;
    if (length == CAPTURE_OPEN) luaL_error(m->L, "unfinished capture");
    if (length == CAPTURE_POSITION) lua_pushinteger(m->L, (m->capture[i].start - m->subject) + 1);
    else lua_pushlstring(m->L, m->capture[i].start, (size_t)length);
}

/// Pushes every capture (or the whole match); returns how many. Stack: [-0, +n, v]
static int clua_push_captures(clua_match *m, const char *s, const char *e, int whole) {
    int count = (m->level == 0 && whole) ? 1 : m->level;
    luaL_checkstack(m->L, count, "too many captures");
    for (int i = 0; i < count; i++) clua_push_capture(m, i, s, e);
    return count;
}

/// Compiles a pattern into a buffer on the C stack when it is small, else into a userdata
/// the interpreter's memory cap counts (left on the stack). Stack: [-0, +(0|1), v]
static void clua_pattern_prepare(lua_State *L, const char *p, size_t length, int anchor_allowed,
                                 clua_item *small, int small_count, clua_pattern *pattern) {
    if (length <= (size_t)small_count) {
        pattern->items = small;
    } else {
        if (length > clua_sandbox_headroom(L) / sizeof(clua_item)) clua_sandbox_trip(L, CLUA_MEMORY);
        pattern->items = (clua_item *)lua_newuserdatauv(L, length * sizeof(clua_item), 0);
    }
    clua_compile(p, length, anchor_allowed, pattern);
}

/// Sets up a match of `pattern` against the `length` bytes of `s`: no captures yet, no steps
/// taken. Stack: [-0, +0, -]
static void clua_match_begin(clua_match *m, lua_State *L, const clua_pattern *pattern, const char *s, size_t length) {
    m->L = L;
    m->pattern = pattern;
    m->subject = s;
    m->subject_end = s + length;
    m->level = 0;
    m->depth = 0;
    m->steps = 0;
}

/// A 1-based, possibly negative, start position as an offset into a string of `length` bytes.
static size_t clua_start_offset(lua_Integer position, size_t length) {
    if (position > 0) return (size_t)position - 1;
    if (position == 0 || (size_t)0 - (lua_Unsigned)position > length) return 0;
    return length - ((size_t)0 - (lua_Unsigned)position);
}

/// Whether a pattern has no magic characters, so `find` can search for it as it is.
static int clua_is_plain(const char *p, size_t length) {
    for (size_t i = 0; i < length; i++)
        if (strchr("^$*+?.([%-", p[i]) != NULL && p[i] != 0) return 0;
    return 1;
}

#define CLUA_SMALL_PATTERN 32

/// `string.find` (find = 1) and `string.match` (find = 0). Stack: [-(2|3|4), +(1|n), v]
static int clua_bounded_find_or_match(lua_State *L, int find) {
    size_t length = 0, pattern_length = 0;
    const char *s = luaL_checklstring(L, 1, &length);
    const char *p = luaL_checklstring(L, 2, &pattern_length);
    size_t start = clua_start_offset(luaL_optinteger(L, 3, 1), length);
    if (start > length) {
        luaL_pushfail(L);
        return 1;
    }
    if (find && (lua_toboolean(L, 4) || clua_is_plain(p, pattern_length))) {
        // A linear search (glibc's memmem is two-way), charged by the bytes it may scan.
        clua_sandbox_charge(L, (int64_t)((length - start) / 16));
        const char *at = (const char *)memmem(s + start, length - start, p, pattern_length);
        if (at == NULL) {
            luaL_pushfail(L);
            return 1;
        }
        lua_pushinteger(L, (at - s) + 1);
        lua_pushinteger(L, (lua_Integer)((at - s) + (ptrdiff_t)pattern_length));
        return 2;
    }
    clua_item small[CLUA_SMALL_PATTERN];
    clua_pattern pattern;
    clua_pattern_prepare(L, p, pattern_length, 1, small, CLUA_SMALL_PATTERN, &pattern);
    clua_match m;
    clua_match_begin(&m, L, &pattern, s, length);
    const char *at = s + start;
    for (;;) {
        const char *e = clua_match_at(&m, at);
        if (e != NULL) {
            clua_sandbox_charge(L, m.steps);
            if (find) {
                lua_pushinteger(L, (at - s) + 1);
                lua_pushinteger(L, e - s);
                return clua_push_captures(&m, NULL, NULL, 0) + 2;
            }
            return clua_push_captures(&m, at, e, 1);
        }
        if (pattern.anchored || at >= m.subject_end) break;
        at++;
    }
    clua_sandbox_charge(L, m.steps);
    luaL_pushfail(L);
    return 1;
}

/// `string.find(s, pattern [, init [, plain]])`. Stack: [-(2|3|4), +(1|2+n), v]
static int clua_bounded_find(lua_State *L) { return clua_bounded_find_or_match(L, 1); }

/// `string.match(s, pattern [, init])`. Stack: [-(2|3), +(1|n), v]
static int clua_bounded_match(lua_State *L) { return clua_bounded_find_or_match(L, 0); }

/// The state of one `gmatch` iteration, kept in a userdata upvalue with the compiled pattern.
typedef struct clua_gmatch {
    size_t position;
    size_t last;  // where the previous match ended, + 1; 0 before the first
    clua_pattern pattern;
} clua_gmatch;

/// The iterator `gmatch` returns (upvalues: subject, pattern text, state). Stack: [-2, +(0|n), v]
static int clua_bounded_gmatch_next(lua_State *L) {
    size_t length = 0;
    const char *s = lua_tolstring(L, lua_upvalueindex(1), &length);
    clua_gmatch *state = (clua_gmatch *)lua_touserdata(L, lua_upvalueindex(3));
    clua_match m;
    clua_match_begin(&m, L, &state->pattern, s, length);
    for (size_t at = state->position; at <= length; at++) {
        const char *e = clua_match_at(&m, s + at);
        if (e != NULL && (size_t)(e - s) + 1 != state->last) {
            clua_sandbox_charge(L, m.steps);
            state->position = (size_t)(e - s);
            state->last = (size_t)(e - s) + 1;
            return clua_push_captures(&m, s + at, e, 1);
        }
    }
    clua_sandbox_charge(L, m.steps);
    state->position = length + 1;
    return 0;
}

/// `string.gmatch(s, pattern [, init])`: '^' is an ordinary character here, as in Lua 5.4.
/// Stack: [-(2|3), +1, v]
static int clua_bounded_gmatch(lua_State *L) {
    size_t length = 0, pattern_length = 0;
    luaL_checklstring(L, 1, &length);
    const char *p = luaL_checklstring(L, 2, &pattern_length);
    size_t start = clua_start_offset(luaL_optinteger(L, 3, 1), length);
    lua_settop(L, 2);
    if (pattern_length > clua_sandbox_headroom(L) / sizeof(clua_item)) clua_sandbox_trip(L, CLUA_MEMORY);
    size_t items = pattern_length ? pattern_length : 1;
    clua_gmatch *state = (clua_gmatch *)lua_newuserdatauv(L, sizeof(clua_gmatch) + items * sizeof(clua_item), 0);
    state->position = start > length ? length + 1 : start;
    state->last = 0;
    state->pattern.items = (clua_item *)(state + 1);
    clua_compile(p, pattern_length, 0, &state->pattern);
    lua_pushcclosure(L, clua_bounded_gmatch_next, 3);
    return 1;
}

/// Appends `bytes` to a buffer whose box may not outgrow the memory left; counted as steps.
/// Stack: [-?, +?, v]
static void clua_buffer_add(lua_State *L, luaL_Buffer *buffer, const char *bytes, size_t length, int64_t *steps) {
    *steps += (int64_t)(length / 16) + 1;
    if (*steps >= CLUA_STEP_QUANTUM) {
        clua_sandbox_charge(L, *steps);
        *steps = 0;
    }
    luaL_addlstring(buffer, bytes, length);
}

/// Adds what one match of `gsub` is replaced with. Stack: [-?, +?, e]
static void clua_gsub_replace(clua_match *m, luaL_Buffer *buffer, const char *s, const char *e, int64_t *steps) {
    lua_State *L = m->L;
    int kind = lua_type(L, 3);
    if (kind == LUA_TNUMBER || kind == LUA_TSTRING) {
        size_t length = 0;
        const char *text = lua_tolstring(L, 3, &length);
        const char *end = text + length;
        while (text < end) {
            const char *percent = memchr(text, '%', (size_t)(end - text));
            if (percent == NULL) {
                clua_buffer_add(L, buffer, text, (size_t)(end - text), steps);
                break;
            }
            clua_buffer_add(L, buffer, text, (size_t)(percent - text), steps);
            text = percent + 1;
            if (text < end && *text == '%') {
                clua_buffer_add(L, buffer, "%", 1, steps);
            } else if (text < end && isdigit((unsigned char)*text)) {
                if (*text == '0') {
                    clua_buffer_add(L, buffer, s, (size_t)(e - s), steps);
                } else {
                    clua_push_capture(m, *text - '1', s, e);
                    luaL_tolstring(L, -1, NULL);
                    lua_remove(L, -2);
                    luaL_addvalue(buffer);
                }
            } else {
                luaL_error(L, "invalid use of '%c' in replacement string", '%');
            }
            text++;
        }
        return;
    }
    if (kind == LUA_TFUNCTION) {
        lua_pushvalue(L, 3);
        int count = clua_push_captures(m, s, e, 1);
        lua_call(L, count, 1);
    } else {
        clua_push_capture(m, 0, s, e);
        lua_gettable(L, 3);
    }
    if (!lua_toboolean(L, -1)) {
        lua_pop(L, 1);
        clua_buffer_add(L, buffer, s, (size_t)(e - s), steps);
        return;
    }
    if (!lua_isstring(L, -1)) return (void)luaL_error(L, "invalid replacement value (a %s)", luaL_typename(L, -1));
    luaL_addvalue(buffer);
}

/// `string.gsub(s, pattern, replacement [, n])`. Stack: [-(3|4), +2, e]
static int clua_bounded_gsub(lua_State *L) {
    size_t length = 0, pattern_length = 0;
    const char *s = luaL_checklstring(L, 1, &length);
    const char *p = luaL_checklstring(L, 2, &pattern_length);
    int kind = lua_type(L, 3);
    luaL_argexpected(L, kind == LUA_TNUMBER || kind == LUA_TSTRING || kind == LUA_TFUNCTION || kind == LUA_TTABLE, 3,
                     "string/function/table");
    lua_Integer most = luaL_optinteger(L, 4, (lua_Integer)length + 1);
    lua_settop(L, 4);
    clua_item small[CLUA_SMALL_PATTERN];
    clua_pattern pattern;
    clua_pattern_prepare(L, p, pattern_length, 1, small, CLUA_SMALL_PATTERN, &pattern);  // may push at 5
    clua_match m;
    clua_match_begin(&m, L, &pattern, s, length);
    luaL_Buffer buffer;
    luaL_buffinit(L, &buffer);
    const char *at = s, *last = NULL;
    lua_Integer replaced = 0;
    int64_t steps = 0;
    while (replaced < most) {
        const char *e = clua_match_at(&m, at);
        if (e != NULL && e != last) {
            replaced++;
            clua_gsub_replace(&m, &buffer, at, e, &steps);
            at = last = e;
        } else if (at < m.subject_end) {
            clua_buffer_add(L, &buffer, at, 1, &steps);
            at++;
        } else {
            break;
        }
        if (pattern.anchored) break;
    }
    clua_buffer_add(L, &buffer, at, (size_t)(m.subject_end - at), &steps);
    clua_sandbox_charge(L, m.steps + steps);
    luaL_pushresult(&buffer);
    lua_pushinteger(L, replaced);
    return 2;
}

// MARK: Sizes checked before allocating

/// `string.rep(s, n [, sep])`: nothing to repeat is "" at once; a result larger than the memory
/// left is refused before a byte is copied. Stack: [-(2|3), +1, v]
static int clua_bounded_rep(lua_State *L) {
    size_t length = 0, separator_length = 0;
    const char *s = luaL_checklstring(L, 1, &length);
    lua_Integer n = luaL_checkinteger(L, 2);
    const char *separator = luaL_optlstring(L, 3, "", &separator_length);
    if (n <= 0 || length + separator_length == 0) {
        lua_pushliteral(L, "");
        return 1;
    }
    if (length + separator_length < length || length + separator_length > (size_t)INT64_MAX / (uint64_t)n)
        return luaL_error(L, "resulting string too large");
    size_t total = length * (size_t)n + separator_length * (size_t)(n - 1);
    // The buffer and the string made from it are both alive for a moment.
    if (total > clua_sandbox_headroom(L) / 2) return clua_sandbox_trip(L, CLUA_MEMORY);
    clua_sandbox_charge(L, (int64_t)(total / 64));
    luaL_Buffer buffer;
    char *out = luaL_buffinitsize(L, &buffer, total);
    for (lua_Integer i = 0; i < n; i++) {
        memcpy(out, s, length);
        out += length;
        if (separator_length > 0 && i + 1 < n) {
            memcpy(out, separator, separator_length);
            out += separator_length;
        }
    }
    luaL_pushresultsize(&buffer, total);
    return 1;
}

/// Adds `b` to `a`, saturating; why: size estimates must not wrap.
static size_t clua_add(size_t a, size_t b) { return a + b < a ? SIZE_MAX : a + b; }

/// `string.format`, after an estimate of the result's size against the memory left.
/// Stack: [-(1+n), +1, e]
static int clua_bounded_format(lua_State *L) {
    size_t length = 0;
    const char *format = luaL_checklstring(L, 1, &length);
    size_t estimate = length;
    int argument = 1;
    for (size_t i = 0; i + 1 < length; i++) {
        if (format[i] != '%') continue;
        i++;
        if (format[i] == '%') continue;
        while (i < length && strchr("-+ #0123456789.", format[i]) != NULL) i++;
        argument++;
        size_t text = 0;
        if (i < length && (format[i] == 's' || format[i] == 'q') && lua_type(L, argument) == LUA_TSTRING)
            lua_tolstring(L, argument, &text);
        estimate = clua_add(estimate, format[i] == 'q' ? clua_add(text, text) : text);
        estimate = clua_add(estimate, 512);
    }
    if (estimate > clua_sandbox_headroom(L)) return clua_sandbox_trip(L, CLUA_MEMORY);
    clua_sandbox_charge(L, (int64_t)(estimate / 64));
    lua_getfield(L, lua_upvalueindex(1), "format");  // Lua's own
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    return 1;
}

/// `string.pack`, after a bound on the result's size (every size the format names, 16 bytes
/// per option, and the strings it packs) against the memory left. Stack: [-(1+n), +1, v]
static int clua_bounded_pack(lua_State *L) {
    size_t length = 0;
    const char *format = luaL_checklstring(L, 1, &length);
    size_t bound = 0;
    for (size_t i = 0; i < length; i++) {
        if (isdigit((unsigned char)format[i])) {
            size_t number = 0;
            while (i < length && isdigit((unsigned char)format[i])) {
                number = number > SIZE_MAX / 10 ? SIZE_MAX : number * 10 + (size_t)(format[i] - '0');
                i++;
            }
            i--;
            bound = clua_add(bound, number);
        } else {
            bound = clua_add(bound, 16);
        }
    }
    for (int i = 2; i <= lua_gettop(L); i++) {
        if (lua_type(L, i) != LUA_TSTRING) continue;
        size_t text = 0;
        lua_tolstring(L, i, &text);
        bound = clua_add(bound, text);
    }
    if (bound > clua_sandbox_headroom(L)) return clua_sandbox_trip(L, CLUA_MEMORY);
    clua_sandbox_charge(L, (int64_t)(bound / 64));
    lua_getfield(L, lua_upvalueindex(1), "pack");  // Lua's own
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    return lua_gettop(L);
}

// MARK: Table functions that count their steps

/// Counts one element's worth of work in a table loop (an access may call a C metamethod).
/// Stack: [-0, +0, v]
static inline void clua_table_step(lua_State *L, int64_t *steps) {
    if (++*steps >= CLUA_STEP_QUANTUM / 4) {
        clua_sandbox_charge(L, *steps * 4);
        *steps = 0;
    }
}

/// Checks that argument 1 is a table, or something that acts like one through its metatable.
/// Stack: [-0, +0, v]
static void clua_check_table(lua_State *L, int index) {
    if (lua_type(L, index) == LUA_TTABLE) return;
    if (lua_getmetatable(L, index)) {
        lua_pop(L, 1);
        return;
    }
    luaL_checktype(L, index, LUA_TTABLE);
}

/// `table.concat(t [, sep [, i [, j]]])`. Stack: [-(1|2|3|4), +1, e]
static int clua_bounded_concat(lua_State *L) {
    clua_check_table(L, 1);
    size_t separator_length = 0;
    const char *separator = luaL_optlstring(L, 2, "", &separator_length);
    lua_Integer first = luaL_optinteger(L, 3, 1);
    lua_Integer last = lua_isnoneornil(L, 4) ? luaL_len(L, 1) : luaL_checkinteger(L, 4);
    if (first > last) {
        lua_pushliteral(L, "");
        return 1;
    }
    lua_Unsigned count = (lua_Unsigned)last - (lua_Unsigned)first;
    if (separator_length > 0 && count > clua_sandbox_headroom(L) / separator_length) return clua_sandbox_trip(L, CLUA_MEMORY);
    luaL_Buffer buffer;
    luaL_buffinit(L, &buffer);
    int64_t steps = 0;
    for (lua_Integer i = first;; i++) {
        clua_table_step(L, &steps);
        lua_geti(L, 1, i);
        if (!lua_isstring(L, -1))
            return luaL_error(L, "invalid value (at index %I) in table for 'concat'", (LUAI_UACINT)i);
        luaL_addvalue(&buffer);
        if (i == last) break;
        if (separator_length > 0) luaL_addlstring(&buffer, separator, separator_length);
    }
    clua_sandbox_charge(L, steps * 4);
    luaL_pushresult(&buffer);
    return 1;
}

/// `table.insert(t, [pos,] value)`. Stack: [-(2|3), +0, e]
static int clua_bounded_insert(lua_State *L) {
    clua_check_table(L, 1);
    lua_Integer end = (lua_Integer)((lua_Unsigned)luaL_len(L, 1) + 1u);
    lua_Integer position = end;
    switch (lua_gettop(L)) {
    case 2: break;
    case 3: {
        position = luaL_checkinteger(L, 2);
        luaL_argcheck(L, (lua_Unsigned)position - 1u < (lua_Unsigned)end, 2, "position out of bounds");
        int64_t steps = 0;
        for (lua_Integer i = end; i > position; i--) {
            clua_table_step(L, &steps);
            lua_geti(L, 1, i - 1);
            lua_seti(L, 1, i);
        }
        clua_sandbox_charge(L, steps * 4);
        break;
    }
    default: return luaL_error(L, "wrong number of arguments to 'insert'");
    }
    lua_seti(L, 1, position);
    return 0;
}

/// `table.remove(t [, pos])`. Stack: [-(1|2), +1, e]
static int clua_bounded_remove(lua_State *L) {
    clua_check_table(L, 1);
    lua_Integer size = luaL_len(L, 1);
    lua_Integer position = luaL_optinteger(L, 2, size);
    if (position != size)
        luaL_argcheck(L, (lua_Unsigned)position - 1u <= (lua_Unsigned)size, 2, "position out of bounds");
    lua_geti(L, 1, position);
    int64_t steps = 0;
    for (; position < size; position++) {
        clua_table_step(L, &steps);
        lua_geti(L, 1, position + 1);
        lua_seti(L, 1, position);
    }
    clua_sandbox_charge(L, steps * 4);
    lua_pushnil(L);
    lua_seti(L, 1, position);
    return 1;
}

/// `table.move(a1, f, e, t [, a2])`. Stack: [-(4|5), +1, e]
static int clua_bounded_move(lua_State *L) {
    lua_Integer from = luaL_checkinteger(L, 2);
    lua_Integer end = luaL_checkinteger(L, 3);
    lua_Integer to = luaL_checkinteger(L, 4);
    int target = lua_isnoneornil(L, 5) ? 1 : 5;
    clua_check_table(L, 1);
    clua_check_table(L, target);
    if (end >= from) {
        luaL_argcheck(L, from > 0 || end < LUA_MAXINTEGER + from, 3, "too many elements to move");
        lua_Integer count = end - from + 1;
        luaL_argcheck(L, to <= LUA_MAXINTEGER - count + 1, 4, "destination wrap around");
        int64_t steps = 0;
        if (to > end || to <= from || (target != 1 && !lua_compare(L, 1, target, LUA_OPEQ))) {
            for (lua_Integer i = 0; i < count; i++) {
                clua_table_step(L, &steps);
                lua_geti(L, 1, from + i);
                lua_seti(L, target, to + i);
            }
        } else {
            for (lua_Integer i = count - 1; i >= 0; i--) {
                clua_table_step(L, &steps);
                lua_geti(L, 1, from + i);
                lua_seti(L, target, to + i);
            }
        }
        clua_sandbox_charge(L, steps * 4);
    }
    lua_pushvalue(L, target);
    return 1;
}

/// Whether t[a] < t[b] by the comparator at 2 (or `<`). Stack: [-0, +0, e]
static int clua_sort_less(lua_State *L, lua_Integer a, lua_Integer b) {
    lua_geti(L, 1, a);
    lua_geti(L, 1, b);
    int less;
    if (lua_isnil(L, 2)) {
        less = lua_compare(L, -2, -1, LUA_OPLT);
        lua_pop(L, 2);
    } else {
        lua_pushvalue(L, 2);
        lua_insert(L, -3);
        lua_call(L, 2, 1);
        less = lua_toboolean(L, -1);
        lua_pop(L, 1);
    }
    return less;
}

/// Swaps t[a] and t[b]. Stack: [-0, +0, e]
static void clua_sort_swap(lua_State *L, lua_Integer a, lua_Integer b) {
    lua_geti(L, 1, a);
    lua_geti(L, 1, b);
    lua_seti(L, 1, a);
    lua_seti(L, 1, b);
}

/// Moves element `root` down the heap of the first `size` elements (1-based). Stack: [-0, +0, e]
static void clua_sort_sift(lua_State *L, lua_Integer root, lua_Integer size, int64_t *steps) {
    for (;;) {
        lua_Integer child = root * 2;
        if (child > size) return;
        clua_table_step(L, steps);
        if (child + 1 <= size && clua_sort_less(L, child, child + 1)) child++;
        if (!clua_sort_less(L, root, child)) return;
        clua_sort_swap(L, root, child);
        root = child;
    }
}

/// `table.sort(t [, less])`: a heap sort, O(n log n) whatever the order function does, each
/// comparison counted. Like Lua's, it is not stable. Stack: [-(1|2), +0, e]
static int clua_bounded_sort(lua_State *L) {
    clua_check_table(L, 1);
    lua_Integer size = luaL_len(L, 1);
    if (size > 1) {
        luaL_argcheck(L, size < INT32_MAX, 1, "array too big");
        if (!lua_isnoneornil(L, 2)) luaL_checktype(L, 2, LUA_TFUNCTION);
        lua_settop(L, 2);
        int64_t steps = 0;
        for (lua_Integer root = size / 2; root >= 1; root--) clua_sort_sift(L, root, size, &steps);
        for (lua_Integer end = size; end > 1; end--) {
            clua_sort_swap(L, 1, end);
            clua_sort_sift(L, 1, end - 1, &steps);
        }
        clua_sandbox_charge(L, steps * 4);
    }
    return 0;
}

// MARK: The tables the sandbox installs

const luaL_Reg clua_bounded_string_functions[] = {
    {"find", clua_bounded_find},
    {"match", clua_bounded_match},
    {"gmatch", clua_bounded_gmatch},
    {"gsub", clua_bounded_gsub},
    {"rep", clua_bounded_rep},
    {"format", clua_bounded_format},
    {"pack", clua_bounded_pack},
    {NULL, NULL},
};

const luaL_Reg clua_bounded_table_functions[] = {
    {"concat", clua_bounded_concat},
    {"insert", clua_bounded_insert},
    {"remove", clua_bounded_remove},
    {"move", clua_bounded_move},
    {"sort", clua_bounded_sort},
    {NULL, NULL},
};
