// Building an index: the checks every kernel shares, the portable kernel, and the choice of
// kernel at run time.
#include "index_internal.h"

#include <stdlib.h>
#include <stdatomic.h>
#include <string.h>

// MARK: Checks

const uint8_t cjson_simple_escapes[256] = {
    ['"'] = 1, ['\\'] = 1, ['/'] = 1, ['b'] = 1, ['f'] = 1, ['n'] = 1, ['r'] = 1, ['t'] = 1,
};

const uint8_t cjson_hex_digits[256] = {
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
       0,    1,    2,    3,    4,    5,    6,    7,    8,    9, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    0xFF,   10,   11,   12,   13,   14,   15, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    0xFF,   10,   11,   12,   13,   14,   15, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
};

/// The value of four hex digits at `p`, or -1 when one is not a hex digit.
static inline int32_t cjson_hex4(const uint8_t *p) {
    uint32_t a = cjson_hex_digits[p[0]], b = cjson_hex_digits[p[1]], c = cjson_hex_digits[p[2]],
             d = cjson_hex_digits[p[3]];
    if ((a | b | c | d) & 0xF0) return -1;
    return (int32_t)(a << 12 | b << 8 | c << 4 | d);
}

int cjson_check_escape(const uint8_t *bytes, size_t count, size_t at, cjson_state *state) {
    if (at + 1 >= count) return 0;
    switch (bytes[at + 1]) {
    case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't': return 1;
    case 'u': break;
    default: return 0;
    }
    if (at + 6 > count) return 0;
    int32_t unit = cjson_hex4(bytes + at + 2);
    if (unit < 0) return 0;
    if (unit >= 0xDC00 && unit <= 0xDFFF) return 0;  // a low surrogate alone
    if (unit < 0xD800 || unit > 0xDBFF) return 1;
    // A high surrogate: a \u low surrogate must follow at once.
    if (at + 12 > count || bytes[at + 6] != '\\' || bytes[at + 7] != 'u') return 0;
    int32_t low = cjson_hex4(bytes + at + 8);
    if (low < 0xDC00 || low > 0xDFFF) return 0;
    state->escapes_done = at + 12;
    return 1;
}

void cjson_check_utf8(const uint8_t *block, size_t length, cjson_state *state) {
    int need = state->utf8_need, low = state->utf8_low, high = state->utf8_high;
    for (size_t i = 0; i < length; i++) {
        uint8_t c = block[i];
        if (need) {
            if (c < low || c > high) {
                state->invalid = 1;
                return;
            }
            need--;
            low = 0x80;
            high = 0xBF;
            continue;
        }
        if (c < 0x80) continue;
        // RFC 3629: no overlong forms, no surrogates, nothing past U+10FFFF.
        if (c >= 0xC2 && c <= 0xDF) {
            need = 1;
        } else if (c >= 0xE0 && c <= 0xEF) {
            need = 2;
            if (c == 0xE0) low = 0xA0;
            if (c == 0xED) high = 0x9F;
        } else if (c >= 0xF0 && c <= 0xF4) {
            need = 3;
            if (c == 0xF0) low = 0x90;
            if (c == 0xF4) high = 0x8F;
        } else {
            state->invalid = 1;
            return;
        }
    }
    state->utf8_need = need;
    state->utf8_low = low;
    state->utf8_high = high;
}

// MARK: The portable kernel

/// One bit per byte (its high bit) of `x`, gathered into the low eight bits.
static inline uint64_t cjson_gather(uint64_t highs) {
    return ((highs & 0x8080808080808080ULL) * 0x0002040810204081ULL) >> 56;
}

/// The high bit of each byte of `x` that is zero, exactly (no borrow from a neighbour).
static inline uint64_t cjson_zero_bytes(uint64_t x) {
    uint64_t low7 = (x & 0x7F7F7F7F7F7F7F7FULL) + 0x7F7F7F7F7F7F7F7FULL;
    return ~(low7 | x | 0x7F7F7F7F7F7F7F7FULL);
}

static inline uint64_t cjson_equal(uint64_t word, uint8_t byte) {
    return cjson_zero_bytes(word ^ (0x0101010101010101ULL * byte));
}

cjson_masks cjson_masks_portable(const uint8_t *block) {
    cjson_masks m = {0, 0, 0, 0, 0, 0};
    for (int w = 0; w < 8; w++) {
        uint64_t x;
        memcpy(&x, block + 8 * w, 8);
        int shift = 8 * w;
        m.quote |= cjson_gather(cjson_equal(x, '"')) << shift;
        m.backslash |= cjson_gather(cjson_equal(x, '\\')) << shift;
        m.space |= cjson_gather(cjson_equal(x, ' ') | cjson_equal(x, '\t') | cjson_equal(x, '\n') | cjson_equal(x, '\r'))
                   << shift;
        m.op |= cjson_gather(cjson_equal(x, '{') | cjson_equal(x, '}') | cjson_equal(x, '[') | cjson_equal(x, ']')
                             | cjson_equal(x, ':') | cjson_equal(x, ','))
                << shift;
        m.control |= cjson_gather(cjson_zero_bytes(x & 0xE0E0E0E0E0E0E0E0ULL)) << shift;
        m.nonascii |= cjson_gather(x) << shift;
    }
    return m;
}

CJSON_DEFINE_KERNEL(cjson_kernel_portable, , cjson_masks_portable, cjson_prefix_xor)

// MARK: Choosing

typedef int (*cjson_kernel_function)(const uint8_t *, size_t, size_t, cjson_index *);

/// The kernel, or NULL when this machine cannot run it.
static cjson_kernel_function cjson_kernel_function_of(int kernel) {
    switch (kernel) {
    case CJSON_KERNEL_PORTABLE: return cjson_kernel_portable;
#if defined(__x86_64__)
    case CJSON_KERNEL_SSE42:
        __builtin_cpu_init();
        return __builtin_cpu_supports("sse4.2") && __builtin_cpu_supports("pclmul") ? cjson_kernel_sse42 : NULL;
    case CJSON_KERNEL_AVX2:
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("pclmul") ? cjson_kernel_avx2 : NULL;
    case CJSON_KERNEL_AVX512:
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                       __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vbmi") &&
                       __builtin_cpu_supports("avx512vbmi2") &&
                       __builtin_cpu_supports("avx2") &&
                       __builtin_cpu_supports("pclmul")
                   ? cjson_kernel_avx512
                   : NULL;
#endif
#if defined(__aarch64__)
    case CJSON_KERNEL_NEON: return cjson_kernel_neon;
#endif
    default: return NULL;
    }
}

int cjson_index_kernel(void) {
    static int chosen = -1;
    if (chosen < 0) {
        int best = CJSON_KERNEL_PORTABLE;
        for (int kernel = CJSON_KERNEL_SSE42; kernel <= CJSON_KERNEL_AVX512; kernel++)
            if (cjson_kernel_function_of(kernel)) best = kernel;
        // MAPPINGS_JSON_KERNEL=portable|sse42|avx2|neon|avx512 picks a kernel (tests, benchmarks).
        const char *forced = getenv("MAPPINGS_JSON_KERNEL");
        if (forced) {
            static const char *names[] = {"portable", "sse42", "avx2", "neon", "avx512"};
            for (int kernel = 0; kernel < 5; kernel++)
                if (strcmp(forced, names[kernel]) == 0 && cjson_kernel_function_of(kernel)) best = kernel;
        }
        __atomic_store_n(&chosen, best, __ATOMIC_RELAXED);
    }
    return __atomic_load_n(&chosen, __ATOMIC_RELAXED);
}

int cjson_index_build_with(int kernel, const uint8_t *bytes, size_t start, size_t count, cjson_index *index) {
    cjson_kernel_function function = cjson_kernel_function_of(kernel);
    if (!function) return -1;
    if (count >= CJSON_INDEX_OFFSET) return CJSON_INDEX_TOO_LARGE;
    // Room for an entry a byte, a block's worth more, and the sentinel.
    size_t needed = count - start + 65;
    if (index->capacity < needed) {
        size_t capacity = index->capacity ? index->capacity : 1024;
        while (capacity < needed) capacity *= 2;
        uint32_t *positions = realloc(index->positions, capacity * sizeof(uint32_t));
        if (!positions) return CJSON_INDEX_TOO_LARGE;
        index->positions = positions;
        index->capacity = capacity;
    }
    index->count = 0;
    return function(bytes, start, count, index);
}

int cjson_index_build(const uint8_t *bytes, size_t start, size_t count, cjson_index *index) {
    return cjson_index_build_with(cjson_index_kernel(), bytes, start, count, index);
}

void cjson_index_free(cjson_index *index) {
    free(index->positions);
    index->positions = NULL;
    index->count = 0;
    index->capacity = 0;
}

// MARK: The record a thread is mapping

static _Thread_local cjson_index_record cjson_published;
/// Threads that have published a record.
static _Atomic uint64_t cjson_threads_published = 1;
static _Thread_local int cjson_has_published;

void cjson_index_publish(const uint8_t *bytes, size_t count, const cjson_index *index, const uint64_t *matches,
                         uint32_t generation) {
    cjson_published.matches = matches;
    cjson_published.generation = generation;
    cjson_published.bytes = bytes;
    cjson_published.count = count;
    cjson_published.positions = index->positions;
    cjson_published.entries = index->count;
    // Each thread's serials start in a range of their own: a record of a thread that ended is
    // never taken for one of a thread that has its address now.
    if (cjson_published.serial == 0)
        cjson_published.serial = (uint64_t)atomic_fetch_add_explicit(&cjson_threads_published, 1, memory_order_relaxed)
            << 32;
    cjson_published.serial++;
    cjson_has_published = 1;
}

void cjson_index_withdraw(void) { cjson_has_published = 0; }

const cjson_index_record *cjson_index_published(void) {
    return cjson_has_published ? &cjson_published : NULL;
}
