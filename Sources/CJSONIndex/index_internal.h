// The part of building an index every kernel shares: from the six masks of a 64-byte block to
// its index entries. A kernel only classifies bytes; this works out what is escaped, what is in
// a string, where runs of other bytes start, and checks what it can.
#ifndef CJSON_INDEX_INTERNAL_H
#define CJSON_INDEX_INTERNAL_H

#include "json_index.h"

#include <string.h>

/// Inlined into each kernel, so that it is compiled for the kernel's instruction set.
#define CJSON_INLINE static inline __attribute__((always_inline))

/// One bit per byte of a 64-byte block, bit n for byte n.
typedef struct cjson_masks {
    uint64_t quote;      // "
    uint64_t backslash;  // \ (the escape character)
    uint64_t space;      // the four whitespace bytes JSON allows: space, tab, line feed, carriage return
    uint64_t op;         // { } [ ] : ,
    uint64_t control;    // below 0x20
    uint64_t nonascii;   // 0x80 and above
} cjson_masks;

/// What a block hands the next.
typedef struct cjson_state {
    uint64_t in_string;       // all ones when the block before ended inside a string
    uint64_t other;           // 1 when its last byte was in a run of other bytes
    int backslash_run;        // a run of backslashes reached the block's end
    int backslash_run_before; // (the same of the block before, while a block is worked out)
    int backslashes;          // that run's parity so far
    size_t escapes_done;      // escapes before this offset were checked with a \u pair before them
    int string_escapes;       // the string open at the block's end holds a backslash so far
    int utf8_need;            // continuation bytes still owed by a sequence the block before started
    int utf8_low, utf8_high;  // the range the next continuation byte must be in
    int invalid;
} cjson_state;

/// The bytes a one-letter escape may have after its backslash: `" \\ / b f n r t`.
extern const uint8_t cjson_simple_escapes[256];

/// Each byte's value as a hex digit, or 0xFF for a byte that is none.
extern const uint8_t cjson_hex_digits[256];

/// Checks the escape whose backslash is at `at` (the escaped byte at `at + 1`); a \u pair checks
/// both halves and notes that the second escape is done. Returns 0 for an invalid escape.
int cjson_check_escape(const uint8_t *bytes, size_t count, size_t at, cjson_state *state);

/// Checks the UTF-8 of a block (`length` bytes at `block`), carrying a sequence over blocks.
void cjson_check_utf8(const uint8_t *block, size_t length, cjson_state *state);

/// Each bit set in `x` and all below it toggled: bit n is the parity of bits 0...n.
static inline uint64_t cjson_prefix_xor(uint64_t x) {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    return x;
}

/// The bytes an odd run of backslashes escapes: a run's length decides whether its last
/// backslash escapes the byte after it (two backslashes are one escaped backslash). From the
/// paper's arithmetic: adding a run's first bit to the mask carries through the run and lands on
/// the byte after it; the run is odd when that byte's position and the run's start differ in
/// parity, so runs starting at even and at odd positions are added apart and each kept where the
/// landing position has the other parity. A run open at the block's start counts from the start
/// it had (its parity so far decides which set it joins); one that reaches the block's end
/// carries its parity over.
CJSON_INLINE uint64_t cjson_escaped(uint64_t backslash, cjson_state *state) {
    const uint64_t even = 0x5555555555555555ULL, odd = ~even;
    uint64_t escaped = 0;
    uint64_t starts = backslash & ~(backslash << 1);
    uint64_t even_starts = starts & even, odd_starts = starts & odd;
    if (state->backslash_run) {
        // The run before continues at bit 0 (or ended with the block: byte 0 is after it).
        if (backslash & 1) {
            if (state->backslashes) {
                even_starts &= ~1ULL;
                odd_starts |= 1;
            }
        } else if (state->backslashes) {
            escaped |= 1;
        }
    }
    uint64_t after_even = (backslash + even_starts) & ~backslash;
    uint64_t after_odd = (backslash + odd_starts) & ~backslash;
    escaped |= (after_even & odd) | (after_odd & even);
    // The run that reaches the block's end, if one does: its parity so far.
    state->backslash_run = (int)(backslash >> 63);
    if (state->backslash_run) {
        int length = backslash == UINT64_MAX ? 64 : __builtin_clzll(~backslash);
        state->backslashes = (length == 64 && state->backslash_run_before ? state->backslashes : 0) ^ (length & 1);
    } else {
        state->backslashes = 0;
    }
    return escaped;
}

/// The closing quotes of strings that hold a backslash: adding the backslashes of strings to the
/// mask of strings carries each string that holds one through to the byte after it, its closing
/// quote. A string open at the block's start that held one gets a carry at bit 0; one still open
/// at the end carries out of bit 63 to the next block.
CJSON_INLINE uint64_t cjson_escaped_closes(uint64_t in_string, uint64_t backslashes, cjson_state *state) {
    // The carry out of the block before lands on bit 0: the string goes on (carry it through), or
    // bit 0 is its closing quote.
    uint64_t carried = state->string_escapes ? 1 : 0;
    uint64_t sum;
    int out = __builtin_add_overflow(in_string, backslashes | (carried & in_string), &sum);
    state->string_escapes = out;
    return (sum & ~in_string) | (carried & ~in_string);
}

/// Writes the offsets of `entries` (bits of the block at `base`) at `write`, four a turn
/// whatever the count (room for 67 is there: what lies past the count is written over), then
/// marks with CJSON_INDEX_ESCAPES the entries `flagged` names (a few closing quotes).
CJSON_INLINE void cjson_write_entries(uint32_t *write, uint64_t entries, uint64_t flagged, size_t base) {
    const uint64_t top = 1ULL << 63;  // a stand-in bit once `entries` is spent (its write is past the count)
    uint64_t remaining = entries;
    uint32_t *at = write;
    while (remaining) {
        at[0] = (uint32_t)(base + (size_t)__builtin_ctzll(remaining | top));
        remaining &= remaining - 1;
        at[1] = (uint32_t)(base + (size_t)__builtin_ctzll(remaining | top));
        remaining &= remaining - 1;
        at[2] = (uint32_t)(base + (size_t)__builtin_ctzll(remaining | top));
        remaining &= remaining - 1;
        at[3] = (uint32_t)(base + (size_t)__builtin_ctzll(remaining | top));
        remaining &= remaining - 1;
        at += 4;
    }
    while (flagged) {
        uint64_t bit = flagged & (0 - flagged);
        flagged ^= bit;
        write[__builtin_popcountll(entries & (bit - 1))] |= CJSON_INDEX_ESCAPES;
    }
}

/// Of a block whose masks are `m`: the escaped bytes (`*escaped`) and the quotes that are no
/// escapes, whose prefix parity the kernel works out next (a carry-less multiply where the
/// machine has one).
CJSON_INLINE uint64_t cjson_unescaped_quotes(cjson_masks m, cjson_state *state, uint64_t *escaped) {
    state->backslash_run_before = state->backslash_run;
    *escaped = m.backslash || state->backslash_run ? cjson_escaped(m.backslash, state) : 0;
    return m.quote & ~*escaped;
}

/// No escape settled by vector compares (the kernels that check each escape one by one).
CJSON_INLINE uint64_t cjson_no_settled_escapes(const uint8_t *block, uint64_t escaped) {
    (void)block;
    (void)escaped;
    return 0;
}

/// The rest of a block, given its quotes and their prefix parity: the checks of strings
/// (control characters, escapes); returns the block's entries, and the closing quotes of
/// strings with escapes among them (`*flagged`), which the kernel writes. `settled`: escaped
/// bytes the kernel already found valid (`cjson_no_settled_escapes`' contract: a subset of
/// `escaped` whose escapes are one-letter ones, or \u and four hex digits that are no surrogate).
CJSON_INLINE uint64_t cjson_finish_block(cjson_masks m, uint64_t quotes, uint64_t parity, uint64_t escaped,
                                         uint64_t settled, cjson_state *state, const uint8_t *bytes, size_t count,
                                         size_t base, uint64_t *flagged) {
    uint64_t in_string = parity ^ state->in_string;
    state->in_string = (uint64_t)((int64_t)in_string >> 63);
    if (m.control & in_string) state->invalid = 1;
    escaped &= ~settled;
    // Each other escaped byte's escape is checked (a one-letter one by a table); a \u pair once.
    while (escaped) {
        size_t at = base + (size_t)__builtin_ctzll(escaped);
        escaped &= escaped - 1;
        if (at < count && cjson_simple_escapes[bytes[at]]) continue;
        if (at < state->escapes_done) continue;  // the low half of a \u pair, checked with the high
        // A \u of one code unit that is no surrogate: four hex digits.
        if (at + 5 <= count && bytes[at] == 'u') {
            uint32_t a = cjson_hex_digits[bytes[at + 1]], b = cjson_hex_digits[bytes[at + 2]];
            uint32_t c = cjson_hex_digits[bytes[at + 3]], d = cjson_hex_digits[bytes[at + 4]];
            if (!((a | b | c | d) & 0xF0) && (a != 0xD || b < 8)) continue;
        }
        if (!cjson_check_escape(bytes, count, at - 1, state)) state->invalid = 1;
    }
    uint64_t outside = ~in_string;
    uint64_t other = outside & ~(m.space | m.op | quotes);
    uint64_t starts = other & ~((other << 1) | state->other);
    state->other = other >> 63;
    uint64_t entries = (m.op & outside) | quotes | starts;
    uint64_t inside_backslashes = m.backslash & in_string;
    *flagged = inside_backslashes || state->string_escapes ? cjson_escaped_closes(in_string, inside_backslashes, state)
                                                             : 0;
    return entries;
}

/// The whole text, a kernel's `masks` function classifying its blocks: the loop every kernel
/// runs (a macro, so that it is compiled, and its helpers inlined, for the kernel's instruction
/// set). Blocks are classified 32 at a time into an array, then indexed: the classifying loop
/// calls nothing, so the vector constants stay in registers. The last block is copied into a
/// buffer padded with spaces.
#define CJSON_CHUNK 32
#define CJSON_DEFINE_KERNEL(name, attributes, masks, prefix) \
    CJSON_DEFINE_KERNEL_WRITING(name, attributes, masks, prefix, cjson_write_entries, cjson_no_settled_escapes)
/// The same, with `write` writing a block's entries (`cjson_write_entries`' contract) and
/// `settle` checking what escapes it can with vector compares (`cjson_no_settled_escapes`').
#define CJSON_DEFINE_KERNEL_WRITING(name, attributes, masks, prefix, write, settle)                        \
    attributes static int name(const uint8_t *bytes, size_t start, size_t count, cjson_index *index) {     \
        cjson_state state;                                                                                 \
        memset(&state, 0, sizeof state);                                                                   \
        state.utf8_low = 0x80;                                                                             \
        state.utf8_high = 0xBF;                                                                            \
        size_t n = 0;                                                                                      \
        uint32_t *out = index->positions;                                                                  \
        cjson_masks chunk[CJSON_CHUNK];                                                                    \
        uint8_t last[64];                                                                                  \
        size_t at = start;                                                                                 \
        while (at < count) {                                                                               \
            size_t blocks = 0;                                                                             \
            for (; blocks < CJSON_CHUNK && at + 64 * (blocks + 1) <= count; blocks++)                      \
                chunk[blocks] = masks(bytes + at + 64 * blocks);                                           \
            size_t whole = blocks;                                                                         \
            if (blocks < CJSON_CHUNK && at + 64 * blocks < count) {                                        \
                size_t rest = count - (at + 64 * blocks);                                                  \
                memset(last, ' ', 64);                                                                     \
                memcpy(last, bytes + at + 64 * blocks, rest);                                              \
                chunk[blocks++] = masks(last);                                                             \
            }                                                                                              \
            for (size_t b = 0; b < blocks; b++) {                                                          \
                size_t base = at + 64 * b;                                                                 \
                cjson_masks m = chunk[b];                                                                  \
                if (m.nonascii || state.utf8_need)                                                         \
                    cjson_check_utf8(b < whole ? bytes + base : last, b < whole ? 64 : count - base, &state); \
                uint64_t flagged, escaped, quotes = cjson_unescaped_quotes(m, &state, &escaped);            \
                uint64_t settled = escaped ? settle(b < whole ? bytes + base : last, escaped) : 0;         \
                uint64_t entries = cjson_finish_block(m, quotes, prefix(quotes), escaped, settled, &state, bytes, \
                                                      count, base, &flagged);                              \
                write(out + n, entries, flagged, base);                                                    \
                n += (size_t)__builtin_popcountll(entries);                                                \
            }                                                                                              \
            at += 64 * blocks;                                                                             \
        }                                                                                                  \
        index->count = n;                                                                                  \
        out[n] = (uint32_t)count;                                                                          \
        if (state.invalid || state.in_string || state.utf8_need || n == 0) return CJSON_INDEX_INVALID;   \
        return CJSON_INDEX_OK;                                                                             \
    }

/// The portable masks, eight bytes a word.
cjson_masks cjson_masks_portable(const uint8_t *block);

/// The kernels (json_index.c chooses one): the portable one runs everywhere.
int cjson_kernel_portable(const uint8_t *bytes, size_t start, size_t count, cjson_index *index);

#if defined(__x86_64__)
int cjson_kernel_sse42(const uint8_t *bytes, size_t start, size_t count, cjson_index *index);
int cjson_kernel_avx2(const uint8_t *bytes, size_t start, size_t count, cjson_index *index);
int cjson_kernel_avx512(const uint8_t *bytes, size_t start, size_t count, cjson_index *index);
#endif
#if defined(__aarch64__)
int cjson_kernel_neon(const uint8_t *bytes, size_t start, size_t count, cjson_index *index);
#endif

#endif
