#ifndef C_ALLOCATION_COUNT_H
#define C_ALLOCATION_COUNT_H

/// Counts the calling thread's calls to malloc, calloc, realloc, posix_memalign and
/// aligned_alloc while counting is on: what the allocation tests read. The test binary's own
/// definitions of those functions pass every call on to the C library's.
void mappings_allocation_count_start(void);
/// Stops counting and returns the calls counted since the start.
long mappings_allocation_count_stop(void);

#endif
