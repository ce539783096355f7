#ifndef MAPPINGS_BUILD_INFO_H
#define MAPPINGS_BUILD_INFO_H

/// The release the tool was built as: the repository's VERSION file, which Package.swift reads
/// and passes as MAPPINGS_VERSION ("unknown" when it could not).
const char *mappings_build_version(void);

/// The commit the tool was built from, abbreviated ("3d72ef2", "3d72ef2-modified" with
/// uncommitted changes): MAPPINGS_COMMIT from the build's environment (tools/build-portable and
/// tools/install set it), else git's as SwiftPM read it, else "unknown" (a tree without git).
const char *mappings_build_commit(void);

#endif
