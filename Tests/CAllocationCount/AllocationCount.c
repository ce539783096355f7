// The test binary's malloc family: each call goes to the C library's own (glibc exports it as
// __libc_malloc and so on); while the calling thread counts, it is counted first. Defined in
// the executable, these take the place of the C library's for every library it loads, the
// Swift runtime's allocations included.
#include <stddef.h>
#include <errno.h>
#include "CAllocationCount.h"

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);

static __thread int counting;
static __thread long counted;

void mappings_allocation_count_start(void) {
    counted = 0;
    counting = 1;
}

long mappings_allocation_count_stop(void) {
    counting = 0;
    return counted;
}

void *malloc(size_t size) {
    if (counting) counted += 1;
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    if (counting) counted += 1;
    return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
    if (counting) counted += 1;
    return __libc_realloc(pointer, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    if (counting) counted += 1;
    if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0) return EINVAL;
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL && size != 0) return ENOMEM;
    *result = pointer;
    return 0;
}

void *aligned_alloc(size_t alignment, size_t size) {
    if (counting) counted += 1;
    return __libc_memalign(alignment, size);
}
