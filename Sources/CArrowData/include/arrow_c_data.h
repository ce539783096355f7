// The Arrow C Data Interface's two structures, as its specification lays them out
// (https://arrow.apache.org/docs/format/CDataInterface.html), and the few functions the
// Arrow builder of MappingsPython fills them with: every structure and buffer is allocated
// with malloc and freed by the structure's release callback, so that a consumer (pyarrow)
// that moves a child out, or releases the whole, frees exactly what it holds.
#ifndef MAPPINGS_ARROW_C_DATA_H
#define MAPPINGS_ARROW_C_DATA_H

#include <stdint.h>

#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE

#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE 2
#define ARROW_FLAG_MAP_KEYS_SORTED 4

struct ArrowSchema {
    const char *format;
    const char *name;
    const char *metadata;
    int64_t flags;
    int64_t n_children;
    struct ArrowSchema **children;
    struct ArrowSchema *dictionary;
    void (*release)(struct ArrowSchema *);
    void *private_data;
};

struct ArrowArray {
    int64_t length;
    int64_t null_count;
    int64_t offset;
    int64_t n_buffers;
    int64_t n_children;
    const void **buffers;
    struct ArrowArray **children;
    struct ArrowArray *dictionary;
    void (*release)(struct ArrowArray *);
    void *private_data;
};

#endif

/// A schema node with copies of `format` and `name` and room for `n_children` children
/// (set with mappings_arrow_schema_set_child), released with its children.
struct ArrowSchema *mappings_arrow_schema_new(const char *format, const char *name, int64_t flags,
                                              int64_t n_children);
/// Gives `child` to `parent` at `index`.
void mappings_arrow_schema_set_child(struct ArrowSchema *parent, int64_t index, struct ArrowSchema *child);

/// An array node with room for `n_buffers` buffers and `n_children` children; each buffer
/// given (mappings_arrow_array_set_buffer) is a malloc'd block the array frees on release.
struct ArrowArray *mappings_arrow_array_new(int64_t length, int64_t null_count, int64_t n_buffers,
                                            int64_t n_children);
void mappings_arrow_array_set_buffer(struct ArrowArray *array, int64_t index, void *buffer);
void mappings_arrow_array_set_child(struct ArrowArray *parent, int64_t index, struct ArrowArray *child);

/// Moves a node's content into `target` (a structure the consumer allocated) and frees the
/// node's own allocation: what a producer hands over.
void mappings_arrow_schema_move(struct ArrowSchema *node, struct ArrowSchema *target);
void mappings_arrow_array_move(struct ArrowArray *node, struct ArrowArray *target);

/// Releases a node that was never handed over (and frees its allocation).
void mappings_arrow_schema_free(struct ArrowSchema *node);
void mappings_arrow_array_free(struct ArrowArray *node);

#endif
