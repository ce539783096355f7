// The x86-64 kernels: SSE4.2 (16 bytes a compare) and AVX2 (32), each with a carry-less multiply
// for the quotes' prefix parity. Built for their instruction sets function by function, and run
// only where the processor has them (json_index.c asks it).
#if defined(__x86_64__)
#include "index_internal.h"

#include <immintrin.h>

#define CJSON_SSE __attribute__((target("sse4.2,pclmul")))
#define CJSON_AVX2 __attribute__((target("avx2,pclmul")))
#define CJSON_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,avx2,pclmul")))

/// The prefix parity of `x` as one carry-less multiply by all ones.
CJSON_SSE static inline uint64_t cjson_prefix_xor_clmul_sse(uint64_t x) {
    __m128i product = _mm_clmulepi64_si128(_mm_set_epi64x(0, (long long)x), _mm_set1_epi8((char)0xFF), 0);
    return (uint64_t)_mm_cvtsi128_si64(product);
}

CJSON_AVX2 static inline uint64_t cjson_prefix_xor_clmul_avx2(uint64_t x) {
    __m128i product = _mm_clmulepi64_si128(_mm_set_epi64x(0, (long long)x), _mm_set1_epi8((char)0xFF), 0);
    return (uint64_t)_mm_cvtsi128_si64(product);
}

// Whitespace and punctuation by their low nibble: a byte is one of them when the table's entry
// for its low nibble is the byte itself (a byte with its high bit set looks up 0, which never
// equals it). `[` and `]` share their nibbles with `{` and `}`: they have a table of their own.
// (Loaded from memory: built with set intrinsics, some compilers make them anew byte by byte
// for every block.)
#define CJSON_SPACE_TABLE 0x20, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x09, 0x0A, 0xFF, 0xFF, 0x0D, 0xFF, 0xFF
#define CJSON_OP_TABLE 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x3A, 0x7B, 0x2C, 0x7D, 0xFF, 0xFF
#define CJSON_BRACKET_TABLE 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x5B, 0xFF, 0x5D, 0xFF, 0xFF
static const uint8_t cjson_space_table[32] __attribute__((aligned(32))) = {CJSON_SPACE_TABLE, CJSON_SPACE_TABLE};
static const uint8_t cjson_op_table[32] __attribute__((aligned(32))) = {CJSON_OP_TABLE, CJSON_OP_TABLE};
static const uint8_t cjson_bracket_table[32] __attribute__((aligned(32))) = {CJSON_BRACKET_TABLE, CJSON_BRACKET_TABLE};

/// The six masks of 16 bytes, one bit a byte, in the low 16 bits of each.
typedef struct cjson_masks16 {
    uint32_t quote, backslash, space, op, control, nonascii;
} cjson_masks16;

CJSON_SSE static inline cjson_masks16 cjson_masks_sse16(const uint8_t *bytes) {
    const __m128i spaces = _mm_load_si128((const __m128i *)cjson_space_table);
    const __m128i ops = _mm_load_si128((const __m128i *)cjson_op_table);
    const __m128i brackets = _mm_load_si128((const __m128i *)cjson_bracket_table);
    __m128i v = _mm_loadu_si128((const __m128i *)bytes);
    cjson_masks16 m;
    m.quote = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')));
    m.backslash = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('\\')));
    m.space = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_shuffle_epi8(spaces, v), v));
    m.op = (uint32_t)_mm_movemask_epi8(
        _mm_or_si128(_mm_cmpeq_epi8(_mm_shuffle_epi8(ops, v), v), _mm_cmpeq_epi8(_mm_shuffle_epi8(brackets, v), v)));
    m.control = (uint32_t)_mm_movemask_epi8(
        _mm_cmpeq_epi8(_mm_and_si128(v, _mm_set1_epi8((char)0xE0)), _mm_setzero_si128()));
    m.nonascii = (uint32_t)_mm_movemask_epi8(v);
    return m;
}

// The masks are put together field by field from the parts, never by a loop over them: a loop
// that ORs six fields at shifted places is "vectorized" by some compilers into byte inserts.
CJSON_SSE static inline cjson_masks cjson_masks_sse(const uint8_t *block) {
    cjson_masks16 a = cjson_masks_sse16(block), b = cjson_masks_sse16(block + 16);
    cjson_masks16 c = cjson_masks_sse16(block + 32), d = cjson_masks_sse16(block + 48);
#define CJSON_JOIN(field) \
    ((uint64_t)a.field | (uint64_t)b.field << 16 | (uint64_t)c.field << 32 | (uint64_t)d.field << 48)
    cjson_masks m = {CJSON_JOIN(quote), CJSON_JOIN(backslash), CJSON_JOIN(space),
                     CJSON_JOIN(op),    CJSON_JOIN(control),   CJSON_JOIN(nonascii)};
#undef CJSON_JOIN
    return m;
}

/// The six masks of 32 bytes.
typedef struct cjson_masks32 {
    uint32_t quote, backslash, space, op, control, nonascii;
} cjson_masks32;

CJSON_AVX2 static inline cjson_masks32 cjson_masks_avx2_32(const uint8_t *bytes) {
    const __m256i spaces = _mm256_load_si256((const __m256i *)cjson_space_table);
    const __m256i ops = _mm256_load_si256((const __m256i *)cjson_op_table);
    const __m256i brackets = _mm256_load_si256((const __m256i *)cjson_bracket_table);
    __m256i v = _mm256_loadu_si256((const __m256i *)bytes);
    cjson_masks32 m;
    m.quote = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_set1_epi8('"')));
    m.backslash = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_set1_epi8('\\')));
    m.space = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_shuffle_epi8(spaces, v), v));
    m.op = (uint32_t)_mm256_movemask_epi8(_mm256_or_si256(
        _mm256_cmpeq_epi8(_mm256_shuffle_epi8(ops, v), v), _mm256_cmpeq_epi8(_mm256_shuffle_epi8(brackets, v), v)));
    m.control = (uint32_t)_mm256_movemask_epi8(
        _mm256_cmpeq_epi8(_mm256_and_si256(v, _mm256_set1_epi8((char)0xE0)), _mm256_setzero_si256()));
    m.nonascii = (uint32_t)_mm256_movemask_epi8(v);
    return m;
}

CJSON_AVX2 static inline cjson_masks cjson_masks_avx2(const uint8_t *block) {
    cjson_masks32 a = cjson_masks_avx2_32(block), b = cjson_masks_avx2_32(block + 32);
#define CJSON_JOIN(field) ((uint64_t)a.field | (uint64_t)b.field << 32)
    cjson_masks m = {CJSON_JOIN(quote), CJSON_JOIN(backslash), CJSON_JOIN(space),
                     CJSON_JOIN(op),    CJSON_JOIN(control),   CJSON_JOIN(nonascii)};
#undef CJSON_JOIN
    return m;
}

/// The six masks of a whole block, 64 compares at once, straight into masks (no bytes to gather).
CJSON_AVX512 static inline cjson_masks cjson_masks_avx512(const uint8_t *block) {
    const __m512i spaces = _mm512_broadcast_i32x4(_mm_load_si128((const __m128i *)cjson_space_table));
    const __m512i ops = _mm512_broadcast_i32x4(_mm_load_si128((const __m128i *)cjson_op_table));
    const __m512i brackets = _mm512_broadcast_i32x4(_mm_load_si128((const __m128i *)cjson_bracket_table));
    __m512i v = _mm512_loadu_si512((const void *)block);
    cjson_masks m;
    m.quote = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('"'));
    m.backslash = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('\\'));
    m.space = _mm512_cmpeq_epi8_mask(_mm512_shuffle_epi8(spaces, v), v);
    m.op = _mm512_cmpeq_epi8_mask(_mm512_shuffle_epi8(ops, v), v) | _mm512_cmpeq_epi8_mask(_mm512_shuffle_epi8(brackets, v), v);
    m.control = _mm512_testn_epi8_mask(v, _mm512_set1_epi8((char)0xE0));
    m.nonascii = _mm512_movepi8_mask(v);
    return m;
}

CJSON_AVX512 static inline uint64_t cjson_prefix_xor_clmul_avx512(uint64_t x) {
    __m128i product = _mm_clmulepi64_si128(_mm_set_epi64x(0, (long long)x), _mm_set1_epi8((char)0xFF), 0);
    return (uint64_t)_mm_cvtsi128_si64(product);
}

/// The offsets 0 to 63 as bytes, which a block's entries pick from.
static const uint8_t cjson_byte_lanes[64] __attribute__((aligned(64))) = {
    0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21,
    22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43,
    44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63};

/// `cjson_write_entries` with one compress: the entries' offsets within the block, picked out
/// of the 64 as bytes, then widened and stored sixteen at a time, as many times as the count
/// needs (once for most blocks). What lies past the count is written over: room for 64 is there.
CJSON_AVX512 static inline void cjson_write_entries_avx512(uint32_t *write, uint64_t entries, uint64_t flagged,
                                                            size_t base) {
    __m512i picked = _mm512_maskz_compress_epi8(entries, _mm512_load_si512((const void *)cjson_byte_lanes));
    const __m512i offset = _mm512_set1_epi32((int)(uint32_t)base);
    int count = __builtin_popcountll(entries);
    _mm512_storeu_si512((void *)write, _mm512_add_epi32(_mm512_cvtepu8_epi32(_mm512_castsi512_si128(picked)), offset));
    if (count > 16) {
        _mm512_storeu_si512((void *)(write + 16),
                            _mm512_add_epi32(_mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(picked, 1)), offset));
        if (count > 32) {
            _mm512_storeu_si512((void *)(write + 32),
                                _mm512_add_epi32(_mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(picked, 2)), offset));
            if (count > 48)
                _mm512_storeu_si512(
                    (void *)(write + 48),
                    _mm512_add_epi32(_mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(picked, 3)), offset));
        }
    }
    while (flagged) {
        uint64_t bit = flagged & (0 - flagged);
        flagged ^= bit;
        write[__builtin_popcountll(entries & (bit - 1))] |= CJSON_INDEX_ESCAPES;
    }
}

/// What each ASCII byte can be after a backslash, by bit: 1 a one-letter escape (`" \\ / b f
/// n r t`), 2 a hex digit, 4 the `u` of a \u escape, 8 a D (a surrogate half's first digit).
#define CJSON_ESCAPE_SIMPLE 1
#define CJSON_ESCAPE_HEX 2
#define CJSON_ESCAPE_UNIT 4
#define CJSON_ESCAPE_D 8
#define CJSON_ESCAPE_HEX_LETTER(c) [c] = CJSON_ESCAPE_HEX, [c - 32] = CJSON_ESCAPE_HEX
static const uint8_t cjson_escape_classes[128] __attribute__((aligned(64))) = {
    ['0'] = CJSON_ESCAPE_HEX, ['1'] = CJSON_ESCAPE_HEX, ['2'] = CJSON_ESCAPE_HEX, ['3'] = CJSON_ESCAPE_HEX,
    ['4'] = CJSON_ESCAPE_HEX, ['5'] = CJSON_ESCAPE_HEX, ['6'] = CJSON_ESCAPE_HEX, ['7'] = CJSON_ESCAPE_HEX,
    ['8'] = CJSON_ESCAPE_HEX, ['9'] = CJSON_ESCAPE_HEX, CJSON_ESCAPE_HEX_LETTER('a'), CJSON_ESCAPE_HEX_LETTER('c'),
    CJSON_ESCAPE_HEX_LETTER('e'), ['F'] = CJSON_ESCAPE_HEX,
    ['b'] = CJSON_ESCAPE_SIMPLE | CJSON_ESCAPE_HEX, ['B'] = CJSON_ESCAPE_HEX,
    ['f'] = CJSON_ESCAPE_SIMPLE | CJSON_ESCAPE_HEX,
    ['d'] = CJSON_ESCAPE_HEX | CJSON_ESCAPE_D, ['D'] = CJSON_ESCAPE_HEX | CJSON_ESCAPE_D,
    ['"'] = CJSON_ESCAPE_SIMPLE, ['\\'] = CJSON_ESCAPE_SIMPLE, ['/'] = CJSON_ESCAPE_SIMPLE, ['n'] = CJSON_ESCAPE_SIMPLE,
    ['r'] = CJSON_ESCAPE_SIMPLE, ['t'] = CJSON_ESCAPE_SIMPLE, ['u'] = CJSON_ESCAPE_UNIT,
};
#undef CJSON_ESCAPE_HEX_LETTER

/// The escaped bytes of a block whose escapes one table lookup settles: one-letter escapes,
/// and \u escapes whose four hex digits are in the block and that are no surrogate half (the
/// first digit no D). The others (surrogates, those near the block's end, the invalid ones)
/// are checked one by one, as every kernel checks them.
CJSON_AVX512 static inline uint64_t cjson_settled_escapes_avx512(const uint8_t *block, uint64_t escaped) {
    __m512i v = _mm512_loadu_si512((const void *)block);
    // Each byte's class, by its low seven bits from the 128-byte table; none for bytes past ASCII.
    __m512i classes = _mm512_maskz_permutex2var_epi8(
        ~_mm512_movepi8_mask(v), _mm512_load_si512((const void *)cjson_escape_classes), v,
        _mm512_load_si512((const void *)(cjson_escape_classes + 64)));
    uint64_t settled = escaped & _mm512_test_epi8_mask(classes, _mm512_set1_epi8(CJSON_ESCAPE_SIMPLE));
    // \u escapes whose digits (bytes 1 to 4 after the u) end within the block.
    uint64_t units = escaped & _mm512_test_epi8_mask(classes, _mm512_set1_epi8(CJSON_ESCAPE_UNIT)) &
                     ((1ULL << 59) - 1);
    if (units) {
        uint64_t hex = _mm512_test_epi8_mask(classes, _mm512_set1_epi8(CJSON_ESCAPE_HEX));
        uint64_t d = _mm512_test_epi8_mask(classes, _mm512_set1_epi8(CJSON_ESCAPE_D));
        // Bit q: four hex digits from q on.
        uint64_t digits = hex & (hex >> 1) & (hex >> 2) & (hex >> 3);
        settled |= units & (digits >> 1) & ~(d >> 1);
    }
    return settled;
}

CJSON_DEFINE_KERNEL(cjson_kernel_sse42_body, CJSON_SSE, cjson_masks_sse, cjson_prefix_xor_clmul_sse)
CJSON_DEFINE_KERNEL(cjson_kernel_avx2_body, CJSON_AVX2, cjson_masks_avx2, cjson_prefix_xor_clmul_avx2)
CJSON_DEFINE_KERNEL_WRITING(cjson_kernel_avx512_body, CJSON_AVX512, cjson_masks_avx512, cjson_prefix_xor_clmul_avx512,
                            cjson_write_entries_avx512, cjson_settled_escapes_avx512)

int cjson_kernel_sse42(const uint8_t *bytes, size_t start, size_t count, cjson_index *index) {
    return cjson_kernel_sse42_body(bytes, start, count, index);
}

int cjson_kernel_avx2(const uint8_t *bytes, size_t start, size_t count, cjson_index *index) {
    return cjson_kernel_avx2_body(bytes, start, count, index);
}

int cjson_kernel_avx512(const uint8_t *bytes, size_t start, size_t count, cjson_index *index) {
    return cjson_kernel_avx512_body(bytes, start, count, index);
}
#endif
