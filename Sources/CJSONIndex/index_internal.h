// The part of building an index every kernel shares: from the six masks of a 64-byte block to
// its index entries. A kernel only classifies bytes; this works out what is escaped, what is in
// a string, where runs of other bytes start, and checks what it can.
#ifndef CJSON_INDEX_INTERNAL_H
#define CJSON_INDEX_INTERNAL_H

#include "json_index.h"

#include <string.h>

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
    int backslashes;          // the parity of a run of backslashes that reached its end
    size_t escapes_done;      // escapes before this offset were checked with a \u pair before them
    int string_escapes;       // the string open at the block's end holds a backslash so far
    int utf8_need;            // continuation bytes still owed by a sequence the block before started
    int utf8_low, utf8_high;  // the range the next continuation byte must be in
    int invalid;
} cjson_state;

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
/// backslash escapes the byte after it (two backslashes are one escaped backslash). Runs are few,
/// so they are walked one by one. A run that reaches the block's end carries its parity over.
static inline uint64_t cjson_escaped(uint64_t backslash, cjson_state *state) {
    uint64_t escaped = 0;
    int carry = state->backslashes;
    state->backslashes = 0;
    if (carry && !(backslash & 1)) {
        escaped |= 1;
        carry = 0;
    }
    while (backslash) {
        int start = __builtin_ctzll(backslash);
        uint64_t from = backslash >> start;
        int length = from == UINT64_MAX ? 64 : __builtin_ctzll(~from);
        int parity = length & 1;
        if (start == 0 && carry) parity ^= 1;
        uint64_t run = length == 64 ? UINT64_MAX : ((1ULL << length) - 1) << start;
        backslash &= ~run;
        if (start + length >= 64) {
            state->backslashes = parity;
            break;
        }
        if (parity) escaped |= 1ULL << (start + length);
    }
    return escaped;
}

/// The closing quotes (among `quotes`) of strings that hold a backslash: each string's quotes
/// walked in order, a string open at the block's start carrying what it held so far. Called only
/// for a block with a backslash in a string, or one whose open string had one.
static inline uint64_t cjson_escaped_closes(uint64_t quotes, uint64_t in_string, uint64_t backslashes,
                                            cjson_state *state) {
    uint64_t closes = 0;
    int held = state->string_escapes;
    uint64_t since = UINT64_MAX;  // the bits after the quote before (all of them before the first)
    while (quotes) {
        int at = __builtin_ctzll(quotes);
        uint64_t bit = 1ULL << at;
        quotes &= quotes - 1;
        if (in_string & bit) {
            held = 0;  // an opening quote
        } else if (held || (backslashes & (bit - 1) & since)) {
            closes |= bit;
        }
        since = ~((bit - 1) | bit);
    }
    // The string still open at the end: what it holds from its quote (or the block's start) on.
    state->string_escapes = (int)(in_string >> 63) && (held || (backslashes & since));
    return closes;
}

/// The index entries of a block whose masks are `m` and whose prefix parity of unescaped quotes
/// is computed by `prefix` (a carry-less multiply where the machine has one). Appends to
/// `out[*n...]` (room for 64 is there) and checks strings' control characters and escapes.
#define CJSON_BLOCK(m, prefix, state, bytes, count, base, out, n)                                          \
    do {                                                                                                   \
        uint64_t escaped_ = (m).backslash || (state)->backslashes ? cjson_escaped((m).backslash, (state)) \
                                                                  : 0;                                     \
        uint64_t quotes_ = (m).quote & ~escaped_;                                                          \
        uint64_t in_string_ = prefix(quotes_) ^ (state)->in_string;                                       \
        (state)->in_string = (uint64_t)((int64_t)in_string_ >> 63);                                       \
        if ((m).control & in_string_) (state)->invalid = 1;                                                \
        /* Each escaped byte's escape is checked; a \u pair once. */                                       \
        uint64_t escapes_ = escaped_;                                                                      \
        while (escapes_) {                                                                                 \
            size_t at_ = (base) + (size_t)__builtin_ctzll(escapes_) - 1;                                   \
            escapes_ &= escapes_ - 1;                                                                      \
            if (at_ + 1 >= (state)->escapes_done && !cjson_check_escape((bytes), (count), at_, (state)))   \
                (state)->invalid = 1;                                                                      \
        }                                                                                                  \
        uint64_t outside_ = ~in_string_;                                                                   \
        uint64_t other_ = outside_ & ~((m).space | (m).op | quotes_);                                      \
        uint64_t starts_ = other_ & ~((other_ << 1) | (state)->other);                                     \
        (state)->other = other_ >> 63;                                                                     \
        uint64_t entries_ = ((m).op & outside_) | quotes_ | starts_;                                       \
        uint64_t inside_backslashes_ = (m).backslash & in_string_;                                         \
        uint64_t flagged_ = inside_backslashes_ || (state)->string_escapes                                 \
                                ? cjson_escaped_closes(quotes_, in_string_, inside_backslashes_, (state))  \
                                : 0;                                                                       \
        uint32_t *write_ = (out) + *(n);                                                                   \
        size_t found_ = (size_t)__builtin_popcountll(entries_);                                            \
        while (entries_) {                                                                                 \
            int bit_ = __builtin_ctzll(entries_);                                                          \
            *write_++ = (uint32_t)((base) + (size_t)bit_) | (uint32_t)((flagged_ >> bit_) & 1) << 31;      \
            entries_ &= entries_ - 1;                                                                      \
        }                                                                                                  \
        *(n) += found_;                                                                                    \
    } while (0)

/// The whole text, block by block, a kernel's `masks` function classifying each: the loop every
/// kernel runs (a macro, so that it is compiled, and its helpers inlined, for the kernel's
/// instruction set). The last block is copied into a buffer padded with spaces.
#define CJSON_DEFINE_KERNEL(name, attributes, masks, prefix)                                                \
    attributes static int name(const uint8_t *bytes, size_t start, size_t count, cjson_index *index) {     \
        cjson_state state;                                                                                 \
        memset(&state, 0, sizeof state);                                                                   \
        state.utf8_low = 0x80;                                                                             \
        state.utf8_high = 0xBF;                                                                            \
        size_t n = 0;                                                                                      \
        uint32_t *out = index->positions;                                                                  \
        size_t at = start;                                                                                 \
        for (; at + 64 <= count; at += 64) {                                                               \
            cjson_masks m = masks(bytes + at);                                                             \
            if (m.nonascii || state.utf8_need) cjson_check_utf8(bytes + at, 64, &state);                   \
            CJSON_BLOCK(m, prefix, &state, bytes, count, at, out, &n);                                     \
        }                                                                                                  \
        if (at < count) {                                                                                  \
            uint8_t last[64];                                                                              \
            memset(last, ' ', 64);                                                                         \
            memcpy(last, bytes + at, count - at);                                                          \
            cjson_masks m = masks(last);                                                                   \
            if (m.nonascii || state.utf8_need) cjson_check_utf8(last, count - at, &state);                 \
            CJSON_BLOCK(m, prefix, &state, bytes, count, at, out, &n);                                     \
        }                                                                                                  \
        index->count = n;                                                                                  \
        out[n] = (uint32_t)count;                                                                          \
        if (state.invalid || state.in_string || state.utf8_need || n == 0) return CJSON_INDEX_INVALID;   \
        return CJSON_INDEX_OK;                                                                             \
    }

/// The portable masks, eight bytes a word.
cjson_masks cjson_masks_portable(const uint8_t *block);

#if defined(__x86_64__)
int cjson_kernel_sse42(const uint8_t *bytes, size_t start, size_t count, cjson_index *index);
int cjson_kernel_avx2(const uint8_t *bytes, size_t start, size_t count, cjson_index *index);
#endif
#if defined(__aarch64__)
int cjson_kernel_neon(const uint8_t *bytes, size_t start, size_t count, cjson_index *index);
#endif

#endif
