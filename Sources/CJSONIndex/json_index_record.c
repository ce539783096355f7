// The record a thread is mapping: the record tape publishes it with its index, and the Lua
// sandbox's views (CLuaSandbox's view.c) read the text through it, on the same thread.
#include "json_index.h"

#include <stdatomic.h>
#include <stddef.h>

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
