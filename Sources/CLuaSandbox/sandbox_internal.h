#ifndef SANDBOX_INTERNAL_H
#define SANDBOX_INTERNAL_H

// What sandbox.c and bounded.c share; not part of the module's interface.

#include "lua_sandbox.h"

/// The sandbox of a state (the allocator's `ud`).
clua_sandbox *clua_sandbox_of(lua_State *L);

/// Trips `limit` (CLUA_BUDGET, CLUA_DEADLINE or CLUA_MEMORY) unless one has tripped already,
/// makes it sticky, and raises it; why: a bounded library function refuses the same way the
/// hook does, and no `pcall` can swallow it.
int clua_sandbox_trip(lua_State *L, int limit);

/// Counts `steps` of work done inside one C call against the instruction budget, and checks
/// the deadline every so often; raises when either has run out. Why: a C function that loops
/// runs no VM instruction, so the count hook alone never sees it.
void clua_sandbox_charge(lua_State *L, int64_t steps);

/// Bytes the interpreter may still allocate before its cap.
size_t clua_sandbox_headroom(lua_State *L);

/// Replaces, in the library copy at `index`, the string functions that can run long or
/// allocate much in one call (find, match, gmatch, gsub, rep, format, pack) with bounded ones.
void clua_bounded_string_library(lua_State *L, int index);

/// Replaces, in the library copy at `index`, the table functions that loop in C (concat,
/// insert, remove, move, sort) with ones that count their steps.
void clua_bounded_table_library(lua_State *L, int index);

#endif
