#ifndef SANDBOX_INTERNAL_H
#define SANDBOX_INTERNAL_H

// What sandbox.c and bounded.c share; not part of the module's interface.

#include "lua_sandbox.h"

/// Steps a C loop may take between two charges, and between two reads of the clock; why: one
/// clock read per few thousand steps.
#define CLUA_STEP_QUANTUM 4096

// Stack effects in the Lua manual's notation, as in sandbox.c.

/// The sandbox of a state (the allocator's `ud`).
clua_sandbox *clua_sandbox_of(lua_State *L);

/// Trips `limit` (CLUA_BUDGET, CLUA_DEADLINE or CLUA_MEMORY) unless one has tripped already,
/// makes it sticky, and raises it; why: a bounded library function refuses the same way the
/// hook does, and no `pcall` can swallow it. Stack: [-0, +0, v]
int clua_sandbox_trip(lua_State *L, int limit);

/// Counts `steps` of work done inside one C call against the instruction budget, and checks
/// the deadline every CLUA_STEP_QUANTUM steps; raises when either has run out. Why: a C function that loops
/// runs no VM instruction, so the count hook alone never sees it. Stack: [-0, +0, v]
void clua_sandbox_charge(lua_State *L, int64_t steps);

/// Bytes the interpreter may still allocate before its cap.
size_t clua_sandbox_headroom(lua_State *L);

/// `log(...)` and `print(...)` for scripts (log.c). Stack: [-n, +0, v]
int clua_sandbox_log(lua_State *L);

/// The string functions that can run long or allocate much in one call (find, match, gmatch,
/// gsub, rep, format, pack), bounded; registered with `luaL_setfuncs` and Lua's own string
/// library as their one upvalue (format and pack call Lua's after checking sizes).
extern const luaL_Reg clua_bounded_string_functions[];

/// The table functions that loop in C (concat, insert, remove, move, sort), counting their
/// steps; registered like `clua_bounded_string_functions`, with Lua's table library as upvalue.
extern const luaL_Reg clua_bounded_table_functions[];

#endif
