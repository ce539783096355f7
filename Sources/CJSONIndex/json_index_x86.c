// The x86-64 kernels: SSE4.2 (16 bytes a compare) and AVX2 (32), each with a carry-less multiply
// for the quotes' prefix parity. Built for their instruction sets function by function, and run
// only where the processor has them (json_index.c asks it).
#if defined(__x86_64__)
#include "index_internal.h"

#include <immintrin.h>

#define CJSON_SSE __attribute__((target("sse4.2,pclmul")))
#define CJSON_AVX2 __attribute__((target("avx2,pclmul")))

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
#define CJSON_SPACE_TABLE 0x20, -1, -1, -1, -1, -1, -1, -1, -1, 0x09, 0x0A, -1, -1, 0x0D, -1, -1
#define CJSON_OP_TABLE -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0x3A, 0x7B, 0x2C, 0x7D, -1, -1
#define CJSON_BRACKET_TABLE -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0x5B, -1, 0x5D, -1, -1

CJSON_SSE static inline cjson_masks cjson_masks_sse(const uint8_t *block) {
    const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\');
    const __m128i spaces = _mm_setr_epi8(CJSON_SPACE_TABLE), ops = _mm_setr_epi8(CJSON_OP_TABLE);
    const __m128i brackets = _mm_setr_epi8(CJSON_BRACKET_TABLE);
    const __m128i control = _mm_set1_epi8((char)0xE0);
    cjson_masks m = {0, 0, 0, 0, 0, 0};
    for (int part = 0; part < 4; part++) {
        __m128i v = _mm_loadu_si128((const __m128i *)(block + 16 * part));
        int shift = 16 * part;
        m.quote |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, quote)) << shift;
        m.backslash |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, backslash)) << shift;
        m.space |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_shuffle_epi8(spaces, v), v)) << shift;
        __m128i op = _mm_or_si128(
            _mm_cmpeq_epi8(_mm_shuffle_epi8(ops, v), v), _mm_cmpeq_epi8(_mm_shuffle_epi8(brackets, v), v));
        m.op |= (uint64_t)(uint16_t)_mm_movemask_epi8(op) << shift;
        __m128i below = _mm_cmpeq_epi8(_mm_and_si128(v, control), _mm_setzero_si128());
        m.control |= (uint64_t)(uint16_t)_mm_movemask_epi8(below) << shift;
        m.nonascii |= (uint64_t)(uint16_t)_mm_movemask_epi8(v) << shift;
    }
    return m;
}

CJSON_AVX2 static inline cjson_masks cjson_masks_avx2(const uint8_t *block) {
    const __m256i quote = _mm256_set1_epi8('"'), backslash = _mm256_set1_epi8('\\');
    const __m256i spaces = _mm256_setr_epi8(CJSON_SPACE_TABLE, CJSON_SPACE_TABLE);
    const __m256i ops = _mm256_setr_epi8(CJSON_OP_TABLE, CJSON_OP_TABLE);
    const __m256i brackets = _mm256_setr_epi8(CJSON_BRACKET_TABLE, CJSON_BRACKET_TABLE);
    const __m256i control = _mm256_set1_epi8((char)0xE0);
    cjson_masks m = {0, 0, 0, 0, 0, 0};
    for (int part = 0; part < 2; part++) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(block + 32 * part));
        int shift = 32 * part;
        m.quote |= (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, quote)) << shift;
        m.backslash |= (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, backslash)) << shift;
        m.space |= (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_shuffle_epi8(spaces, v), v))
                   << shift;
        __m256i op = _mm256_or_si256(
            _mm256_cmpeq_epi8(_mm256_shuffle_epi8(ops, v), v), _mm256_cmpeq_epi8(_mm256_shuffle_epi8(brackets, v), v));
        m.op |= (uint64_t)(uint32_t)_mm256_movemask_epi8(op) << shift;
        __m256i below = _mm256_cmpeq_epi8(_mm256_and_si256(v, control), _mm256_setzero_si256());
        m.control |= (uint64_t)(uint32_t)_mm256_movemask_epi8(below) << shift;
        m.nonascii |= (uint64_t)(uint32_t)_mm256_movemask_epi8(v) << shift;
    }
    return m;
}

CJSON_DEFINE_KERNEL(cjson_kernel_sse42_body, CJSON_SSE, cjson_masks_sse, cjson_prefix_xor_clmul_sse)
CJSON_DEFINE_KERNEL(cjson_kernel_avx2_body, CJSON_AVX2, cjson_masks_avx2, cjson_prefix_xor_clmul_avx2)

int cjson_kernel_sse42(const uint8_t *bytes, size_t start, size_t count, cjson_index *index) {
    return cjson_kernel_sse42_body(bytes, start, count, index);
}

int cjson_kernel_avx2(const uint8_t *bytes, size_t start, size_t count, cjson_index *index) {
    return cjson_kernel_avx2_body(bytes, start, count, index);
}
#endif
