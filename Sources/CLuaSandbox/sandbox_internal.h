#ifndef SANDBOX_INTERNAL_H
#define SANDBOX_INTERNAL_H

// What the sandbox's C files (sandbox.c, library.c, environment.c, wire.c, calls.c, bounded.c,
// log.c, text.c) share; not part of the module's interface.

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

/// Sets `tables` in the environment's base at `base` (tables.c). Stack: [-0, +0, m]
void clua_tables_setup(lua_State *L, int base);

/// `__newindex` of everything the `tables` library hands out: raises (tables.c); what tells
/// its read-only proxies (rows, nested values) from other tables. Stack: [-3, +0, v]
int clua_tables_readonly(lua_State *L);

/// `__pairs` of a lookup table's row and of its nested values (tables.c). Stack: [-1, +3, -]
int clua_tables_pairs(lua_State *L);

/// Pushes the table behind a lookup table's row or nested value at `index` and returns 1;
/// -1, pushing nothing, for a proxy of the library's that is no value (`tables`, a handle); 0
/// for any other value (tables.c); why: the output wire writes a row as its cells. Stack: [-0, +(0|1), -]
int clua_tables_push_behind(lua_State *L, int index);

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

/// The `text` library (text.c): upper, lower, normalize, len, sub and trim over UTF-8, by
/// Unicode's rules, each counting its steps against the budget.
extern const luaL_Reg clua_text_functions[];

/// The Unicode version of the `text` library's tables ("15.0.0"); scripts read it as `text.unicode`.
extern const char *const clua_text_unicode_version;

// sandbox.c: the limits (allocator, hook, trips).

/// Nanoseconds of the monotonic clock, read the cheap way (sandbox.c); why: the deadline is checked per call and in the hook.
int64_t clua_now_ns(void);

/// The capped allocator; why: a per-interpreter memory cap. Refuses growth past the cap, never a shrink.
void *clua_sandbox_alloc(void *ud, void *ptr, size_t osize, size_t nsize);

/// What a tripped limit says; why: the hook, the checkpoints and the call's outcome say it alike.
const char *clua_sandbox_limit_message(int tripped);

/// The count hook; why: a sticky instruction budget and deadline. Once tripped (memory too) it
/// re-arms on every instruction, so a script's `pcall` cannot swallow the error and go on.
/// Stack: [-0, +0, v]
void clua_sandbox_hook(lua_State *L, lua_Debug *ar);

/// Makes a limit sticky once it has tripped: a memory error becomes `tripped` too, and the
/// hook fires on every instruction from now on; why: the protected calls scripts make (pcall,
/// xpcall) must hand a tripped limit on, not swallow it. Returns whether a limit has tripped.
int clua_sandbox_trips(lua_State *L, int status);

/// Panics only on a host bug (an unprotected error); why: `lua_newstate` installs no panic handler.
/// Stack: [-0, +0, -]
int clua_sandbox_panic(lua_State *L);

// library.c: the functions scripts call in place of Lua's, and `json`.

/// `setmetatable` for scripts; why: refuses `__gc` and `__close`, which run where no hook can
/// stop them. Stack: [-2, +1, v]
int clua_sandbox_setmetatable(lua_State *L);

/// `rawset` for scripts; why: the library tables are read-only proxies, even to raw writes.
/// Stack: [-3, +1, v]
int clua_sandbox_rawset(lua_State *L);

/// `pcall` for scripts; why: a limit that tripped inside (budget, deadline, memory) is raised
/// again at once, so not even a tail call `return pcall(f)` gets back to the host as a value.
/// Stack: [-(nargs+1), +(nresults+1|2), e]
int clua_sandbox_pcall(lua_State *L);

/// `xpcall` for scripts; why: Lua runs a message handler inside the hook that raised, where
/// hooks are off, so a handler that loops would never stop. This one runs the handler after
/// the error has unwound, under its own `pcall`, with hooks (and the sticky budget) on; a
/// tripped limit skips the handler and is raised again, like `pcall` does.
/// Stack: [-(nargs+2), +(nresults+1|2), e]
int clua_sandbox_xpcall(lua_State *L);

/// `require` for scripts; why: loads only other scripts the host handed over, as text, once.
/// Stack: [-1, +1, e]
int clua_sandbox_require(lua_State *L);

/// Raises "read-only"; why: the `__newindex` of every library proxy. Stack: [-3, +0, v]
int clua_sandbox_readonly_error(lua_State *L);

/// `json.array(t)`: marks `t` (or a new table) as a JSON array. Stack: [-(0|1), +1, v]
int clua_json_array(lua_State *L);

/// `json.object(t)`: marks `t` (or a new table) as a JSON object. Stack: [-(0|1), +1, v]
int clua_json_object(lua_State *L);

/// `json.type(v)`; why: tells "array" from "object" and "integer" from "float", which `type`
/// cannot. Stack: [-1, +1, v]
int clua_json_type(lua_State *L);

/// Moves every entry of the table at `from` into the table at `to` (or drops them if `to` is 0);
/// why: globals are cleared between calls, and load-time globals are kept apart. Stack: [-0, +0, m]
void clua_sandbox_drain(lua_State *L, int from, int to);

// wire.c: the wire format.

/// What `clua_wire_push` answers: the value is pushed, the wire is malformed (a host bug), or
/// the value nests deeper than CLUA_MAX_DEPTH (a payload can).
enum { CLUA_PUSH_OK = 1, CLUA_PUSH_MALFORMED = 0, CLUA_PUSH_TOO_DEEP = -1 };

/// Pushes the value a wire encodes; why: host values enter Lua under `lua_pcall`. Returns
/// CLUA_PUSH_OK, or why not, leaving what it pushed so far. Stack: [-0, +1, v]
int clua_wire_push(lua_State *L, clua_sandbox *s, const uint8_t **cursor, const uint8_t *end, int depth);

/// Writes the value at `index` to the output wire, with raw access only: no metamethod of a
/// script's table ever runs here. Returns 0 with `call->message` set when it cannot. Stack: [-0, +0, v]
int clua_wire_write(lua_State *L, clua_call *call, int index, const void **ancestors, int depth);

/// Appends bytes to the output wire, within its limit. Returns 0 when full.
int clua_wire_append(clua_call *call, const void *bytes, size_t count);

// view.c: a call's input as views over its JSON text.

/// Pushes the value of an input's JSON text (`start..<end`): a scalar, or a view. Returns
/// CLUA_PUSH_OK, or why not (malformed, or nested deeper than CLUA_MAX_DEPTH). Stack: [-0, +(0|1), v]
int clua_text_push_input(lua_State *L, const uint8_t *start, const uint8_t *end);

/// Makes the views' metatable (`s->view_mt`). Stack: [-0, +0, m]
void clua_view_setup(lua_State *L, clua_sandbox *s);

/// Whether the value at `index` is a view. Stack: [-0, +0, -]
int clua_view_is(lua_State *L, int index);

/// Whether the view at `index` is an array. Stack: [-0, +0, -]
int clua_view_is_array(lua_State *L, int index);

/// Writes the view at `index` to the output wire (see view.c). Stack: [-0, +0, v]
int clua_view_write(lua_State *L, clua_call *call, int index, const void **ancestors, int depth);

/// Pushes a deep copy of the value at `index`, views and tables as marked tables. Stack: [-0, +1, v]
void clua_value_copy(lua_State *L, int index, int depth);

/// `type`, `next`, `rawget`, `rawlen` for scripts: a view acts as the table it stands for.
int clua_sandbox_type(lua_State *L);
int clua_sandbox_next(lua_State *L);
int clua_sandbox_rawget(lua_State *L);
int clua_sandbox_rawlen(lua_State *L);

/// `rawset(v, k, x)` on a view: as `v[k] = x`. Stack: [-3, +1, v]
int clua_view_rawset(lua_State *L);

/// `json.copy(v)`: a deep copy the script may keep. Stack: [-1, +1, v]
int clua_json_copy(lua_State *L);

#endif
