#include "build_info.h"

// Package.swift defines both as C string literals; a build by other means says so.
#ifndef MAPPINGS_VERSION
#define MAPPINGS_VERSION "unknown"
#endif
#ifndef MAPPINGS_COMMIT
#define MAPPINGS_COMMIT "unknown"
#endif

const char *mappings_build_version(void) { return MAPPINGS_VERSION; }

const char *mappings_build_commit(void) { return MAPPINGS_COMMIT; }
