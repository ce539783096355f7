// The structural index of one JSON text: where its strings, values and punctuation are, found
// 64 bytes at a time (the first stage of simdjson, after Langdale and Lemire, "Parsing gigabytes
// of JSON per second", VLDB Journal 2019, written here from the paper), and the checks that need
// no grammar: UTF-8, control characters and escapes in strings, a string left open.
//
// MappingsJSON's record tape reads the index instead of the bytes: a value it does not read is
// skipped by walking index entries. Kernels: AVX2 and SSE4.2 (x86-64, chosen at run time), NEON
// (arm64), and a portable one in 64-bit words that every other machine runs and the tests hold
// the others to.
#ifndef CJSON_INDEX_H
#define CJSON_INDEX_H

#include <stddef.h>
#include <stdint.h>

/// What `cjson_index_build` found.
enum {
    /// The index is built; the text may still break JSON's grammar, which the reader checks.
    CJSON_INDEX_OK = 0,
    /// The text cannot be JSON: a byte that is not UTF-8, a control character or an invalid
    /// escape in a string, a string that does not end, or no text at all.
    CJSON_INDEX_INVALID = 1,
    /// The text is 2 GiB or more (an entry's offset is 31 bits), or memory ran out.
    CJSON_INDEX_TOO_LARGE = 2,
};

/// The kernels, for `cjson_index_build_with` (tests and benchmarks).
enum {
    CJSON_KERNEL_PORTABLE = 0,
    CJSON_KERNEL_SSE42 = 1,
    CJSON_KERNEL_AVX2 = 2,
    CJSON_KERNEL_NEON = 3,
    CJSON_KERNEL_AVX512 = 4,
};

/// An index, reused text after text: `positions[0..<count]` are the offsets, in order, of every
/// `{ } [ ] : ,` outside strings, of both quotes of every string, and of the first byte of every
/// other run of bytes outside strings that is not whitespace (a number, a literal, or bytes no
/// JSON has). The closing quote of a string that holds a backslash has bit 31 set
/// (CJSON_INDEX_ESCAPES). `positions[count]` is the text's length, a sentinel.
/// The bit of an entry that marks a string's closing quote when the string holds escapes.
#define CJSON_INDEX_ESCAPES 0x80000000u
/// The bits of an entry that are its offset.
#define CJSON_INDEX_OFFSET 0x7FFFFFFFu

typedef struct cjson_index {
    uint32_t *positions;
    size_t count;
    size_t capacity;
} cjson_index;

/// Builds the index of `bytes[start..<count]` (`start` past a byte-order mark) with the best
/// kernel this machine runs. Returns CJSON_INDEX_OK, CJSON_INDEX_INVALID or CJSON_INDEX_TOO_LARGE.
int cjson_index_build(const uint8_t *bytes, size_t start, size_t count, cjson_index *index);

/// The same with a given kernel; -1 when this machine cannot run it.
int cjson_index_build_with(int kernel, const uint8_t *bytes, size_t start, size_t count, cjson_index *index);

/// The kernel `cjson_index_build` uses here.
int cjson_index_kernel(void);

/// Gives an index's memory back.
void cjson_index_free(cjson_index *index);

/// The record a thread is mapping and its index, as the record tape built it: what a Lua
/// call on that thread reads its views through instead of the bytes (CLuaSandbox's view.c).
typedef struct cjson_index_record {
    const uint8_t *bytes;
    size_t count;
    const uint32_t *positions;  // offsets from `bytes`, as `cjson_index` holds them
    size_t entries;
    /// At each entry that opens a container the publisher's walk recorded, `generation` in the
    /// high 32 bits and the entry that closes it in the low ones; an entry of another generation
    /// records nothing (a reader walks the entries then). NULL: none recorded.
    const uint64_t *matches;
    uint32_t generation;
    /// Bumped by every publication on this thread: with the record's address (each thread has
    /// its own), what tells one published record from the next.
    uint64_t serial;
} cjson_index_record;

/// Makes `index` (of `bytes[0..<count]`) and `matches` (NULL, or `index->count` entries as
/// `cjson_index_record` says) this thread's published record until `cjson_index_withdraw`; the
/// caller keeps them alive and unchanged until then.
void cjson_index_publish(const uint8_t *bytes, size_t count, const cjson_index *index, const uint64_t *matches,
                         uint32_t generation);

/// Ends this thread's published record.
void cjson_index_withdraw(void);

/// This thread's published record, or NULL.
const cjson_index_record *cjson_index_published(void);

#endif
