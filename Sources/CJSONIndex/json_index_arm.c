// The arm64 kernel: NEON, 16 bytes a compare (every arm64 processor has it), the masks gathered
// with a narrowing shift.
#if defined(__aarch64__)
#include "index_internal.h"

#include <arm_neon.h>

/// The 16 results (0 or 0xFF) of a compare as 16 bits.
static inline uint64_t cjson_bits_neon(uint8x16_t compared) {
    // Keep one distinct bit a byte, then add across each half.
    static const uint8_t weights[16] = {1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128};
    uint8x16_t bits = vandq_u8(compared, vld1q_u8(weights));
    uint64_t low = vaddv_u8(vget_low_u8(bits));
    uint64_t high = vaddv_u8(vget_high_u8(bits));
    return low | high << 8;
}

// By the low nibble, as json_index_x86.c's tables, but looked up for every byte (the high bit
// too): an entry no byte of that nibble equals stands for none (0x01 at nibble 0, 0x00 elsewhere).
static const uint8_t cjson_space_table[16] = {0x20, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                                              0x00, 0x09, 0x0A, 0x00, 0x00, 0x0D, 0x00, 0x00};
static const uint8_t cjson_op_table[16] = {0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                                           0x00, 0x00, 0x3A, 0x7B, 0x2C, 0x7D, 0x00, 0x00};
static const uint8_t cjson_bracket_table[16] = {0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                                                0x00, 0x00, 0x00, 0x5B, 0x00, 0x5D, 0x00, 0x00};

static inline cjson_masks cjson_masks_neon(const uint8_t *block) {
    const uint8x16_t spaces = vld1q_u8(cjson_space_table), ops = vld1q_u8(cjson_op_table);
    const uint8x16_t brackets = vld1q_u8(cjson_bracket_table);
    const uint8x16_t low_nibble = vdupq_n_u8(0x0F);
    cjson_masks m = {0, 0, 0, 0, 0, 0};
    for (int part = 0; part < 4; part++) {
        uint8x16_t v = vld1q_u8(block + 16 * part);
        int shift = 16 * part;
        // A table lookup by the low nibble: the byte itself where it is one of the table's.
        uint8x16_t nibble = vandq_u8(v, low_nibble);
        m.quote |= cjson_bits_neon(vceqq_u8(v, vdupq_n_u8('"'))) << shift;
        m.backslash |= cjson_bits_neon(vceqq_u8(v, vdupq_n_u8('\\'))) << shift;
        m.space |= cjson_bits_neon(vceqq_u8(vqtbl1q_u8(spaces, nibble), v)) << shift;
        uint8x16_t op = vorrq_u8(vceqq_u8(vqtbl1q_u8(ops, nibble), v), vceqq_u8(vqtbl1q_u8(brackets, nibble), v));
        m.op |= cjson_bits_neon(op) << shift;
        m.control |= cjson_bits_neon(vcltq_u8(v, vdupq_n_u8(0x20))) << shift;
        m.nonascii |= cjson_bits_neon(vcgeq_u8(v, vdupq_n_u8(0x80))) << shift;
    }
    return m;
}

// The quotes' prefix parity by shifts (a carry-less multiply needs the crypto extension, which
// not every arm64 processor has).
CJSON_DEFINE_KERNEL(cjson_kernel_neon_body, , cjson_masks_neon, cjson_prefix_xor)

int cjson_kernel_neon(const uint8_t *bytes, size_t start, size_t count, cjson_index *index) {
    return cjson_kernel_neon_body(bytes, start, count, index);
}
#endif
