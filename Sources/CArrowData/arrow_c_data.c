#include "arrow_c_data.h"

#include <stdlib.h>
#include <string.h>

static void release_schema(struct ArrowSchema *schema) {
    for (int64_t index = 0; index < schema->n_children; index++) {
        struct ArrowSchema *child = schema->children[index];
        if (child != NULL) {
            if (child->release != NULL) child->release(child);
            free(child);
        }
    }
    free(schema->children);
    free((void *)schema->format);
    free((void *)schema->name);
    schema->release = NULL;
}

struct ArrowSchema *mappings_arrow_schema_new(const char *format, const char *name, int64_t flags,
                                              int64_t n_children) {
    struct ArrowSchema *schema = calloc(1, sizeof(struct ArrowSchema));
    schema->format = strdup(format);
    schema->name = strdup(name != NULL ? name : "");
    schema->flags = flags;
    schema->n_children = n_children;
    schema->children = n_children > 0 ? calloc((size_t)n_children, sizeof(struct ArrowSchema *)) : NULL;
    schema->release = release_schema;
    return schema;
}

void mappings_arrow_schema_set_child(struct ArrowSchema *parent, int64_t index, struct ArrowSchema *child) {
    parent->children[index] = child;
}

/// What an array owns besides its structure: its buffers (the `buffers` array holds them).
static void release_array(struct ArrowArray *array) {
    for (int64_t index = 0; index < array->n_children; index++) {
        struct ArrowArray *child = array->children[index];
        if (child != NULL) {
            if (child->release != NULL) child->release(child);
            free(child);
        }
    }
    free(array->children);
    for (int64_t index = 0; index < array->n_buffers; index++) free((void *)array->buffers[index]);
    free(array->buffers);
    array->release = NULL;
}

struct ArrowArray *mappings_arrow_array_new(int64_t length, int64_t null_count, int64_t n_buffers,
                                            int64_t n_children) {
    struct ArrowArray *array = calloc(1, sizeof(struct ArrowArray));
    array->length = length;
    array->null_count = null_count;
    array->n_buffers = n_buffers;
    array->n_children = n_children;
    array->buffers = n_buffers > 0 ? calloc((size_t)n_buffers, sizeof(void *)) : NULL;
    array->children = n_children > 0 ? calloc((size_t)n_children, sizeof(struct ArrowArray *)) : NULL;
    array->release = release_array;
    return array;
}

void mappings_arrow_array_set_buffer(struct ArrowArray *array, int64_t index, void *buffer) {
    array->buffers[index] = buffer;
}

void mappings_arrow_array_set_child(struct ArrowArray *parent, int64_t index, struct ArrowArray *child) {
    parent->children[index] = child;
}

void mappings_arrow_schema_move(struct ArrowSchema *node, struct ArrowSchema *target) {
    memcpy(target, node, sizeof(struct ArrowSchema));
    free(node);
}

void mappings_arrow_array_move(struct ArrowArray *node, struct ArrowArray *target) {
    memcpy(target, node, sizeof(struct ArrowArray));
    free(node);
}

void mappings_arrow_schema_free(struct ArrowSchema *node) {
    if (node->release != NULL) node->release(node);
    free(node);
}

void mappings_arrow_array_free(struct ArrowArray *node) {
    if (node->release != NULL) node->release(node);
    free(node);
}
