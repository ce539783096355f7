// The portable kernel: the six masks of a block eight bytes a word, with no instruction beyond
// C's; every machine runs it, and the other kernels are held to it (tools/check-index-kernels).
#include "index_internal.h"

#include <string.h>

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

CJSON_DEFINE_KERNEL(cjson_kernel_portable_body, , cjson_masks_portable, cjson_prefix_xor)

int cjson_kernel_portable(const uint8_t *bytes, size_t start, size_t count, cjson_index *index) {
    return cjson_kernel_portable_body(bytes, start, count, index);
}
