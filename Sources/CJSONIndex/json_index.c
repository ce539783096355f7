// Building an index: the kernel chosen at run time from what the processor has (or
// MAPPINGS_JSON_KERNEL), and the index's memory. The kernels are in files of their own:
// json_index_portable.c, json_index_x86.c (SSE4.2, AVX2, AVX-512) and json_index_arm.c (NEON);
// json_index_record.c hands a thread's record and its index to the Lua sandbox's views.
#include "index_internal.h"

#include <stdlib.h>
#include <string.h>

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
