#include "avro_codecs.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

// avro-c's codec, as its `struct avro_codec_t_` lays it out (codec.h, which Debian does not
// install; the functions taking it are exported): the block the last call produced is
// `block_data`, `used_size` bytes long.
struct mappings_avro_codec {
    const char *name;
    int type;
    int64_t block_size;
    int64_t used_size;
    void *block_data;
    void *codec_data;
};

// avro-c's functions this file calls, filled once under `once` and never changed afterwards.
static struct {
    int (*codec)(mappings_avro_codec *, const char *);
    int (*codec_reset)(mappings_avro_codec *);
    int (*codec_encode)(mappings_avro_codec *, void *, int64_t);
    int (*codec_decode)(mappings_avro_codec *, void *, int64_t);
    const char *(*strerror)(void);
    int (*schema_from_json_length)(const char *, size_t, void **);
    int (*schema_decref)(void *);
} api;
static const char *load_error;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static char missing_symbol[256];

// Finds `name` in `library`, or notes which one is missing; returns whether it was found.
static int find(void *library, const char *name, void **slot) {
    *slot = dlsym(library, name);
    if (*slot == NULL) {
        snprintf(missing_symbol, sizeof missing_symbol, MAPPINGS_AVRO_LIBRARY " has no function %s", name);
        load_error = missing_symbol;
        return 0;
    }
    return 1;
}

#define FIND(field, name)                                                                                            \
    if (!find(library, name, (void **)&api.field)) return

static void load(void) {
    void *library = dlopen(MAPPINGS_AVRO_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        load_error = "Avro needs avro-c (" MAPPINGS_AVRO_LIBRARY "): install it, such as `apt-get install "
                     MAPPINGS_AVRO_PACKAGE "`";
        return;
    }
    FIND(codec, "avro_codec");
    FIND(codec_reset, "avro_codec_reset");
    FIND(codec_encode, "avro_codec_encode");
    FIND(codec_decode, "avro_codec_decode");
    FIND(strerror, "avro_strerror");
    FIND(schema_from_json_length, "avro_schema_from_json_length");
    FIND(schema_decref, "avro_schema_decref");
}

const char *mappings_avro_load(void) {
    pthread_once(&once, load);
    return load_error;
}

mappings_avro_codec *mappings_avro_codec_open(const char *name, const char **error) {
    if ((*error = mappings_avro_load()) != NULL) return NULL;
    mappings_avro_codec *codec = calloc(1, sizeof *codec);
    if (codec == NULL) {
        *error = "out of memory";
        return NULL;
    }
    if (api.codec(codec, name) != 0) {
        *error = api.strerror();
        free(codec);
        return NULL;
    }
    return codec;
}

void mappings_avro_codec_close(mappings_avro_codec *codec) {
    if (codec == NULL) return;
    api.codec_reset(codec);
    free(codec);
}

// avro-c's codec functions take the input as `void *` but only read it.
int mappings_avro_codec_decode(mappings_avro_codec *codec, const void *data, int64_t length, const void **output,
                               int64_t *output_length, const char **error) {
    if (api.codec_decode(codec, (void *)data, length) != 0) {
        *error = api.strerror();
        return 1;
    }
    *output = codec->block_data;
    *output_length = codec->used_size;
    return 0;
}

int mappings_avro_codec_encode(mappings_avro_codec *codec, const void *data, int64_t length, const void **output,
                               int64_t *output_length, const char **error) {
    if (api.codec_encode(codec, (void *)data, length) != 0) {
        *error = api.strerror();
        return 1;
    }
    *output = codec->block_data;
    *output_length = codec->used_size;
    return 0;
}

const char *mappings_avro_check_schema(const char *text, size_t length) {
    const char *error = mappings_avro_load();
    if (error != NULL) return error;
    void *schema = NULL;
    if (api.schema_from_json_length(text, length, &schema) != 0) return api.strerror();
    api.schema_decref(schema);
    return NULL;
}
