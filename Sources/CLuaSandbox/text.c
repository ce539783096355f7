// The sandbox's `text` library: Unicode-aware case, normalization, characters and trimming
// over UTF-8 strings, where Lua's `string` works byte by byte (`string.upper("café")` is
// "CAFé"). A character is an extended grapheme cluster (UAX #29): what a reader counts as one,
// "é" whether it is one code point or two, a flag or a family emoji. The tables are made by
// tools/unicode-tables (text_tables.h). Every function counts one step per code point it reads
// (and per place a combining mark moves) against the instruction budget, and refuses a string
// that is not UTF-8 with the byte where it stops being so.
// Stack effects are written as sandbox.c says.
#include "sandbox_internal.h"
#include "text_tables.h"

#include <string.h>

// MARK: UTF-8

/// The code point at `*at` of `s` (advancing `*at` past it), or -1 when the bytes there are
/// not UTF-8: overlong forms, surrogates and values past U+10FFFF are refused too.
static int32_t clua_utf8_next(const unsigned char *s, size_t length, size_t *at) {
    size_t i = *at;
    unsigned char b = s[i];
    if (b < 0x80) {
        *at = i + 1;
        return b;
    }
    int count;
    int32_t cp;
    unsigned char low = 0x80, high = 0xBF;
    if (b >= 0xC2 && b <= 0xDF) {
        count = 1;
        cp = b & 0x1F;
    } else if (b >= 0xE0 && b <= 0xEF) {
        count = 2;
        cp = b & 0x0F;
        if (b == 0xE0) low = 0xA0;
        if (b == 0xED) high = 0x9F;
    } else if (b >= 0xF0 && b <= 0xF4) {
        count = 3;
        cp = b & 0x07;
        if (b == 0xF0) low = 0x90;
        if (b == 0xF4) high = 0x8F;
    } else {
        return -1;
    }
    if (length - i <= (size_t)count) return -1;
    for (int k = 1; k <= count; k++) {
        unsigned char c = s[i + k];
        if (c < low || c > high) return -1;
        low = 0x80;
        high = 0xBF;
        cp = (cp << 6) | (c & 0x3F);
    }
    *at = i + 1 + (size_t)count;
    return cp;
}

/// Raises the error of a string that is not UTF-8. Stack: [-0, +0, v]
static int clua_text_invalid(lua_State *L, const char *function, size_t at) {
    return luaL_error(L, "text.%s: the string is not UTF-8 at byte %d", function, (int)(at + 1));
}

/// The code point at `*at`, or the error of `function`. Stack: [-0, +0, v]
static uint32_t clua_text_next(lua_State *L, const char *function, const unsigned char *s, size_t length,
                               size_t *at) {
    size_t start = *at;
    int32_t cp = clua_utf8_next(s, length, at);
    if (cp < 0) clua_text_invalid(L, function, start);
    return (uint32_t)cp;
}

/// Appends the UTF-8 of `cp` to `buffer`. Stack: [-?, +?, m] (a buffer's own)
static void clua_text_add(luaL_Buffer *buffer, uint32_t cp) {
    char bytes[4];
    size_t count;
    if (cp < 0x80) {
        luaL_addchar(buffer, (char)cp);
        return;
    } else if (cp < 0x800) {
        bytes[0] = (char)(0xC0 | (cp >> 6));
        bytes[1] = (char)(0x80 | (cp & 0x3F));
        count = 2;
    } else if (cp < 0x10000) {
        bytes[0] = (char)(0xE0 | (cp >> 12));
        bytes[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        bytes[2] = (char)(0x80 | (cp & 0x3F));
        count = 3;
    } else {
        bytes[0] = (char)(0xF0 | (cp >> 18));
        bytes[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        bytes[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        bytes[3] = (char)(0x80 | (cp & 0x3F));
        count = 4;
    }
    luaL_addlstring(buffer, bytes, count);
}

/// Steps counted but not yet charged; charged every CLUA_STEP_QUANTUM / 16, so that a long
/// string stops near where its budget runs out. Stack: [-0, +0, v]
static inline void clua_text_step(lua_State *L, int64_t *steps, int64_t count) {
    *steps += count;
    if (*steps >= CLUA_STEP_QUANTUM / 16) {
        clua_sandbox_charge(L, *steps);
        *steps = 0;
    }
}

// MARK: The tables

/// The mapping of `cp` in a table sorted by code point, or NULL.
static const clua_text_mapping *clua_text_find_mapping(const clua_text_mapping *table, size_t count, uint32_t cp) {
    size_t low = 0, high = count;
    while (low < high) {
        size_t middle = (low + high) / 2;
        if (table[middle].from < cp) low = middle + 1;
        else high = middle;
    }
    return low < count && table[low].from == cp ? &table[low] : NULL;
}

/// The value of the range holding `cp` in a sorted table of ranges, or 0.
static uint8_t clua_text_find_range(const clua_text_range *table, size_t count, uint32_t cp) {
    size_t low = 0, high = count;
    while (low < high) {
        size_t middle = (low + high) / 2;
        if (table[middle].last < cp) low = middle + 1;
        else high = middle;
    }
    return low < count && table[low].first <= cp ? table[low].value : 0;
}

#define CLUA_COUNT(table) (sizeof(table) / sizeof((table)[0]))

enum {
    CLUA_HANGUL_S = 0xAC00,
    CLUA_HANGUL_L = 0x1100,
    CLUA_HANGUL_V = 0x1161,
    CLUA_HANGUL_T = 0x11A7,
    CLUA_HANGUL_L_COUNT = 19,
    CLUA_HANGUL_V_COUNT = 21,
    CLUA_HANGUL_T_COUNT = 28,
    CLUA_HANGUL_N = CLUA_HANGUL_V_COUNT * CLUA_HANGUL_T_COUNT,
    CLUA_HANGUL_S_COUNT = CLUA_HANGUL_L_COUNT * CLUA_HANGUL_N,
};

static uint8_t clua_text_combining_class(uint32_t cp) {
    if (cp < 0x300) return 0;
    return clua_text_find_range(clua_text_combining, CLUA_COUNT(clua_text_combining), cp);
}

static uint8_t clua_text_break_property(uint32_t cp) {
    if (cp >= 0x20 && cp < 0x7F) return CLUA_GB_OTHER;
    if (cp >= CLUA_HANGUL_S && cp < CLUA_HANGUL_S + CLUA_HANGUL_S_COUNT)
        return (cp - CLUA_HANGUL_S) % CLUA_HANGUL_T_COUNT == 0 ? CLUA_GB_LV : CLUA_GB_LVT;
    return clua_text_find_range(clua_text_grapheme, CLUA_COUNT(clua_text_grapheme), cp);
}

static int clua_text_is_space(uint32_t cp) {
    return clua_text_find_range(clua_text_white_space, CLUA_COUNT(clua_text_white_space), cp);
}

/// The primary composite of `first` and `second`, or 0.
static uint32_t clua_text_compose(uint32_t first, uint32_t second) {
    if (first >= CLUA_HANGUL_L && first < CLUA_HANGUL_L + CLUA_HANGUL_L_COUNT && second >= CLUA_HANGUL_V
        && second < CLUA_HANGUL_V + CLUA_HANGUL_V_COUNT)
        return CLUA_HANGUL_S + ((first - CLUA_HANGUL_L) * CLUA_HANGUL_V_COUNT + (second - CLUA_HANGUL_V)) *
            CLUA_HANGUL_T_COUNT;
    if (first >= CLUA_HANGUL_S && first < CLUA_HANGUL_S + CLUA_HANGUL_S_COUNT
        && (first - CLUA_HANGUL_S) % CLUA_HANGUL_T_COUNT == 0 && second > CLUA_HANGUL_T
        && second < CLUA_HANGUL_T + CLUA_HANGUL_T_COUNT)
        return first + (second - CLUA_HANGUL_T);
    uint64_t key = ((uint64_t)first << 21) | second;
    size_t low = 0, high = CLUA_COUNT(clua_text_composition);
    while (low < high) {
        size_t middle = (low + high) / 2;
        if (clua_text_composition[middle].key < key) low = middle + 1;
        else high = middle;
    }
    return low < CLUA_COUNT(clua_text_composition) && clua_text_composition[low].key == key
        ? clua_text_composition[low].composite
        : 0;
}

/// Writes the full canonical decomposition of `cp` to `out` (at most
/// CLUA_TEXT_LONGEST_DECOMPOSITION code points) and returns how many it wrote.
static int clua_text_decompose(uint32_t cp, uint32_t *out) {
    if (cp >= CLUA_HANGUL_S && cp < CLUA_HANGUL_S + CLUA_HANGUL_S_COUNT) {
        uint32_t index = cp - CLUA_HANGUL_S;
        out[0] = CLUA_HANGUL_L + index / CLUA_HANGUL_N;
        out[1] = CLUA_HANGUL_V + (index % CLUA_HANGUL_N) / CLUA_HANGUL_T_COUNT;
        if (index % CLUA_HANGUL_T_COUNT == 0) return 2;
        out[2] = CLUA_HANGUL_T + index % CLUA_HANGUL_T_COUNT;
        return 3;
    }
    const clua_text_mapping *found = cp < 0xC0
        ? NULL
        : clua_text_find_mapping(clua_text_decomposition, CLUA_COUNT(clua_text_decomposition), cp);
    if (found == NULL) {
        out[0] = cp;
        return 1;
    }
    for (int k = 0; k < found->count; k++) out[k] = clua_text_pool[found->start + k];
    return found->count;
}

// MARK: The functions

/// Whether every byte of `s` is ASCII; why: then case is a byte's and every form is the string.
static int clua_text_is_ascii(const unsigned char *s, size_t length) {
    unsigned char any = 0;
    for (size_t i = 0; i < length; i++) any |= s[i];
    return any < 0x80;
}

/// `text.upper(s)` and `text.lower(s)`: full case mappings, one code point to as many as
/// Unicode says ("ß" upper is "SS"). Stack: [-1, +1, v]
static int clua_text_case(lua_State *L, int upper) {
    const char *function = upper ? "upper" : "lower";
    size_t length = 0;
    const unsigned char *s = (const unsigned char *)luaL_checklstring(L, 1, &length);
    const clua_text_mapping *table = upper ? clua_text_upper : clua_text_lower;
    size_t count = upper ? CLUA_COUNT(clua_text_upper) : CLUA_COUNT(clua_text_lower);
    luaL_Buffer buffer;
    luaL_buffinitsize(L, &buffer, length);
    int64_t steps = 0;
    size_t at = 0;
    while (at < length) {
        uint32_t cp = clua_text_next(L, function, s, length, &at);
        clua_text_step(L, &steps, 1);
        if (cp < 0x80) {
            if (upper && cp >= 'a' && cp <= 'z') cp -= 32;
            else if (!upper && cp >= 'A' && cp <= 'Z') cp += 32;
            luaL_addchar(&buffer, (char)cp);
            continue;
        }
        const clua_text_mapping *found = clua_text_find_mapping(table, count, cp);
        if (found == NULL) {
            clua_text_add(&buffer, cp);
        } else {
            for (int k = 0; k < found->count; k++) clua_text_add(&buffer, clua_text_pool[found->start + k]);
        }
    }
    clua_sandbox_charge(L, steps);
    luaL_pushresult(&buffer);
    return 1;
}

static int clua_text_upper_function(lua_State *L) { return clua_text_case(L, 1); }
static int clua_text_lower_function(lua_State *L) { return clua_text_case(L, 0); }

/// Decomposes the UTF-8 text `s` (known valid) into `points`, each with its combining class in
/// `classes`, in the canonical order: a mark moves before the marks of a higher class that
/// precede it, never past a starter (class 0). Returns how many code points. Stack: [-0, +0, v]
static size_t clua_text_decompose_ordered(lua_State *L, const unsigned char *s, size_t length, uint32_t *points,
                                          uint8_t *classes, int64_t *steps) {
    size_t count = 0;
    size_t at = 0;
    while (at < length) {
        uint32_t cp = (uint32_t)clua_utf8_next(s, length, &at);
        int parts = clua_text_decompose(cp, points + count);
        for (int k = 0; k < parts; k++) {
            uint32_t mark = points[count];
            uint8_t class = clua_text_combining_class(mark);
            size_t place = count;
            while (class != 0 && place > 0 && classes[place - 1] > class) {
                points[place] = points[place - 1];
                classes[place] = classes[place - 1];
                place--;
                clua_text_step(L, steps, 1);
            }
            points[place] = mark;
            classes[place] = class;
            count++;
        }
    }
    return count;
}

/// The canonical composition of `count` ordered code points, in place: each mark joins the last
/// starter unless a mark of its class or a starter stands between them. Returns how many code
/// points are left. Stack: [-0, +0, v]
static size_t clua_text_compose_marks(lua_State *L, uint32_t *points, uint8_t *classes, size_t count,
                                      int64_t *steps) {
    size_t written = 0;
    size_t starter = (size_t)-1;
    int last_class = 0;
    for (size_t i = 0; i < count; i++) {
        uint32_t cp = points[i];
        int class = classes[i];
        clua_text_step(L, steps, 1);
        if (starter != (size_t)-1 && (written == starter + 1 || (last_class != 0 && last_class < class))) {
            uint32_t composite = clua_text_compose(points[starter], cp);
            if (composite != 0) {
                points[starter] = composite;
                continue;
            }
        }
        if (class == 0) starter = written;
        last_class = class;
        points[written] = cp;
        classes[written] = (uint8_t)class;
        written++;
    }
    return written;
}

/// `text.normalize(s, form)`: the string in Unicode normalization form "NFC" (composed, the
/// default) or "NFD" (decomposed). Stack: [-(1|2), +1, v]
static int clua_text_normalize(lua_State *L) {
    size_t length = 0;
    const unsigned char *s = (const unsigned char *)luaL_checklstring(L, 1, &length);
    const char *form = luaL_optstring(L, 2, "NFC");
    int composed;
    if (strcmp(form, "NFC") == 0) composed = 1;
    else if (strcmp(form, "NFD") == 0) composed = 0;
    else return luaL_error(L, "text.normalize: the form is \"NFC\" or \"NFD\", not \"%s\"", form);
    if (clua_text_is_ascii(s, length)) {
        clua_sandbox_charge(L, (int64_t)(length / 16));
        lua_settop(L, 1);
        return 1;
    }
    // First the decomposed length (and the check that the string is UTF-8), then room for that
    // many code points, a class beside each, in a userdata the memory cap counts.
    uint32_t parts_of[CLUA_TEXT_LONGEST_DECOMPOSITION];
    size_t total = 0;
    int64_t steps = 0;
    size_t at = 0;
    while (at < length) {
        uint32_t cp = clua_text_next(L, "normalize", s, length, &at);
        clua_text_step(L, &steps, 1);
        total += (size_t)clua_text_decompose(cp, parts_of);
    }
    if (total > clua_sandbox_headroom(L) / 5) return clua_sandbox_trip(L, CLUA_MEMORY);
    uint32_t *points = (uint32_t *)lua_newuserdatauv(L, total * 5, 0);
    uint8_t *classes = (uint8_t *)(points + total);
    size_t count = clua_text_decompose_ordered(L, s, length, points, classes, &steps);
    if (composed) count = clua_text_compose_marks(L, points, classes, count, &steps);
    luaL_Buffer buffer;
    luaL_buffinitsize(L, &buffer, length);
    for (size_t i = 0; i < count; i++) clua_text_add(&buffer, points[i]);
    clua_sandbox_charge(L, steps);
    luaL_pushresult(&buffer);
    return 1;
}

/// Where one character (extended grapheme cluster) ends and the next begins, read code point
/// by code point.
typedef struct {
    uint8_t previous;        // the break property of the code point before
    int regional;            // regional indicators in a row, up to the one before
    int pictographic;        // 1: Extended_Pictographic Extend* so far; 2: that and a ZWJ
} clua_text_breaks;

/// Whether a character ends before a code point of break property `next` (UAX #29, the rules
/// of Unicode 15.0); why: `len` and `sub` count what a reader counts. Updates `state`.
static int clua_text_breaks_before(clua_text_breaks *state, uint8_t next, int first) {
    uint8_t previous = state->previous;
    int breaks;
    if (first) breaks = 1;
    else if (previous == CLUA_GB_CR && next == CLUA_GB_LF) breaks = 0;
    else if (previous == CLUA_GB_CONTROL || previous == CLUA_GB_CR || previous == CLUA_GB_LF) breaks = 1;
    else if (next == CLUA_GB_CONTROL || next == CLUA_GB_CR || next == CLUA_GB_LF) breaks = 1;
    else if (previous == CLUA_GB_L
             && (next == CLUA_GB_L || next == CLUA_GB_V || next == CLUA_GB_LV || next == CLUA_GB_LVT))
        breaks = 0;
    else if ((previous == CLUA_GB_LV || previous == CLUA_GB_V) && (next == CLUA_GB_V || next == CLUA_GB_T)) breaks = 0;
    else if ((previous == CLUA_GB_LVT || previous == CLUA_GB_T) && next == CLUA_GB_T) breaks = 0;
    else if (next == CLUA_GB_EXTEND || next == CLUA_GB_ZWJ || next == CLUA_GB_SPACINGMARK) breaks = 0;
    else if (previous == CLUA_GB_PREPEND) breaks = 0;
    else if (previous == CLUA_GB_ZWJ && next == CLUA_GB_EXTENDED_PICTOGRAPHIC && state->pictographic == 2) breaks = 0;
    else if (previous == CLUA_GB_REGIONAL_INDICATOR && next == CLUA_GB_REGIONAL_INDICATOR && state->regional % 2 == 1)
        breaks = 0;
    else breaks = 1;
    state->regional = next == CLUA_GB_REGIONAL_INDICATOR ? state->regional + 1 : 0;
    if (next == CLUA_GB_EXTENDED_PICTOGRAPHIC) state->pictographic = 1;
    else if (next == CLUA_GB_EXTEND && state->pictographic == 1) state->pictographic = 1;
    else if (next == CLUA_GB_ZWJ && state->pictographic == 1) state->pictographic = 2;
    else state->pictographic = 0;
    state->previous = next;
    return breaks;
}

/// Calls `visit(start, context)` with the byte offset of each character's start, in order, and
/// returns how many characters `s` has; stops early when `visit` returns 0. Stack: [-0, +0, v]
static size_t clua_text_characters(lua_State *L, const char *function, const unsigned char *s, size_t length,
                                   int (*visit)(size_t, void *), void *context) {
    clua_text_breaks state = {CLUA_GB_OTHER, 0, 0};
    size_t characters = 0;
    int64_t steps = 0;
    size_t at = 0;
    while (at < length) {
        size_t start = at;
        uint32_t cp = clua_text_next(L, function, s, length, &at);
        clua_text_step(L, &steps, 1);
        if (clua_text_breaks_before(&state, clua_text_break_property(cp), start == 0)) {
            characters++;
            if (visit != NULL && !visit(start, context)) break;
        }
    }
    clua_sandbox_charge(L, steps);
    return characters;
}

/// `text.len(s)`: how many characters `s` has. Stack: [-1, +1, v]
static int clua_text_len(lua_State *L) {
    size_t length = 0;
    const unsigned char *s = (const unsigned char *)luaL_checklstring(L, 1, &length);
    lua_pushinteger(L, (lua_Integer)clua_text_characters(L, "len", s, length, NULL, NULL));
    return 1;
}

/// What `text.sub` looks for: the byte offsets where character `first` starts and where
/// character `past` (the one after the last taken) starts.
typedef struct {
    size_t first, past, seen;
    size_t first_at, past_at;
} clua_text_cut;

static int clua_text_cut_visit(size_t start, void *context) {
    clua_text_cut *cut = (clua_text_cut *)context;
    cut->seen++;
    if (cut->seen == cut->first) cut->first_at = start;
    if (cut->seen == cut->past) {
        cut->past_at = start;
        return 0;
    }
    return 1;
}

/// `text.sub(s, i [, j])`: characters `i` to `j` of `s`, counted as `string.sub` counts
/// bytes (from 1; negative from the end; `j` -1 by default). Stack: [-(2|3), +1, v]
static int clua_text_sub(lua_State *L) {
    size_t length = 0;
    const unsigned char *s = (const unsigned char *)luaL_checklstring(L, 1, &length);
    lua_Integer i = luaL_checkinteger(L, 2);
    lua_Integer j = luaL_optinteger(L, 3, -1);
    lua_Integer characters = 0;
    if (i < 0 || j < 0) characters = (lua_Integer)clua_text_characters(L, "sub", s, length, NULL, NULL);
    if (i < 0) i = i < -characters ? 1 : characters + i + 1;
    else if (i == 0) i = 1;
    if (j < 0) j = characters + j + 1;
    if (i > j) {
        lua_pushliteral(L, "");
        return 1;
    }
    clua_text_cut cut = {(size_t)i, (size_t)j + 1, 0, length, length};
    clua_text_characters(L, "sub", s, length, clua_text_cut_visit, &cut);
    if (cut.seen < cut.first) {
        lua_pushliteral(L, "");
        return 1;
    }
    lua_pushlstring(L, (const char *)s + cut.first_at, cut.past_at - cut.first_at);
    return 1;
}

/// `text.trim(s)`: `s` without the white space (Unicode's White_Space: spaces, tabs, line
/// ends, no-break and ideographic spaces) at its start and end. Stack: [-1, +1, v]
static int clua_text_trim(lua_State *L) {
    size_t length = 0;
    const unsigned char *s = (const unsigned char *)luaL_checklstring(L, 1, &length);
    int64_t steps = 0;
    size_t at = 0, start = length, end = 0;
    while (at < length) {
        size_t here = at;
        uint32_t cp = clua_text_next(L, "trim", s, length, &at);
        clua_text_step(L, &steps, 1);
        if (!clua_text_is_space(cp)) {
            if (start == length) start = here;
            end = at;
        }
    }
    clua_sandbox_charge(L, steps);
    if (start >= end) lua_pushliteral(L, "");
    else lua_pushlstring(L, (const char *)s + start, end - start);
    return 1;
}

const luaL_Reg clua_text_functions[] = {
    {"upper", clua_text_upper_function},
    {"lower", clua_text_lower_function},
    {"normalize", clua_text_normalize},
    {"len", clua_text_len},
    {"sub", clua_text_sub},
    {"trim", clua_text_trim},
    {NULL, NULL},
};

/// The Unicode version of the tables, for `text.unicode`.
const char *const clua_text_unicode_version = CLUA_TEXT_UNICODE_VERSION;
