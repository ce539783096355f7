// The sandbox: a call's input as views over its JSON text.
// Stack effects are written as sandbox.c says.
//
// The host hands a transformer's object or array as JSON text (wire tag CLUA_WIRE_TEXT); the
// script gets a view of it, a userdata that reads like the table it would otherwise be: a
// member is found and converted when the script reads it (`v.user.name`, `#v.tags`, `ipairs`,
// `pairs`, `next`, `json.type`), so a script that reads three fields of a record pays for three.
//
// - An object view's first reads walk its members (through the record's structural index when
//   the host published one, else its bytes) comparing key bytes, and build nothing; past
//   CLUA_VIEW_LAZY_LOOKUPS lookups of one view, or on the first iteration (`pairs`, `next`,
//   `#`, writing it back changed), it is indexed: one pass keeps where each key and value is,
//   and a hash table finds a key in it. A key written twice is an issue where it is read: a
//   lookup of that key, or an iteration over the object, fails the call (which value counts is
//   a reader's guess); a key written twice that the script never reads changes nothing. A
//   container nested past CLUA_MAX_DEPTH is refused when it is reached: the host checks
//   neither beforehand, so a script pays only for what it reads. An array view keeps where
//   each element is.
// - Writing to a view copies on write: what is assigned is kept beside the text (`slots`, the
//   view's first user value) and read before it; a nested view read once is kept there too, so
//   `v.user.name = x` changes what `v` returns, and `v.user == v.user`.
// - A view lives as long as its call: the text is the host's, reused by the next call. Every
//   access checks the view's generation against the sandbox's (bumped when a call starts and
//   ends), so a view kept in an upvalue or a global fails with a message instead of reading
//   memory that holds something else now.
// - Scanning is charged to the instruction budget (a member, or 64 bytes, a step), and the
//   index is allocated by the interpreter's allocator: every limit holds.
// - Returned unchanged, a view goes back as its text (CLUA_WIRE_TEXT), or as the input itself
//   (CLUA_WIRE_INPUT) when it is the whole input; changed, it is written member by member.
#define _GNU_SOURCE
#include "sandbox_internal.h"

#include "json_index.h"
#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/// The view's user values.
enum { CLUA_VIEW_SLOTS = 1, CLUA_VIEW_INDEX = 2 };

/// A view: where its text is, which call it belongs to, what is known of it.
typedef struct clua_view {
    const uint8_t *start, *end;  // the container's text, its brackets included
    uint64_t generation;         // the sandbox's generation when the view was made
    int32_t count;               // members or elements; -1 until indexed
    int32_t cursor;              // the position `next` gave last, or -1
    int32_t table_size;          // an object index's hash table slots (a power of 2)
    int32_t first_duplicate;     // an indexed object's first member whose key is written twice, or -1
    int depth;                   // 0 for the call's input
    uint8_t is_array, changed;   // `changed`: assigned to
    uint8_t lookups;             // lookups that walked the members, before the view is indexed
    uint32_t entry;              // its opening bracket's entry in the record's index + 1; 0: not known yet
} clua_view;

/// One member (or element) of an indexed view, as offsets from the view's start.
typedef struct clua_view_entry {
    uint32_t key, key_length;    // the key's bytes between its quotes (objects)
    uint32_t value, value_end;   // the value's text
    uint32_t hash;               // of the key's decoded bytes
    uint8_t escaped;             // the key holds escapes
    uint8_t duplicated;          // another member of the object has the same key
    uint32_t at;                 // the value's first entry in the record's index + 1; 0: not known
} clua_view_entry;

/// The block a view's members are kept in (its CLUA_VIEW_INDEX user value): this header, the
/// entries, then an object's hash table. Kept for the record too when the view was read through
/// the record's index, so the header says what it describes.
typedef struct clua_view_index_block {
    uint64_t length;     // the container's text, in bytes
    int64_t steps;       // what building it was charged: charged again when a later call reuses it
    int32_t count;       // entries
    int32_t table_size;  // hash table slots after the entries (0 for an array)
    int32_t first_duplicate;  // the first entry whose key is written twice, or -1
    uint8_t is_array;
} clua_view_index_block;

/// How many lookups of one small object view walk its members before the view is indexed, and
/// how many index entries (about four a member) make an object small. Why, measured on the
/// actual statuses of the benchmark's twitter shape (callgrind, instructions a record): a walk
/// compares key bytes and allocates nothing, but walks every member per lookup (so that a key
/// written twice is found); an index hashes each key once, allocates a table, and is kept for
/// the record's next calls. Walking the status (about 25 members, read 3 times) and its user
/// (about 40, read 5 times in two calls) cost 11,000 instructions a record more than indexing
/// them; a small object (a hashtag, a URL, read once or twice) costs less walked.
#define CLUA_VIEW_LAZY_LOOKUPS 4
#define CLUA_VIEW_WALK_ENTRIES 40

/// The most bytes of member tables a record keeps for its next calls; past it, tables are built
/// per call as before; why: a record with many containers read one call each must not fill the
/// interpreter's memory with tables no later call reads.
#define CLUA_VIEW_CACHE_BYTES ((size_t)1 << 20)

/// The slot value of a member assigned `nil`.
static char clua_view_deleted;
#define CLUA_VIEW_DELETED ((void *)&clua_view_deleted)

// MARK: Reading JSON text

/// Raises the refusal of a host text that is not what the host promised (a host bug).
static int clua_text_malformed(lua_State *L) {
    return luaL_error(L, "the host's encoding of the value is malformed (a bug)");
}

static inline const uint8_t *clua_text_space(const uint8_t *p, const uint8_t *end) {
    while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) p++;
    return p;
}

/// Whether any byte of `word` is `byte`.
static inline int clua_word_has(uint64_t word, uint8_t byte) {
    uint64_t x = word ^ (0x0101010101010101ull * byte);
    return ((x - 0x0101010101010101ull) & ~x & 0x8080808080808080ull) != 0;
}

/// `p` at a string's opening quote: where the string ends (after its closing quote), or NULL
/// when the text is cut; `*escaped` is set when it holds an escape.
static const uint8_t *clua_text_string_end(const uint8_t *p, const uint8_t *end, int *escaped) {
    p++;
    for (;;) {
        while (end - p >= 8) {
            uint64_t word;
            memcpy(&word, p, 8);
            if (clua_word_has(word, '"') || clua_word_has(word, '\\')) break;
            p += 8;
        }
        if (p >= end) return NULL;
        if (*p == '"') return p + 1;
        if (*p == '\\') {
            *escaped = 1;
            p += 2;
        } else {
            p++;
        }
    }
}

/// `p` at a value: where it ends, or NULL when the text is cut.
static const uint8_t *clua_text_skip(const uint8_t *p, const uint8_t *end) {
    if (p >= end) return NULL;
    int escaped = 0;
    if (*p == '"') return clua_text_string_end(p, end, &escaped);
    if (*p != '{' && *p != '[') {
        while (p < end && *p != ',' && *p != '}' && *p != ']' && *p != ' ' && *p != '\n' && *p != '\r' && *p != '\t')
            p++;
        return p;
    }
    int depth = 0;
    while (p < end) {
        // Eight bytes at a time past what is neither a quote nor a bracket (`[` and `{`, `]` and
        // `}` differ by 0x20 alone, so two tests find all four).
        while (end - p >= 8) {
            uint64_t word;
            memcpy(&word, p, 8);
            uint64_t folded = word | 0x2020202020202020ull;
            if (clua_word_has(word, '"') || clua_word_has(folded, '{') || clua_word_has(folded, '}')) break;
            p += 8;
        }
        if (p >= end) break;
        uint8_t c = *p;
        if (c == '"') {
            p = clua_text_string_end(p, end, &escaped);
            if (p == NULL) return NULL;
            continue;
        }
        if (c == '{' || c == '[') {
            depth++;
        } else if (c == '}' || c == ']') {
            if (--depth == 0) return p + 1;
        }
        p++;
    }
    return NULL;
}

static int clua_hex4(const uint8_t *p, const uint8_t *end, uint32_t *value) {
    if (end - p < 4) return 0;
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
        uint8_t c = p[i];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= (uint32_t)(c - '0');
        else if (c >= 'a' && c <= 'f') v |= (uint32_t)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= (uint32_t)(c - 'A' + 10);
        else return 0;
    }
    *value = v;
    return 1;
}

/// Decodes the escape at `*at` (its backslash) into UTF-8 in `out`: the bytes written, or -1
/// when it is malformed (a lone surrogate too: the parser refuses those).
static int clua_text_escape(const uint8_t **at, const uint8_t *end, uint8_t out[4]) {
    const uint8_t *p = *at;
    if (end - p < 2) return -1;
    *at = p + 2;
    switch (p[1]) {
    case '"': out[0] = '"'; return 1;
    case '\\': out[0] = '\\'; return 1;
    case '/': out[0] = '/'; return 1;
    case 'b': out[0] = '\b'; return 1;
    case 'f': out[0] = '\f'; return 1;
    case 'n': out[0] = '\n'; return 1;
    case 'r': out[0] = '\r'; return 1;
    case 't': out[0] = '\t'; return 1;
    case 'u': break;
    default: return -1;
    }
    uint32_t scalar;
    if (!clua_hex4(p + 2, end, &scalar)) return -1;
    *at = p + 6;
    if (scalar >= 0xDC00 && scalar <= 0xDFFF) return -1;
    if (scalar >= 0xD800 && scalar <= 0xDBFF) {
        const uint8_t *q = *at;
        uint32_t low;
        if (end - q < 6 || q[0] != '\\' || q[1] != 'u' || !clua_hex4(q + 2, end, &low) || low < 0xDC00 || low > 0xDFFF)
            return -1;
        *at = q + 6;
        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00);
    }
    if (scalar < 0x80) {
        out[0] = (uint8_t)scalar;
        return 1;
    }
    if (scalar < 0x800) {
        out[0] = (uint8_t)(0xC0 | (scalar >> 6));
        out[1] = (uint8_t)(0x80 | (scalar & 0x3F));
        return 2;
    }
    if (scalar < 0x10000) {
        out[0] = (uint8_t)(0xE0 | (scalar >> 12));
        out[1] = (uint8_t)(0x80 | ((scalar >> 6) & 0x3F));
        out[2] = (uint8_t)(0x80 | (scalar & 0x3F));
        return 3;
    }
    out[0] = (uint8_t)(0xF0 | (scalar >> 18));
    out[1] = (uint8_t)(0x80 | ((scalar >> 12) & 0x3F));
    out[2] = (uint8_t)(0x80 | ((scalar >> 6) & 0x3F));
    out[3] = (uint8_t)(0x80 | (scalar & 0x3F));
    return 4;
}

/// Pushes the string whose text (between its quotes) is `p..<end`. Stack: [-0, +1, v]
static void clua_text_push_string(lua_State *L, const uint8_t *p, const uint8_t *end, int escaped) {
    if (!escaped) {
        lua_pushlstring(L, (const char *)p, (size_t)(end - p));
        return;
    }
    luaL_Buffer buffer;
    luaL_buffinit(L, &buffer);
    while (p < end) {
        const uint8_t *plain = p;
        while (p < end && *p != '\\') p++;
        luaL_addlstring(&buffer, (const char *)plain, (size_t)(p - plain));
        if (p >= end) break;
        uint8_t bytes[4];
        int count = clua_text_escape(&p, end, bytes);
        if (count < 0) clua_text_malformed(L);
        luaL_addlstring(&buffer, (const char *)bytes, (size_t)count);
    }
    luaL_pushresult(&buffer);
}

/// The C locale, for reading and printing numbers whatever locale the host set.
static locale_t clua_c_locale;
static pthread_once_t clua_c_locale_once = PTHREAD_ONCE_INIT;
static void clua_make_c_locale(void) { clua_c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0); }

/// A decimal number's value as sign, significant digits (no leading or trailing zeros) and the
/// exponent of its last digit; why: two spellings of one value compare equal.
typedef struct clua_decimal {
    int negative;
    size_t count;
    long exponent;
    char *digits;  // room for as many digits as the text has
} clua_decimal;

static int clua_decimal_read(const char *text, size_t length, clua_decimal *out) {
    size_t i = 0;
    out->negative = 0;
    out->count = 0;
    out->exponent = 0;
    if (i < length && text[i] == '-') {
        out->negative = 1;
        i++;
    }
    long fraction = 0;
    int seen_point = 0;
    for (; i < length; i++) {
        char c = text[i];
        if (c == '.') {
            seen_point = 1;
        } else if (c >= '0' && c <= '9') {
            if (seen_point) fraction++;
            if (out->count == 0 && c == '0') continue;
            out->digits[out->count++] = c;
        } else {
            break;
        }
    }
    long exponent = 0;
    if (i < length && (text[i] == 'e' || text[i] == 'E')) {
        i++;
        int negative = 0;
        if (i < length && (text[i] == '+' || text[i] == '-')) negative = text[i++] == '-';
        for (; i < length; i++) {
            if (text[i] < '0' || text[i] > '9' || exponent > 1000000) return 0;
            exponent = exponent * 10 + (text[i] - '0');
        }
        if (negative) exponent = -exponent;
    }
    out->exponent = exponent - fraction;
    while (out->count > 0 && out->digits[out->count - 1] == '0') {
        out->count--;
        out->exponent++;
    }
    if (out->count == 0) out->exponent = 0;
    return 1;
}

static int clua_decimal_equal(const clua_decimal *a, const clua_decimal *b) {
    return a->negative == b->negative && a->count == b->count && a->exponent == b->exponent
        && memcmp(a->digits, b->digits, a->count) == 0;
}

/// Whether the literal `text` is the shortest decimal of the double it reads as, in value:
/// what the parser calls an exact double; `*value` is that double. Why: the bridge gives a
/// script a float only where no digit of the payload is lost.
static int clua_literal_is_exact(const char *text, size_t length, double *value) {
    pthread_once(&clua_c_locale_once, clua_make_c_locale);
    locale_t previous = clua_c_locale ? uselocale(clua_c_locale) : (locale_t)0;
    *value = strtod(text, NULL);
    int exact = 0;
    if (isfinite(*value)) {
        char shortest[40];
        for (int precision = 1; precision <= 17; precision++) {
            snprintf(shortest, sizeof shortest, "%.*e", precision - 1, *value);
            if (strtod(shortest, NULL) == *value) break;
        }
        char inline_digits[2][64];
        char *digits = length < sizeof inline_digits[1] ? inline_digits[1] : (char *)malloc(length + 1);
        if (digits != NULL) {
            clua_decimal a = {.digits = inline_digits[0]}, b = {.digits = digits};
            exact = clua_decimal_read(shortest, strlen(shortest), &a) && clua_decimal_read(text, length, &b)
                && clua_decimal_equal(&a, &b);
            if (digits != inline_digits[1]) free(digits);
        }
    }
    if (previous) uselocale(previous);
    return exact;
}

/// Pushes the number whose literal is `p..<end` as the bridge always gave it: an integer when
/// written whole and in range (not `-0`), a float when the nearest double reads back as the
/// same decimal value (`1.5`, `1.0`, `1e2`), else a string of the literal. Stack: [-0, +1, v]
static void clua_text_push_number(lua_State *L, const uint8_t *p, const uint8_t *end) {
    size_t length = (size_t)(end - p);
    int whole = 1;
    for (const uint8_t *c = p; c < end; c++)
        if (*c == '.' || *c == 'e' || *c == 'E') whole = 0;
    if (whole && !(length == 2 && p[0] == '-' && p[1] == '0')) {
        const uint8_t *c = p;
        int negative = *c == '-';
        if (negative) c++;
        uint64_t magnitude = 0;
        int fits = c < end;
        for (; c < end && fits; c++) {
            if (*c < '0' || *c > '9') {
                clua_text_malformed(L);
                return;
            }
            uint64_t digit = (uint64_t)(*c - '0');
            if (magnitude > (UINT64_MAX - digit) / 10) fits = 0;
            else magnitude = magnitude * 10 + digit;
        }
        if (fits && magnitude <= (negative ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX)) {
            lua_pushinteger(L, negative ? (lua_Integer)(0 - magnitude) : (lua_Integer)magnitude);
            return;
        }
    }
    char inline_text[64];
    char *text = length < sizeof inline_text ? inline_text : (char *)malloc(length + 1);
    if (text == NULL) {
        clua_sandbox_trip(L, CLUA_MEMORY);
        return;
    }
    memcpy(text, p, length);
    text[length] = 0;
    double value = 0;
    int exact = clua_literal_is_exact(text, length, &value);
    if (text != inline_text) free(text);
    if (exact) lua_pushnumber(L, (lua_Number)value);
    else lua_pushlstring(L, (const char *)p, length);
}

// MARK: Views

/// Whether the value at `index` is a view. Stack: [-0, +0, -]
int clua_view_is(lua_State *L, int index) {
    if (lua_type(L, index) != LUA_TUSERDATA || !lua_getmetatable(L, index)) return 0;
    int is = lua_topointer(L, -1) == clua_sandbox_of(L)->view_mt;
    lua_pop(L, 1);
    return is;
}

/// The view at `index` (known to be one), checked to belong to the running call. Stack: [-0, +0, v]
static clua_view *clua_view_check(lua_State *L, int index) {
    clua_view *view = (clua_view *)lua_touserdata(L, index);
    if (view->generation != clua_sandbox_of(L)->generation)
        luaL_error(L, "this value belongs to an earlier call (a script kept it past the call it was given to); "
                      "keep json.copy(value) instead");
    return view;
}

/// Pushes a new view of the container whose text is `start..<end`; the view. Stack: [-0, +1, m]
static clua_view *clua_view_push(lua_State *L, const uint8_t *start, const uint8_t *end, int depth) {
    clua_sandbox *s = clua_sandbox_of(L);
    // `depth` counts the containers around this one: it is level depth + 1.
    if (depth >= CLUA_MAX_DEPTH)
        luaL_error(L, "the value nests deeper than %d levels, more than a script is given", CLUA_MAX_DEPTH);
    clua_view *view = (clua_view *)lua_newuserdatauv(L, sizeof(clua_view), 2);
    view->start = start;
    view->end = end;
    view->generation = s->generation;
    view->count = -1;
    view->cursor = -1;
    view->table_size = 0;
    view->first_duplicate = -1;
    view->depth = depth;
    view->is_array = *start == '[';
    view->changed = 0;
    view->lookups = 0;
    view->entry = 0;
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->view_mt_ref);
    lua_setmetatable(L, -2);
    return view;
}

/// Pushes the value whose text is `p..<end`: a scalar as its Lua value, a container as a view.
/// Stack: [-0, +1, v]
static void clua_text_push(lua_State *L, const uint8_t *p, const uint8_t *end, int depth) {
    if (p >= end) clua_text_malformed(L);
    switch (*p) {
    case '{':
    case '[': clua_view_push(L, p, end, depth); return;
    case '"': {
        int escaped = 0;
        const uint8_t *after = clua_text_string_end(p, end, &escaped);
        if (after == NULL) clua_text_malformed(L);
        clua_text_push_string(L, p + 1, after - 1, escaped);
        return;
    }
    case 't': lua_pushboolean(L, 1); return;
    case 'f': lua_pushboolean(L, 0); return;
    case 'n': lua_pushlightuserdata(L, (void *)clua_sandbox_of(L)); return;
    default: clua_text_push_number(L, p, end); return;
    }
}

/// Pushes the value a wire's text (CLUA_WIRE_TEXT) holds: a scalar, or a view of the call's input.
/// The host vouches for the text (valid JSON, nested at most CLUA_MAX_DEPTH levels: deeper values
/// come as plain wire, refused in clua_wire_push), so only its ends are checked here; every read
/// of it is bounded all the same. Returns CLUA_PUSH_OK, or CLUA_PUSH_MALFORMED. Stack: [-0, +(0|1), v]
int clua_text_push_input(lua_State *L, const uint8_t *start, const uint8_t *end) {
    start = clua_text_space(start, end);
    while (end > start && (end[-1] == ' ' || end[-1] == '\n' || end[-1] == '\r' || end[-1] == '\t')) end--;
    if (start >= end) return CLUA_PUSH_MALFORMED;
    if ((*start == '{' && end[-1] != '}') || (*start == '[' && end[-1] != ']')) return CLUA_PUSH_MALFORMED;
    clua_text_push(L, start, end, 0);
    return CLUA_PUSH_OK;
}

/// The hash of a key's bytes, eight at a time; why: an object's index hashes every key.
static inline uint32_t clua_hash_key(const uint8_t *bytes, size_t count) {
    uint64_t hash = 0x9E3779B97F4A7C15ull ^ (uint64_t)count;
    size_t left = count;
    while (left > 8) {
        uint64_t word;
        memcpy(&word, bytes, 8);
        hash = (hash ^ word) * 0x100000001B3ull;
        hash ^= hash >> 29;
        bytes += 8;
        left -= 8;
    }
    // The last 1 to 8 bytes in loads of fixed sizes (overlapping where fewer): no call to
    // memcpy per key; the length, mixed in above, tells the overlaps apart.
    uint64_t last = 0;
    if (left == 8) {
        memcpy(&last, bytes, 8);
    } else if (left >= 4) {
        uint32_t head, tail;
        memcpy(&head, bytes, 4);
        memcpy(&tail, bytes + left - 4, 4);
        last = (uint64_t)head << 32 | tail;
    } else if (left > 0) {
        last = (uint64_t)bytes[0] | (uint64_t)bytes[left / 2] << 8 | (uint64_t)bytes[left - 1] << 16;
    }
    hash = (hash ^ last) * 0x100000001B3ull;
    return (uint32_t)(hash ^ (hash >> 32));
}

/// The hash of a key written with escapes, as its decoded bytes hash. Stack: [-0, +0, m]
static uint32_t clua_hash_escaped(lua_State *L, const uint8_t *p, const uint8_t *end) {
    clua_text_push_string(L, p, end, 1);
    size_t length = 0;
    const uint8_t *bytes = (const uint8_t *)lua_tolstring(L, -1, &length);
    uint32_t hash = clua_hash_key(bytes, length);
    lua_pop(L, 1);
    return hash;
}

/// Whether an entry's key is the bytes `want`.
static int clua_key_equals(const clua_view *view, const clua_view_entry *entry, const uint8_t *want, size_t length) {
    const uint8_t *p = view->start + entry->key, *end = p + entry->key_length;
    if (!entry->escaped) return entry->key_length == length && memcmp(p, want, length) == 0;
    size_t at = 0;
    while (p < end) {
        if (*p != '\\') {
            if (at >= length || want[at++] != *p++) return 0;
            continue;
        }
        uint8_t bytes[4];
        int count = clua_text_escape(&p, end, bytes);
        if (count < 0 || at + (size_t)count > length || memcmp(want + at, bytes, (size_t)count) != 0) return 0;
        at += (size_t)count;
    }
    return at == length;
}

/// How many entries an index pass keeps on the C stack before it moves them to a block the
/// interpreter's allocator holds.
#define CLUA_VIEW_INLINE_ENTRIES 64

/// Walks of a view's members through a record's index on this thread (a lookup's walk, or the
/// pass that indexes it; a table kept from an earlier call of the record is no walk); why: per
/// thread, so that lanes counting their views never share a cache line.
static _Thread_local uint64_t clua_views_indexed;

uint64_t clua_views_indexed_total(void) { return clua_views_indexed; }

/// The entries an index pass has found so far: on the C stack while they are few, then in a
/// block the interpreter's allocator holds (a userdata at the top of the stack).
typedef struct clua_view_builder {
    clua_view_entry *found;
    size_t capacity;
    int spilled;
    uint32_t count;
    int64_t steps;    // charged when the pass ends, or when the block grows
    int64_t charged;  // charged already, when the block grew
    clua_view_entry inline_entries[CLUA_VIEW_INLINE_ENTRIES];
} clua_view_builder;

/// Moves the entries found so far to a block twice as large (the stack's first, then a userdata
/// the interpreter's allocator holds); why: out of line, so the common case stays small.
/// Stack: [-(0|1), +1, m]
__attribute__((noinline)) static void clua_view_grow_entries(lua_State *L, clua_view_builder *builder) {
    size_t capacity = builder->capacity;
    if (capacity > (size_t)INT32_MAX / (4 * sizeof(clua_view_entry))) clua_text_malformed(L);
    clua_view_entry *grown = (clua_view_entry *)lua_newuserdatauv(L, 2 * capacity * sizeof(clua_view_entry), 0);
    memcpy(grown, builder->found, capacity * sizeof(clua_view_entry));
    if (builder->spilled) lua_remove(L, -2);
    builder->found = grown;
    builder->capacity = capacity * 2;
    builder->spilled = 1;
    clua_sandbox_charge(L, builder->steps);
    builder->charged += builder->steps;
    builder->steps = 0;
}

/// The next entry to fill, the block grown when it is full. Stack: [-(0|1), +(0|1), m]
static inline clua_view_entry *clua_view_next_entry(lua_State *L, clua_view_builder *builder) {
    if (builder->count == builder->capacity) clua_view_grow_entries(L, builder);
    clua_view_entry *entry = &builder->found[builder->count];
    entry->escaped = 0;
    entry->key = entry->key_length = 0;
    entry->hash = 0;
    return entry;
}

/// A walk over a container's members through its bytes, one at a time (for a container the
/// record's index does not cover: clua_view_walk_indexed is the walk through it).
typedef struct clua_members {
    const uint8_t *start, *end;  // the container's text
    const uint8_t *p;            // at the next member
    uint8_t done, is_array;
} clua_members;

/// Starts a walk of the view's members through its bytes.
static void clua_members_bytes(clua_members *m, const clua_view *view) {
    m->start = view->start;
    m->end = view->end;
    m->is_array = view->is_array;
    m->p = clua_text_space(view->start + 1, view->end);
    m->done = m->p < m->end && *m->p == (view->is_array ? ']' : '}');
}

/// Starts a walk of the view's members through the record's index; 0 when there is none that
/// covers the view, or it does not describe the text as expected (the bytes are read then).
/// The entry of the record's index where the view's opening bracket is (found once, by a
/// binary search, unless the walk that found the view knew it), or -1 when the record's index
/// does not cover the view.
static ptrdiff_t clua_view_first_entry(clua_sandbox *s, clua_view *view) {
    const uint8_t *text = s->indexed_text;
    if (text == NULL || view->start < text || view->end > s->indexed_end) return -1;
    const uint32_t *positions = s->positions;
    size_t entries = s->indexed_entries, origin = s->indexed_origin;
    size_t want = origin + (size_t)(view->start - text);
    if (view->entry != 0) {
        size_t known = view->entry - 1;
        if (known < entries && (positions[known] & CJSON_INDEX_OFFSET) == want) return (ptrdiff_t)known;
    }
    size_t low = 0, high = entries;
    while (low < high) {
        size_t middle = (low + high) / 2;
        if ((positions[middle] & CJSON_INDEX_OFFSET) < want) low = middle + 1;
        else high = middle;
    }
    if (low >= entries || (positions[low] & CJSON_INDEX_OFFSET) != want || low >= UINT32_MAX) return -1;
    view->entry = (uint32_t)low + 1;
    return (ptrdiff_t)low;
}

/// The next member of a walk through the bytes into `entry` (its key's and value's places;
/// no hash): 1, or 0 at the end. Stack: [-0, +0, v]
static int clua_members_next_bytes(lua_State *L, clua_members *m, clua_view_entry *entry, int64_t *steps) {
    if (m->done) return 0;
    const uint8_t *start = m->start, *end = m->end, *p = m->p;
    entry->escaped = 0;
    entry->key = entry->key_length = 0;
    if (!m->is_array) {
        int escaped = 0;
        if (p >= end || *p != '"') clua_text_malformed(L);
        const uint8_t *key_end = clua_text_string_end(p, end, &escaped);
        if (key_end == NULL) clua_text_malformed(L);
        entry->key = (uint32_t)(p + 1 - start);
        entry->key_length = (uint32_t)(key_end - 1 - (p + 1));
        entry->escaped = (uint8_t)escaped;
        p = clua_text_space(key_end, end);
        if (p >= end || *p != ':') clua_text_malformed(L);
        p = clua_text_space(p + 1, end);
    }
    const uint8_t *after = clua_text_skip(p, end);
    if (after == NULL) clua_text_malformed(L);
    entry->at = 0;
    entry->value = (uint32_t)(p - start);
    entry->value_end = (uint32_t)(after - start);
    *steps += 1 + (after - p) / 64;
    p = clua_text_space(after, end);
    if (p < end && *p == ',') {
        m->p = clua_text_space(p + 1, end);
        return 1;
    }
    if (p >= end || *p != (m->is_array ? ']' : '}')) clua_text_malformed(L);
    m->done = 1;
    return 1;
}

/// A view's place in the structural index of the record the call's input came from: the
/// index, and the view's text as offsets in the record (its brackets at `low` and `high - 1`).
typedef struct clua_index_walk {
    const uint32_t *positions;
    const uint64_t *matches;
    const uint8_t *text;  // the record's bytes from `origin` on
    size_t entries, origin, low, high;
    uint32_t generation;
} clua_index_walk;

/// The record offset of entry `k` into `*offset`: 0 when the entry is past the index or not
/// inside the view (after its opening bracket), which refuses the index.
static inline __attribute__((always_inline)) int clua_index_offset(const clua_index_walk *w, size_t k,
                                                                   size_t *offset) {
    if (k >= w->entries) return 0;
    *offset = w->positions[k] & CJSON_INDEX_OFFSET;
    return *offset > w->low && *offset < w->high;
}

/// The byte at record offset `offset`.
static inline __attribute__((always_inline)) uint8_t clua_index_byte(const clua_index_walk *w, size_t offset) {
    return w->text[offset - w->origin];
}

/// The key whose opening quote is entry `i` into `entry` (its place, its escapes): 0 when the
/// index does not describe a key and its colon there.
static inline __attribute__((always_inline)) int clua_index_key(const clua_index_walk *w, size_t i,
                                                                clua_view_entry *entry) {
    size_t open, close, colon;
    if (!clua_index_offset(w, i, &open) || !clua_index_offset(w, i + 1, &close)
        || !clua_index_offset(w, i + 2, &colon))
        return 0;
    if (clua_index_byte(w, open) != '"' || clua_index_byte(w, close) != '"' || clua_index_byte(w, colon) != ':'
        || close <= open)
        return 0;
    entry->key = (uint32_t)(open + 1 - w->low);
    entry->key_length = (uint32_t)(close - open - 1);
    entry->escaped = (w->positions[i + 1] & CJSON_INDEX_ESCAPES) != 0;
    return 1;
}

/// The value that starts at entry `*i` into `entry` (its text's place and first entry), `*i`
/// moved past it: a nested container passed by the entry that closes it, as the host's walk
/// of the record found it (walked to otherwise). 0 when the index does not describe a value.
static inline __attribute__((always_inline)) int clua_index_value(const clua_index_walk *w, size_t *i,
                                                                  clua_view_entry *entry, int64_t *steps) {
    size_t at = *i, value, end;
    if (!clua_index_offset(w, at, &value)) return 0;
    entry->at = at < UINT32_MAX ? (uint32_t)at + 1 : 0;
    uint8_t c = clua_index_byte(w, value);
    if (c == '"') {
        if (!clua_index_offset(w, at + 1, &end) || clua_index_byte(w, end) != '"') return 0;
        end++;
        *i = at + 2;
    } else if (c == '{' || c == '[') {
        uint64_t match = w->matches != NULL ? w->matches[at] : 0;
        size_t j = (uint32_t)match;
        if (w->matches == NULL || (uint32_t)(match >> 32) != w->generation || j <= at) {
            int depth = 0;
            for (j = at;; j++) {
                size_t q;
                if (!clua_index_offset(w, j, &q)) return 0;
                uint8_t d = clua_index_byte(w, q);
                if (d == '{' || d == '[') depth++;
                else if ((d == '}' || d == ']') && --depth == 0) break;
            }
        }
        if (!clua_index_offset(w, j, &end) || clua_index_byte(w, end) != (c == '{' ? '}' : ']')) return 0;
        end++;
        *steps += (int64_t)(j - at) / 8;
        *i = j + 1;
    } else {
        // A number or literal ends where the next entry (a comma or a bracket) is, before any
        // whitespace.
        if (!clua_index_offset(w, at + 1, &end)) return 0;
        while (end > value) {
            uint8_t b = clua_index_byte(w, end - 1);
            if (b != ' ' && b != '\n' && b != '\r' && b != '\t') break;
            end--;
        }
        *i = at + 1;
    }
    entry->value = (uint32_t)(value - w->low);
    entry->value_end = (uint32_t)(end - w->low);
    return 1;
}

static int clua_view_refuse_duplicate(lua_State *L, const clua_view *view, const clua_view_entry *entry);

/// Walks the view's members through the structural index of the record the call's input came
/// from (published by the host's record tape: `cjson_index_published`): a member is its index
/// entries, a nested container is passed by its matching entry, never its bytes. With a
/// `builder`, collects every member (and its key's hash) into it: 0. Without, finds the member
/// `want` of an object comparing key bytes, building nothing: 1 with it in `*found`, or 0; the
/// whole object is walked, so that the key written twice is refused. -1 when the record's
/// index does not cover the view or describe it as expected (its bytes are walked then).
/// Inlined, so that each use is compiled for its own. Stack: [-0, +(0|1), m]
static inline __attribute__((always_inline)) int clua_view_walk_indexed(lua_State *L, clua_sandbox *s,
                                                                        clua_view *view, const uint8_t *want,
                                                                        size_t length, clua_view_entry *found,
                                                                        clua_view_builder *builder) {
    ptrdiff_t first = clua_view_first_entry(s, view);
    if (first < 0) return -1;
    clua_index_walk w = {s->positions, s->matches, s->indexed_text, s->indexed_entries, s->indexed_origin, 0, 0,
                         s->matches_generation};
    w.low = w.origin + (size_t)(view->start - w.text);
    w.high = w.low + (size_t)(view->end - view->start);
    size_t i = (size_t)first + 1, o;
    const uint8_t close_bracket = view->is_array ? ']' : '}';
    int64_t steps = 0;
    int hits = 0;
    if (!clua_index_offset(&w, i, &o)) return -1;
    for (int empty = clua_index_byte(&w, o) == close_bracket; !empty;) {
        clua_view_entry entry = {0};
        int hit = 0;
        if (!view->is_array) {
            if (!clua_index_key(&w, i, &entry)) return -1;
            const uint8_t *key = view->start + entry.key;
            if (builder != NULL)
                entry.hash = entry.escaped ? clua_hash_escaped(L, key, key + entry.key_length)
                                           : clua_hash_key(key, entry.key_length);
            else
                hit = entry.escaped ? clua_key_equals(view, &entry, want, length)
                                    : entry.key_length == length
                        && (length == 0 || (key[0] == want[0] && memcmp(key, want, length) == 0));
            i += 3;
        }
        if (!clua_index_value(&w, &i, &entry, &steps)) return -1;
        steps += 1;
        if (builder != NULL) {
            *clua_view_next_entry(L, builder) = entry;
            builder->count++;
        } else if (hit) {
            if (hits++) {
                clua_sandbox_charge(L, steps);
                clua_view_refuse_duplicate(L, view, &entry);
            }
            *found = entry;
        }
        if (!clua_index_offset(&w, i, &o)) return -1;
        if (clua_index_byte(&w, o) != ',') break;
        i++;
    }
    if (clua_index_byte(&w, o) != close_bracket || o != w.high - 1) return -1;
    clua_views_indexed++;
    if (builder != NULL) {
        builder->steps += steps;
        return 0;
    }
    clua_sandbox_charge(L, steps);
    return hits;
}

/// Finds the view's members, through the record's index when it covers the view (its table may
/// then be kept for the record's next calls: returns 1), else through its bytes (returns 0).
/// Stack: [-0, +(0|1), m]
static int clua_view_collect(lua_State *L, clua_view *view, clua_view_builder *builder) {
    if (clua_view_walk_indexed(L, clua_sandbox_of(L), view, NULL, 0, NULL, builder) >= 0) return 1;
    builder->count = 0;
    builder->steps = 0;
    clua_members m;
    clua_members_bytes(&m, view);
    for (;;) {
        clua_view_entry entry;
        if (!clua_members_next_bytes(L, &m, &entry, &builder->steps)) return 0;
        const uint8_t *key = view->start + entry.key;
        entry.hash = 0;
        entry.duplicated = 0;
        if (!view->is_array)
            entry.hash = entry.escaped ? clua_hash_escaped(L, key, key + entry.key_length) : clua_hash_key(key, entry.key_length);
        *clua_view_next_entry(L, builder) = entry;
        builder->count++;
    }
}

/// The members an earlier call of the same record kept for the view (at record offset
/// `offset`), pushed, and the view told what they are; NULL (nothing pushed) when there are
/// none. They are charged as building them is: a call's cost does not depend on the calls
/// before it. Stack: [-0, +(0|1), m]
static clua_view_index_block *clua_view_cached(lua_State *L, clua_sandbox *s, clua_view *view, lua_Integer offset) {
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->view_cache_ref);
    if (lua_rawgeti(L, -1, offset) == LUA_TUSERDATA) {
        clua_view_index_block *block = (clua_view_index_block *)lua_touserdata(L, -1);
        if (block->length == (uint64_t)(view->end - view->start) && block->is_array == view->is_array) {
            lua_remove(L, -2);
            clua_sandbox_charge(L, block->steps);
            view->count = block->count;
            view->table_size = block->table_size;
            view->first_duplicate = block->first_duplicate;
            return block;
        }
    }
    lua_pop(L, 2);
    return NULL;
}

/// Fills an object's hash table (`table_size` positions after the entries, -1 where empty),
/// each member by its key; a key found twice marks both members, refused where they are read,
/// and the block's first such member. Stack: [-0, +0, m]
static void clua_view_table(lua_State *L, const clua_view *view, clua_view_index_block *block) {
    clua_view_entry *entries = (clua_view_entry *)(block + 1);
    int32_t count = block->count, table_size = block->table_size;
    int32_t *table = (int32_t *)(entries + count);
    for (int32_t i = 0; i < table_size; i++) table[i] = -1;
    for (int32_t i = count - 1; i >= 0; i--) {
        clua_view_entry *entry = &entries[i];
        uint32_t slot = entry->hash & (uint32_t)(table_size - 1);
        for (;;) {
            int32_t there = table[slot];
            if (there < 0) {
                table[slot] = i;
                break;
            }
            clua_view_entry *other = &entries[there];
            if (other->hash == entry->hash) {
                // The same hash: compare the keys' decoded bytes.
                const uint8_t *key = view->start + entry->key;
                clua_text_push_string(L, key, key + entry->key_length, entry->escaped);
                size_t length = 0;
                const uint8_t *bytes = (const uint8_t *)lua_tolstring(L, -1, &length);
                if (clua_key_equals(view, other, bytes, length)) {
                    entry->duplicated = other->duplicated = 1;
                    block->first_duplicate = i;  // the loop goes down: the last found is the first
                }
                lua_pop(L, 1);
            }
            slot = (slot + 1) & (uint32_t)(table_size - 1);
        }
    }
}

/// The view's entries and, for an object, its hash table (`table_size` positions after the
/// entries, -1 where empty): built on the first read, in one pass over the text.
/// Stack: [-0, +0, m]
static clua_view_entry *clua_view_index(lua_State *L, int index, clua_view *view) {
    if (view->count >= 0) {
        lua_getiuservalue(L, index, CLUA_VIEW_INDEX);
        clua_view_index_block *block = (clua_view_index_block *)lua_touserdata(L, -1);
        lua_pop(L, 1);
        return (clua_view_entry *)(block + 1);
    }
    index = lua_absindex(L, index);
    clua_sandbox *s = clua_sandbox_of(L);
    // The record offset of a view of the published record: where an earlier call of the same
    // record may have kept this container's members.
    lua_Integer cached = -1;
    if (s->indexed_text != NULL && view->start >= s->indexed_text && view->end <= s->indexed_end) {
        cached = (lua_Integer)(s->indexed_origin + (size_t)(view->start - s->indexed_text));
        clua_view_index_block *block = clua_view_cached(L, s, view, cached);
        if (block != NULL) {
            lua_setiuservalue(L, index, CLUA_VIEW_INDEX);
            return (clua_view_entry *)(block + 1);
        }
    }
    clua_view_builder builder;
    builder.found = builder.inline_entries;
    builder.capacity = CLUA_VIEW_INLINE_ENTRIES;
    builder.spilled = 0;
    builder.count = 0;
    builder.steps = 0;
    builder.charged = 0;
    if (!clua_view_collect(L, view, &builder)) cached = -1;  // kept only when read through the record's index
    uint32_t count = builder.count;
    clua_sandbox_charge(L, builder.steps);
    int32_t table_size = 0;
    if (!view->is_array) {
        table_size = 8;
        while ((uint32_t)table_size < 2 * count) table_size *= 2;
    }
    size_t size =
        sizeof(clua_view_index_block) + (size_t)count * sizeof(clua_view_entry) + (size_t)table_size * sizeof(int32_t);
    clua_view_index_block *block = (clua_view_index_block *)lua_newuserdatauv(L, size, 0);
    block->length = (uint64_t)(view->end - view->start);
    block->steps = builder.charged + builder.steps;
    block->count = (int32_t)count;
    block->table_size = table_size;
    block->first_duplicate = -1;
    block->is_array = view->is_array;
    clua_view_entry *entries = (clua_view_entry *)(block + 1);
    if (count) memcpy(entries, builder.found, (size_t)count * sizeof(clua_view_entry));
    if (builder.spilled) lua_remove(L, -2);
    if (!view->is_array) clua_view_table(L, view, block);
    if (cached >= 0 && s->view_cache_bytes + size <= CLUA_VIEW_CACHE_BYTES) {
        s->view_cache_bytes += size;
        lua_rawgeti(L, LUA_REGISTRYINDEX, s->view_cache_ref);
        lua_pushvalue(L, -2);
        lua_rawseti(L, -2, cached);
        lua_pop(L, 1);
    }
    lua_setiuservalue(L, index, CLUA_VIEW_INDEX);
    view->count = (int32_t)count;
    view->table_size = table_size;
    view->first_duplicate = block->first_duplicate;
    return entries;
}

/// The position of the member with key `want` in an indexed object view, or -1.
static int32_t clua_view_find(const clua_view *view, const clua_view_entry *entries, const uint8_t *want, size_t length) {
    if (view->table_size == 0) return -1;
    uint32_t hash = clua_hash_key(want, length);
    const int32_t *table = (const int32_t *)(entries + view->count);
    uint32_t slot = hash & (uint32_t)(view->table_size - 1);
    for (;;) {
        int32_t there = table[slot];
        if (there < 0) return -1;
        if (entries[there].hash == hash && clua_key_equals(view, &entries[there], want, length)) return there;
        slot = (slot + 1) & (uint32_t)(view->table_size - 1);
    }
}

/// The element position an array key names (1-based key → 0-based position), or -1.
static int32_t clua_view_position(lua_State *L, const clua_view *view, int key) {
    lua_Integer k;
    if (lua_isinteger(L, key)) {
        k = lua_tointeger(L, key);
    } else if (lua_type(L, key) == LUA_TNUMBER) {
        lua_Number number = lua_tonumber(L, key);
        if (!(number >= 1 && number <= (lua_Number)view->count) || !lua_numbertointeger(number, &k)
            || (lua_Number)k != number)
            return -1;
    } else {
        return -1;
    }
    return k >= 1 && k <= view->count ? (int32_t)(k - 1) : -1;
}

/// Pushes the key of member `position` (a string), or its index (an element). Stack: [-0, +1, m]
static void clua_view_push_key(lua_State *L, const clua_view *view, const clua_view_entry *entries, int32_t position) {
    if (view->is_array) {
        lua_pushinteger(L, (lua_Integer)position + 1);
        return;
    }
    const clua_view_entry *entry = &entries[position];
    clua_text_push_string(L, view->start + entry->key, view->start + entry->key + entry->key_length, entry->escaped);
}

/// Pushes the value of the member `entry` of the view at `index`: a scalar, or a nested view,
/// which is kept in the slots under its key (the value at `key`) so that the same view (and
/// what is written to it) comes back. Stack: [-0, +1, m]
static void clua_view_push_entry(lua_State *L, int index, clua_view *view, const clua_view_entry *entry, int key) {
    const uint8_t *p = view->start + entry->value, *end = view->start + entry->value_end;
    if (*p != '{' && *p != '[') {
        clua_text_push(L, p, end, view->depth + 1);
        return;
    }
    index = lua_absindex(L, index);
    key = lua_absindex(L, key);
    clua_view_push(L, p, end, view->depth + 1)->entry = entry->at;
    if (lua_getiuservalue(L, index, CLUA_VIEW_SLOTS) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_createtable(L, 0, 4);
        lua_pushvalue(L, -1);
        lua_setiuservalue(L, index, CLUA_VIEW_SLOTS);
    }
    lua_pushvalue(L, key);
    lua_pushvalue(L, -3);
    lua_rawset(L, -3);
    lua_pop(L, 1);
}

/// Pushes the value of member `position` of the view at `index` (see clua_view_push_entry).
/// Stack: [-0, +1, m]
static void clua_view_push_member(lua_State *L, int index, clua_view *view, const clua_view_entry *entries,
                                  int32_t position) {
    const uint8_t *p = view->start + entries[position].value;
    if (*p != '{' && *p != '[') {
        clua_text_push(L, p, view->start + entries[position].value_end, view->depth + 1);
        return;
    }
    index = lua_absindex(L, index);
    clua_view_push_key(L, view, entries, position);
    clua_view_push_entry(L, index, view, &entries[position], -1);
    lua_remove(L, -2);
}

/// Raises the issue of a key written twice in an object, where the script reads it: which
/// value counts is a reader's guess. Stack: [-0, +0, v]
static int clua_view_refuse_duplicate(lua_State *L, const clua_view *view, const clua_view_entry *entry) {
    clua_text_push_string(L, view->start + entry->key, view->start + entry->key + entry->key_length, entry->escaped);
    size_t length = 0;
    const char *bytes = lua_tolstring(L, -1, &length);
    size_t shown = length;
    if (shown > 64) {
        shown = 64;
        while (shown > 0 && ((unsigned char)bytes[shown] & 0xC0) == 0x80) shown--;
    }
    return luaL_error(L, "duplicate key \"%s%s\": an object of the value writes it more than once "
                         "(a reader that takes the first sees another record)",
                      lua_pushlstring(L, bytes, shown), shown < length ? "…" : "");
}

/// Whether the object view spans few entries of the record's index (its closing bracket as the
/// host's walk of the record found it), or few bytes when it is read without that index.
static int clua_view_is_small(lua_State *L, clua_view *view) {
    clua_sandbox *s = clua_sandbox_of(L);
    ptrdiff_t first = clua_view_first_entry(s, view);
    if (first < 0) return view->end - view->start <= 8 * CLUA_VIEW_WALK_ENTRIES;
    if (s->matches == NULL) return 0;
    uint64_t match = s->matches[first];
    size_t close = (uint32_t)match;
    return (uint32_t)(match >> 32) == s->matches_generation && close > (size_t)first
        && close - (size_t)first <= CLUA_VIEW_WALK_ENTRIES;
}

/// Finds the member `want` of an object view that is not indexed by walking its members and
/// comparing key bytes, building nothing: through the record's index when it covers the view,
/// else through its bytes. The whole object is walked, so that the key written twice is
/// refused. 1 with the member in `*found`, or 0. Stack: [-0, +0, v]
static int clua_view_scan(lua_State *L, clua_view *view, const uint8_t *want, size_t length, clua_view_entry *found) {
    int hits = clua_view_walk_indexed(L, clua_sandbox_of(L), view, want, length, found, NULL);
    if (hits >= 0) return hits;
    clua_members m;
    clua_members_bytes(&m, view);
    int64_t steps = 0;
    for (hits = 0;;) {
        clua_view_entry entry;
        if (!clua_members_next_bytes(L, &m, &entry, &steps)) break;
        if (!clua_key_equals(view, &entry, want, length)) continue;
        if (hits++) {
            clua_sandbox_charge(L, steps);
            clua_view_refuse_duplicate(L, view, &entry);
        }
        *found = entry;
    }
    clua_sandbox_charge(L, steps);
    return hits;
}

/// Pushes what the view at `index` holds under the key at `key` (nil when nothing), slots
/// first. Stack: [-0, +1, m]
static void clua_view_get(lua_State *L, int index, int key) {
    index = lua_absindex(L, index);
    key = lua_absindex(L, key);
    clua_view *view = clua_view_check(L, index);
    if (lua_getiuservalue(L, index, CLUA_VIEW_SLOTS) == LUA_TTABLE) {
        lua_pushvalue(L, key);
        if (lua_rawget(L, -2) != LUA_TNIL) {
            lua_remove(L, -2);
            if (lua_touserdata(L, -1) == CLUA_VIEW_DELETED) {
                lua_pop(L, 1);
                lua_pushnil(L);
            }
            return;
        }
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    if (!view->is_array) {
        if (lua_type(L, key) != LUA_TSTRING) {
            lua_pushnil(L);
            return;
        }
        size_t length = 0;
        const uint8_t *want = (const uint8_t *)lua_tolstring(L, key, &length);
        if (view->count < 0 && view->lookups < CLUA_VIEW_LAZY_LOOKUPS && clua_view_is_small(L, view)) {
            view->lookups++;
            clua_view_entry found;
            if (clua_view_scan(L, view, want, length, &found)) clua_view_push_entry(L, index, view, &found, key);
            else lua_pushnil(L);
            return;
        }
        clua_view_entry *entries = clua_view_index(L, index, view);
        int32_t position = clua_view_find(view, entries, want, length);
        if (position < 0) {
            lua_pushnil(L);
            return;
        }
        if (entries[position].duplicated) clua_view_refuse_duplicate(L, view, &entries[position]);
        clua_view_push_entry(L, index, view, &entries[position], key);
        return;
    }
    clua_view_entry *entries = clua_view_index(L, index, view);
    int32_t position = clua_view_position(L, view, key);
    if (position < 0) {
        lua_pushnil(L);
        return;
    }
    clua_view_push_member(L, index, view, entries, position);
}

/// `__index`. Stack: [-2, +1, m]
static int clua_view_meta_index(lua_State *L) {
    clua_view_get(L, 1, 2);
    return 1;
}

/// Keeps `value` under `key` in the view's slots: copy on write. Stack: [-0, +0, v]
static void clua_view_set(lua_State *L, int index, int key, int value) {
    index = lua_absindex(L, index);
    key = lua_absindex(L, key);
    value = lua_absindex(L, value);
    clua_view *view = clua_view_check(L, index);
    if (lua_isnil(L, key)) luaL_error(L, "index is nil");
    if (lua_type(L, key) == LUA_TNUMBER && isnan(lua_tonumber(L, key))) luaL_error(L, "index is NaN");
    if (lua_getiuservalue(L, index, CLUA_VIEW_SLOTS) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_createtable(L, 0, 4);
        lua_pushvalue(L, -1);
        lua_setiuservalue(L, index, CLUA_VIEW_SLOTS);
    }
    // A float key with an integer value is that integer, as in a table.
    if (lua_type(L, key) == LUA_TNUMBER && !lua_isinteger(L, key)) {
        lua_Number number = lua_tonumber(L, key);
        lua_Integer integer;
        if (lua_numbertointeger(number, &integer) && (lua_Number)integer == number) lua_pushinteger(L, integer);
        else lua_pushvalue(L, key);
    } else {
        lua_pushvalue(L, key);
    }
    if (lua_isnil(L, value)) lua_pushlightuserdata(L, CLUA_VIEW_DELETED);
    else lua_pushvalue(L, value);
    lua_rawset(L, -3);
    lua_pop(L, 1);
    view->changed = 1;
}

/// `__newindex`. Stack: [-3, +0, v]
static int clua_view_meta_newindex(lua_State *L) {
    clua_view_set(L, 1, 2, 3);
    return 0;
}

/// The length of the view at `index`, as `#` finds it: its elements, extended by what was
/// assigned past them, shortened by what was removed at the end. Stack: [-0, +0, m]
static lua_Integer clua_view_length(lua_State *L, int index) {
    index = lua_absindex(L, index);
    clua_view *view = clua_view_check(L, index);
    lua_Integer length = 0;
    clua_view_entry *entries = clua_view_index(L, index, view);
    if (view->is_array) length = view->count;
    // An object's length is found as an iteration finds its keys: one written twice is read.
    else if (view->first_duplicate >= 0) clua_view_refuse_duplicate(L, view, &entries[view->first_duplicate]);
    if (lua_getiuservalue(L, index, CLUA_VIEW_SLOTS) != LUA_TTABLE) {
        lua_pop(L, 1);
        return length;
    }
    while (length > 0) {
        int kind = lua_rawgeti(L, -1, length);
        int deleted = kind == LUA_TLIGHTUSERDATA && lua_touserdata(L, -1) == CLUA_VIEW_DELETED;
        lua_pop(L, 1);
        if (!deleted) break;
        length--;
    }
    int64_t steps = 0;
    for (;;) {
        int kind = lua_rawgeti(L, -1, length + 1);
        int present = kind != LUA_TNIL && !(kind == LUA_TLIGHTUSERDATA && lua_touserdata(L, -1) == CLUA_VIEW_DELETED);
        lua_pop(L, 1);
        if (!present) break;
        length++;
        if (++steps == 1024) {
            clua_sandbox_charge(L, steps);
            steps = 0;
        }
    }
    lua_pop(L, 1);
    return length;
}

/// `__len`. Stack: [-1, +1, m]
static int clua_view_meta_len(lua_State *L) {
    lua_pushinteger(L, clua_view_length(L, 1));
    return 1;
}

/// Where an iteration of the text's members goes on after the key at `previous` (nil: from
/// the first): the position after that key's, or -1 when the key is none of the text's (one
/// only assigned: the text is done). Stack: [-0, +0, v]
static inline int32_t clua_view_next_position(lua_State *L, clua_view *view, const clua_view_entry *entries,
                                              int previous) {
    if (lua_isnil(L, previous)) return 0;
    int32_t at = -1;
    if (view->is_array) {
        at = clua_view_position(L, view, previous);
    } else if (lua_type(L, previous) == LUA_TSTRING) {
        size_t length = 0;
        const uint8_t *key = (const uint8_t *)lua_tolstring(L, previous, &length);
        if (view->cursor >= 0 && view->cursor < view->count
            && clua_key_equals(view, &entries[view->cursor], key, length))
            at = view->cursor;
        else at = clua_view_find(view, entries, key, length);
    }
    return at >= 0 ? at + 1 : -1;
}

/// The next key only assigned (none of the text's, not deleted) after the key at `previous`, in
/// the view's slots table at `slots`: key and value in place of `previous` and `slots`, 1; or
/// nothing left from `previous` on, 0. Stack: [-2, +(0|2), v]
static int clua_view_next_assigned(lua_State *L, const clua_view *view, const clua_view_entry *entries, int previous,
                                   int slots) {
    lua_pushvalue(L, previous);
    while (lua_next(L, slots)) {
        int in_the_text = 0;
        if (view->is_array) {
            in_the_text = clua_view_position(L, view, -2) >= 0;
        } else if (lua_type(L, -2) == LUA_TSTRING) {
            size_t length = 0;
            const uint8_t *key = (const uint8_t *)lua_tolstring(L, -2, &length);
            in_the_text = clua_view_find(view, entries, key, length) >= 0;
        }
        if (in_the_text || lua_touserdata(L, -1) == CLUA_VIEW_DELETED) {
            lua_pop(L, 1);
            continue;
        }
        lua_replace(L, slots);
        lua_replace(L, previous);
        lua_settop(L, slots);
        return 1;
    }
    lua_settop(L, previous - 1);
    return 0;
}

/// The next key and value of the view at `index` after the key at the top of the stack, which
/// it pops: the text's members in their order, with what was
/// assigned in their place, then the keys only assigned. Returns 0 at the end (nothing pushed).
/// Stack: [-1, +(0|2), v]
static int clua_view_next(lua_State *L, int index) {
    index = lua_absindex(L, index);
    clua_view *view = clua_view_check(L, index);
    clua_view_entry *entries = clua_view_index(L, index, view);
    // An iteration reads every key: one written twice is read.
    if (view->first_duplicate >= 0) clua_view_refuse_duplicate(L, view, &entries[view->first_duplicate]);
    int previous = lua_gettop(L);
    int has_slots = lua_getiuservalue(L, index, CLUA_VIEW_SLOTS) == LUA_TTABLE;
    int slots = lua_gettop(L);
    int32_t position = clua_view_next_position(L, view, entries, previous);
    if (position >= 0) {
        for (; position < view->count; position++) {
            clua_view_push_key(L, view, entries, position);
            if (has_slots) {
                lua_pushvalue(L, -1);
                if (lua_rawget(L, slots) != LUA_TNIL) {
                    if (lua_touserdata(L, -1) == CLUA_VIEW_DELETED) {
                        lua_pop(L, 2);
                        continue;
                    }
                    view->cursor = position;
                    lua_replace(L, previous);
                    lua_replace(L, slots);
                    lua_settop(L, slots);
                    lua_insert(L, previous);
                    return 1;
                }
                lua_pop(L, 1);
            }
            view->cursor = position;
            clua_view_push_member(L, index, view, entries, position);
            lua_replace(L, slots);
            lua_replace(L, previous);
            lua_settop(L, slots);
            return 1;
        }
        // The text is done: the keys only assigned follow.
        lua_pushnil(L);
        lua_replace(L, previous);
    }
    if (!has_slots) {
        lua_settop(L, previous - 1);
        return 0;
    }
    return clua_view_next_assigned(L, view, entries, previous, slots);
}

/// `next(view, key)` for views. Stack: [-2, +(1|2), v]
static int clua_view_meta_next(lua_State *L) {
    lua_settop(L, 2);
    if (clua_view_next(L, 1)) return 2;
    lua_pushnil(L);
    return 1;
}

/// `__pairs`: the view's `next`, the view, nil. Stack: [-1, +3, -]
static int clua_view_meta_pairs(lua_State *L) {
    lua_pushcfunction(L, clua_view_meta_next);
    lua_pushvalue(L, 1);
    lua_pushnil(L);
    return 3;
}

/// `__tostring`: as a table's. Stack: [-1, +1, m]
static int clua_view_meta_tostring(lua_State *L) {
    lua_pushfstring(L, "table: %p", lua_topointer(L, 1));
    return 1;
}

static const luaL_Reg clua_view_metamethods[] = {
    {"__index", clua_view_meta_index},   {"__newindex", clua_view_meta_newindex},
    {"__len", clua_view_meta_len},       {"__pairs", clua_view_meta_pairs},
    {"__tostring", clua_view_meta_tostring}, {NULL, NULL},
};

/// Makes the views' metatable and keeps it in the sandbox. Stack: [-0, +0, m]
void clua_view_setup(lua_State *L, clua_sandbox *s) {
    lua_createtable(L, 0, 8);
    luaL_setfuncs(L, clua_view_metamethods, 0);
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    // Errors name a view as what it stands for ("attempt to index a table value").
    lua_pushliteral(L, "table");
    lua_setfield(L, -2, "__name");
    s->view_mt = lua_topointer(L, -1);
    s->view_mt_ref = luaL_ref(L, LUA_REGISTRYINDEX);
}

// MARK: Functions scripts call

/// `type(v)` for scripts: "table" for a view. Stack: [-1, +1, v]
int clua_sandbox_type(lua_State *L) {
    luaL_checkany(L, 1);
    if (clua_view_is(L, 1)) lua_pushliteral(L, "table");
    else lua_pushstring(L, luaL_typename(L, 1));
    return 1;
}

/// `next(t, k)` for scripts: a view's members too. Stack: [-2, +(1|2), v]
int clua_sandbox_next(lua_State *L) {
    if (clua_view_is(L, 1)) return clua_view_meta_next(L);
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 2);
    if (lua_next(L, 1)) return 2;
    lua_pushnil(L);
    return 1;
}

/// `rawget(t, k)` for scripts: a view reads as with `t[k]`. Stack: [-2, +1, v]
int clua_sandbox_rawget(lua_State *L) {
    if (clua_view_is(L, 1)) {
        luaL_checkany(L, 2);
        clua_view_get(L, 1, 2);
        return 1;
    }
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_checkany(L, 2);
    lua_settop(L, 2);
    lua_rawget(L, 1);
    return 1;
}

/// `rawlen(v)` for scripts: a view's `#`. Stack: [-1, +1, v]
int clua_sandbox_rawlen(lua_State *L) {
    if (clua_view_is(L, 1)) {
        lua_pushinteger(L, clua_view_length(L, 1));
        return 1;
    }
    int kind = lua_type(L, 1);
    luaL_argexpected(L, kind == LUA_TTABLE || kind == LUA_TSTRING, 1, "table or string");
    lua_pushinteger(L, (lua_Integer)lua_rawlen(L, 1));
    return 1;
}

/// `rawset(v, k, x)` on a view: as `v[k] = x`. Stack: [-3, +1, v]
int clua_view_rawset(lua_State *L) {
    luaL_checkany(L, 2);
    luaL_checkany(L, 3);
    clua_view_set(L, 1, 2, 3);
    lua_settop(L, 1);
    return 1;
}

/// Whether the view at `index` is an array. Stack: [-0, +0, -]
int clua_view_is_array(lua_State *L, int index) { return ((clua_view *)lua_touserdata(L, index))->is_array; }

/// Pushes a deep copy of the value at `index`: views and tables become tables marked with their
/// kind (a table's mark is kept); why: `json.copy`, and `log` showing a view.
/// Stack: [-0, +1, v]
void clua_value_copy(lua_State *L, int index, int depth) {
    clua_sandbox *s = clua_sandbox_of(L);
    index = lua_absindex(L, index);
    int is_view = clua_view_is(L, index);
    if (!is_view && lua_type(L, index) != LUA_TTABLE) {
        lua_pushvalue(L, index);
        return;
    }
    if (depth >= CLUA_MAX_DEPTH) luaL_error(L, "json.copy: the value nests deeper than %d levels", CLUA_MAX_DEPTH);
    luaL_checkstack(L, 6, "value too deep");
    // A lookup table's row or nested value: a copy of its cells.
    int behind = is_view ? 0 : clua_tables_push_behind(L, index);
    if (behind < 0) luaL_error(L, "json.copy: a lookup table is not a value (copy a row)");
    if (behind > 0) {
        clua_value_copy(L, -1, depth);
        lua_remove(L, -2);
        return;
    }
    clua_sandbox_charge(L, 1);
    lua_createtable(L, 0, 0);
    int copy = lua_gettop(L);
    lua_pushnil(L);
    for (;;) {
        int more;
        if (is_view) {
            more = clua_view_next(L, index);
        } else {
            more = lua_next(L, index);
        }
        if (!more) break;
        clua_sandbox_charge(L, 1);
        clua_value_copy(L, -1, depth + 1);
        lua_pushvalue(L, -3);
        lua_insert(L, -2);
        lua_rawset(L, copy);
        lua_pop(L, 1);
    }
    if (is_view) {
        lua_rawgeti(L, LUA_REGISTRYINDEX, clua_view_is_array(L, index) ? s->array_mt_ref : s->object_mt_ref);
        lua_setmetatable(L, copy);
    } else if (lua_getmetatable(L, index)) {
        const void *mt = lua_topointer(L, -1);
        if (mt == s->array_mt || mt == s->object_mt) lua_setmetatable(L, copy);
        else lua_pop(L, 1);
    }
}

/// `json.copy(v)`: a deep copy the script may keep or change as it likes. Stack: [-1, +1, v]
int clua_json_copy(lua_State *L) {
    luaL_checkany(L, 1);
    lua_settop(L, 1);
    clua_value_copy(L, 1, 0);
    return 1;
}

// MARK: Writing views back

/// Whether the view at `index` and every view kept in its slots are as their text: nothing
/// assigned anywhere in it. Stack: [-0, +0, m]
static int clua_view_pristine(lua_State *L, int index, int depth) {
    index = lua_absindex(L, index);
    if (((clua_view *)lua_touserdata(L, index))->changed) return 0;
    // Each level holds its slots table, a key and a value: room for them, or "changed" (the
    // writer then goes member by member, and refuses what nests too deep).
    if (depth > CLUA_MAX_DEPTH || !lua_checkstack(L, 4)) return 0;
    if (lua_getiuservalue(L, index, CLUA_VIEW_SLOTS) != LUA_TTABLE) {
        lua_pop(L, 1);
        return 1;
    }
    int slots = lua_gettop(L), pristine = 1;
    lua_pushnil(L);
    while (pristine && lua_next(L, slots)) {
        pristine = clua_view_is(L, -1) && clua_view_pristine(L, -1, depth + 1);
        lua_pop(L, 1);
    }
    lua_settop(L, slots - 1);
    return pristine;
}

/// Appends a value as its JSON text (CLUA_WIRE_TEXT). Returns 0 when the result is full.
static int clua_wire_append_text(clua_call *call, const uint8_t *start, const uint8_t *end) {
    uint8_t tag = CLUA_WIRE_TEXT;
    uint32_t length = (uint32_t)(end - start);
    if ((size_t)(end - start) > UINT32_MAX) return 0;
    return clua_wire_append(call, &tag, 1) && clua_wire_append(call, &length, 4)
        && clua_wire_append(call, start, (size_t)(end - start));
}

static int clua_view_refuse(clua_call *call, const char *message) {
    snprintf(call->message, CLUA_MESSAGE_SIZE, "%s", message);
    return 0;
}

static int clua_view_refuse_size(clua_call *call) {
    snprintf(call->message, CLUA_MESSAGE_SIZE, "the value is too large (more than the result limit of %zu bytes)",
             call->output_limit ? call->output_limit : (size_t)CLUA_MAX_WIRE_BYTES);
    return 0;
}

/// Writes the array view at `index` (its entries `entries`, its slots table at `slots`, which
/// is popped): every assigned key must be an index in 1..length, and none of those removed (a
/// hole); removed past the length is the end taken off. Stack: [-1, +0, v]
static int clua_view_write_array(lua_State *L, clua_call *call, int index, const clua_view *view,
                                 const clua_view_entry *entries, int slots, const void **ancestors, int depth) {
    int ok = 1;
    lua_Integer length = clua_view_length(L, index);
    lua_pushnil(L);
    while (ok && lua_next(L, slots)) {
        int isn = lua_isinteger(L, -2);
        lua_Integer k = isn ? lua_tointeger(L, -2) : 0;
        int removed = lua_touserdata(L, -1) == CLUA_VIEW_DELETED;
        if (!isn || k < 1 || (k <= length && removed) || (k > length && !removed))
            ok = clua_view_refuse(call, "a table marked as an array has keys other than 1..n");
        lua_pop(L, 1);
    }
    if (!ok) {
        lua_settop(L, slots - 1);
        return 0;
    }
    if (length > CLUA_MAX_NODES) {
        lua_settop(L, slots - 1);
        snprintf(call->message, CLUA_MESSAGE_SIZE, "the value is too large (more than %d values)", CLUA_MAX_NODES);
        return 0;
    }
    uint8_t tag = CLUA_WIRE_ARRAY;
    uint32_t count = (uint32_t)length;
    ok = (clua_wire_append(call, &tag, 1) && clua_wire_append(call, &count, 4)) || clua_view_refuse_size(call);
    for (lua_Integer i = 1; i <= length && ok; i++) {
        if (lua_rawgeti(L, slots, i) != LUA_TNIL) {
            ok = clua_wire_write(L, call, -1, ancestors, depth + 1);
        } else if (i <= view->count) {
            ok = clua_wire_append_text(call, view->start + entries[i - 1].value, view->start + entries[i - 1].value_end)
                || clua_view_refuse_size(call);
            if (ok && ++call->nodes > CLUA_MAX_NODES) ok = clua_view_refuse(call, "the value is too large");
        }
        lua_pop(L, 1);
    }
    lua_settop(L, slots - 1);
    return ok;
}

/// Writes the object view at `index` (its slots table at `slots`, popped when it can write
/// it): its members in the text's order, then the keys only assigned. Stack: [-(0|1), +0, v]
static int clua_view_write_object(lua_State *L, clua_call *call, int index, int slots, const void **ancestors,
                                  int depth) {
    int ok = 1;
    uint8_t tag = CLUA_WIRE_OBJECT;
    uint32_t count = 0;
    if (!clua_wire_append(call, &tag, 1)) return clua_view_refuse_size(call);
    size_t count_at = call->output_count;
    if (!clua_wire_append(call, &count, 4)) return clua_view_refuse_size(call);
    lua_pushnil(L);
    while (ok && clua_view_next(L, index)) {
        if (lua_type(L, -2) != LUA_TSTRING) {
            ok = clua_view_refuse(call, "a table marked as an object has keys that are not strings");
            lua_pop(L, 2);
            break;
        }
        size_t length = 0;
        const char *key = lua_tolstring(L, -2, &length);
        uint32_t length32 = (uint32_t)length;
        ok = (clua_wire_append(call, &length32, 4) && clua_wire_append(call, key, length)) || clua_view_refuse_size(call);
        if (ok) ok = clua_wire_write(L, call, -1, ancestors, depth + 1);
        count++;
        lua_pop(L, 1);
    }
    if (ok) memcpy(call->output + count_at, &count, 4);
    lua_settop(L, slots - 1);
    return ok;
}

/// Writes the view at `index` to the output wire: its text when nothing in it changed (the
/// input itself when it is the whole input), else member by member. Returns 0 with
/// `call->message` set when it cannot. Stack: [-0, +0, v]
int clua_view_write(lua_State *L, clua_call *call, int index, const void **ancestors, int depth) {
    index = lua_absindex(L, index);
    clua_view *view = (clua_view *)lua_touserdata(L, index);
    if (view->generation != call->sandbox->generation)
        return clua_view_refuse(call, "it holds a value of an earlier call (keep json.copy(value) instead)");
    if (clua_view_pristine(L, index, 0)) {
        if (view->depth == 0 && depth == 0) {
            uint8_t tag = CLUA_WIRE_INPUT;
            return clua_wire_append(call, &tag, 1) || clua_view_refuse_size(call);
        }
        return clua_wire_append_text(call, view->start, view->end) || clua_view_refuse_size(call);
    }
    luaL_checkstack(L, 8, "value too deep");
    clua_view_entry *entries = clua_view_index(L, index, view);
    lua_getiuservalue(L, index, CLUA_VIEW_SLOTS);
    int slots = lua_gettop(L);
    if (view->is_array) return clua_view_write_array(L, call, index, view, entries, slots, ancestors, depth);
    return clua_view_write_object(L, call, index, slots, ancestors, depth);
}
