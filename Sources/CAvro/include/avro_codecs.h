// The part of avro-c (Debian's libavro23) that Avro container files need from it: its block
// codecs (null, deflate, snappy, lzma), found with dlopen when a container is first read or
// written. The tool links no Avro library (the portable build runs where it is not installed,
// and the commands that read no Avro pay nothing); a missing library is an error that names
// the package to install.
//
// The container's framing (magic, header, blocks, sync markers) and the datums are read and
// written by the Swift side, bounds-checked, so that a corrupt file is an error with its byte
// offset: avro-c's own file reader trusts a block's length and reads no sync marker.
#ifndef MAPPINGS_AVRO_CODECS_H
#define MAPPINGS_AVRO_CODECS_H

#include <stddef.h>
#include <stdint.h>

/// A block codec of avro-c, opened by name; what it last encoded or decoded stays in it until the
/// next call or `mappings_avro_codec_close`.
typedef struct mappings_avro_codec mappings_avro_codec;

/// The library's soname, and the Debian package that installs it (for the error saying so).
#define MAPPINGS_AVRO_LIBRARY "libavro.so.23"
#define MAPPINGS_AVRO_PACKAGE "libavro23"

/// Loads avro-c once; NULL when it loaded, else why not (the library or a function missing).
const char *_Nullable mappings_avro_load(void);

/// Opens the codec named `name` ("null", "deflate", "snappy", "lzma"); NULL, with `error` set,
/// when avro-c is missing or does not know the name.
mappings_avro_codec *_Nullable mappings_avro_codec_open(const char *_Nonnull name,
                                                        const char *_Nullable *_Nonnull error);

/// Frees the codec and what it holds.
void mappings_avro_codec_close(mappings_avro_codec *_Nullable codec);

/// Decompresses a block's `length` bytes; on success (0) `output` and `output_length` say where
/// the block's datums are (inside the codec, or `data` itself for "null"), else avro-c's error
/// is in `error`.
int mappings_avro_codec_decode(mappings_avro_codec *_Nonnull codec, const void *_Nonnull data, int64_t length,
                               const void *_Nullable *_Nonnull output, int64_t *_Nonnull output_length,
                               const char *_Nullable *_Nonnull error);

/// Compresses a block's `length` bytes of datums; on success (0) `output` and `output_length`
/// hold the block as the container stores it, else avro-c's error is in `error`.
int mappings_avro_codec_encode(mappings_avro_codec *_Nonnull codec, const void *_Nonnull data, int64_t length,
                               const void *_Nullable *_Nonnull output, int64_t *_Nonnull output_length,
                               const char *_Nullable *_Nonnull error);

/// Parses a schema with avro-c's own parser: NULL when it accepts it, else its message (a schema
/// we write is one avro-c, and so other readers, can read).
const char *_Nullable mappings_avro_check_schema(const char *_Nonnull text, size_t length);

#endif
