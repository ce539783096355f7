// Builds the structural index of many texts with every kernel this machine runs and compares
// each with the portable kernel's (which the Swift tests hold to the index's definition): each
// kind of byte at every offset of a 64-byte block, and random texts of JSON's alphabet. Run by
// tools/check-index-kernels, natively and, for the NEON kernel, built for arm64 and run in qemu.
#include "json_index.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *names[] = {"portable", "sse42", "avx2", "neon", "avx512"};

static int compare(const uint8_t *text, size_t length, long *checked) {
    cjson_index reference = {0};
    int expected = cjson_index_build_with(CJSON_KERNEL_PORTABLE, text, 0, length, &reference);
    int failures = 0;
    for (int kernel = 1; kernel < 5; kernel++) {
        cjson_index index = {0};
        int status = cjson_index_build_with(kernel, text, 0, length, &index);
        if (status == -1) continue;
        (*checked)++;
        int same = status == expected &&
                   (status != CJSON_INDEX_OK ||
                    (index.count == reference.count &&
                     memcmp(index.positions, reference.positions, (index.count + 1) * sizeof(uint32_t)) == 0));
        if (!same) {
            failures++;
            fprintf(stderr, "kernel %s differs from portable on %zu bytes: %.*s\n", names[kernel], length,
                    (int)(length < 200 ? length : 200), (const char *)text);
        }
        cjson_index_free(&index);
    }
    cjson_index_free(&reference);
    return failures;
}

int main(void) {
    static const char *pieces[] = {
        "{", "}", "[", "]", ":", ",", "\"", "\\", "\\\\", "\\\\\\", "\\\"", "\\\\\"", "\\u00e9",
        "\\ud83d\\ude00", "\\ud83d", "\\ude00", "\\x", "\\u12G4", "\\uD7FF", "\\uABCD", "\\u00E9\\/",
        "\\b\\f\\n\\r\\t", "\\u00", "\\uDC00\\uD83D", "\\u", "\\U00e9", "\\u0g00", " ", "\t", "\n", "\r", "\xc3\xa9",
        "\xe2\x82\xac", "\xf0\x9f\x98\x80", "true", "-1.5e3", "x", "\x01", "\x1f", "\x7f", "\xc3", "\xe2\x82",
        "\xf0\x9f\x98", "\xff", "\xc0\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80",
    };
    uint8_t text[512];
    int failures = 0;
    long checked = 0;
    for (size_t p = 0; p < sizeof pieces / sizeof *pieces; p++) {
        for (int offset = 0; offset <= 130; offset++) {
            for (int variant = 0; variant < 4; variant++) {
                size_t n = 0;
                const char *before = variant == 0 ? "{\"k\": \"" : variant == 1 ? "[\"" : variant == 3 ? "\"" : "";
                char pad = variant == 2 ? ' ' : 'a';
                memcpy(text, before, strlen(before));
                n = strlen(before);
                memset(text + n, pad, (size_t)offset);
                n += (size_t)offset;
                const char *middle = variant == 1 ? "\", " : "";
                memcpy(text + n, middle, strlen(middle));
                n += strlen(middle);
                memcpy(text + n, pieces[p], strlen(pieces[p]));
                n += strlen(pieces[p]);
                // Variant 3: the piece ends a string that ends the text (escapes in its last block).
                const char *after = variant == 0   ? "z\", \"n\": [1, 2]}"
                                    : variant == 1 ? " , 7]"
                                    : variant == 2 ? " {\"a\":[true]}"
                                                   : "\"";
                memcpy(text + n, after, strlen(after));
                n += strlen(after);
                failures += compare(text, n, &checked);
            }
        }
    }
    static const char alphabet[] = "{}[]:,\"\\ \t\nabu0123456789e-.\x01\xc3\xa9\xe2\x82\xac\xf0\x9f";
    unsigned long long state = 0x1DE8;
    for (int round = 0; round < 20000; round++) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        size_t n = 1 + (state >> 33) % 400;
        for (size_t i = 0; i < n; i++) {
            state = state * 6364136223846793005ULL + 1442695040888963407ULL;
            text[i] = (uint8_t)alphabet[(state >> 33) % (sizeof alphabet - 1)];
        }
        failures += compare(text, n, &checked);
    }
    printf("%ld comparisons with the portable kernel (best kernel here: %s), %d differ\n", checked,
           names[cjson_index_kernel()], failures);
    return failures ? 1 : 0;
}
