#ifndef LUA_SANDBOX_H
#define LUA_SANDBOX_H

// The transformer sandbox, in C: everything that can raise a Lua error runs there, under
// `lua_pcall`, so no longjmp ever crosses a Swift frame. Swift sees plain functions that
// return status codes, and moves values across in the wire format (a flat byte encoding of
// JSON). The limits are in sandbox.c, the functions scripts call in library.c (bounded.c,
// log.c), the environment in environment.c, the wire format in wire.c, the operations the
// host runs in calls.c.
//
// The design and the attacks it answers are in docs/lua.md and
// ../shared/reference/lua-sandbox.md. In short: an allow-list environment; text chunks only;
// read-only library tables; a string metatable scripts cannot reach; `setmetatable` refusing
// `__gc`/`__close`; globals cleared before every call; a memory cap in the allocator; a
// sticky instruction budget and deadline in the count hook.
//
// Stack effects are in the Lua manual's notation, `Stack: [-o, +p, x]`; an operation that runs
// under `lua_pcall` counts its argument (the `clua_call`, a light userdata) as popped.

#include <lua.h>
#include <lualib.h>
#include <lauxlib.h>

#include <stddef.h>
#include <stdint.h>

/// How often (in VM instructions) the count hook runs; the budget is checked at this grain.
#define CLUA_HOOK_STEP 1000
/// The deepest table nesting that crosses the bridge, either way.
#define CLUA_MAX_DEPTH 128
/// The most values (nodes) one returned value may hold.
#define CLUA_MAX_NODES 262144
/// The most bytes one returned value may take on the wire (strings included) when the call sets
/// no `output_limit` of its own.
#define CLUA_MAX_WIRE_BYTES (16u << 20)
/// The longest error message kept from a script; longer ones are cut.
#define CLUA_MESSAGE_SIZE 512
/// The longest message one `log(...)` keeps, in bytes; the rest is cut (and the line says so).
#define CLUA_LOG_LINE_SIZE CLUA_MESSAGE_SIZE
/// The most lines one call keeps from `log(...)`; later ones are dropped and counted.
#define CLUA_LOG_LINES_PER_CALL 16
/// The instruction steps one `log(...)` costs, besides one per table entry it shows.
#define CLUA_LOG_COST 1000
/// How many entries of one table `log(...)` shows, and how deep it shows nested tables.
#define CLUA_LOG_TABLE_ITEMS 16
#define CLUA_LOG_TABLE_DEPTH 2

/// The instruction steps one lookup in a table of `tables` costs (tables.c).
#define CLUA_TABLE_LOOKUP_COST 10

/// Wire tags: one byte each, then the payload (little-endian, as the host writes it).
enum {
    CLUA_WIRE_NULL = 'n',
    CLUA_WIRE_TRUE = 't',
    CLUA_WIRE_FALSE = 'f',
    CLUA_WIRE_INTEGER = 'i',  // + int64
    CLUA_WIRE_DOUBLE = 'd',   // + double
    CLUA_WIRE_STRING = 's',   // + uint32 length + bytes
    CLUA_WIRE_ARRAY = 'a',    // + uint32 count + values
    CLUA_WIRE_OBJECT = 'o',   // + uint32 count + (uint32 length + key bytes + value) each
    CLUA_WIRE_EMPTY = 'e',    // results only: an empty table no `json.array`/`json.object` marked
    CLUA_WIRE_TEXT = 'j',     // + uint32 length + JSON text: an input a script reads as a view
                              // (view.c); in results, a view returned unchanged
    CLUA_WIRE_INPUT = 'I',    // results only: the call's input, returned unchanged
};

/// Why a sandboxed operation failed (0 is success); macros so Swift imports them as `Int32`.
#define CLUA_OK 0
/// The script failed: error(...), a runtime error, or nil + message.
#define CLUA_FAILED 1
/// The instruction budget ran out (sticky).
#define CLUA_BUDGET 2
/// The deadline passed (sticky).
#define CLUA_DEADLINE 3
/// The memory cap was hit.
#define CLUA_MEMORY 4
/// The returned value cannot cross the bridge.
#define CLUA_BAD_RESULT 5
/// The host's wire is malformed (a host bug).
#define CLUA_BAD_INPUT 6

// What `clua_sandbox_resolve_protected` leaves in `function_ref` when it finds no function (a
// registry reference is never negative); macros so Swift imports them as `Int32`.

/// The module returned something other than a table; `source` names its type.
#define CLUA_RESOLVE_NOT_A_TABLE (-2)
/// The module's table has no function under that name.
#define CLUA_RESOLVE_MISSING_FUNCTION (-1)

/// The state of one interpreter that the allocator and the hook share; the allocator's `ud`.
typedef struct clua_sandbox {
    size_t memory_limit;
    size_t memory_used;
    int64_t budget_left;
    int64_t deadline_ns;      // CLOCK_MONOTONIC; 0 means none
    int64_t unclocked;        // steps charged by C functions since the deadline was last checked
    int tripped;              // 0, CLUA_BUDGET, CLUA_DEADLINE or CLUA_MEMORY
    const void *array_mt;     // identity of the metatable that marks JSON arrays
    const void *object_mt;    // identity of the metatable that marks JSON objects
    const void *view_mt;      // identity of the metatable of views (view.c)
    int array_mt_ref, object_mt_ref, view_mt_ref, env_ref, loaded_ref, sources_ref, snapshot_ref;
    uint64_t generation;      // bumped when a call starts and ends: a view of another is stale
    struct clua_call *call;   // the call running now (where `log` puts its lines), or NULL
    // The running call's input text (in its wire) when the record it came from has a published
    // structural index: views read their members through `positions` (offsets in the record;
    // `indexed_origin` is the record offset of `indexed_text[0]`). NULL otherwise.
    const uint8_t *indexed_text, *indexed_end;
    const uint32_t *positions;
    const uint64_t *matches;  // where each container closes (json_index.h), or NULL
    uint32_t matches_generation;
    size_t indexed_entries, indexed_origin;
    // The member tables of the views of the published record that calls built, by the record
    // offset of the container (a Lua table in the registry): the object two calls of one record
    // read is indexed once. Emptied when another record is published (`cached_record`, `cached_serial`).
    int view_cache_ref;
    size_t view_cache_bytes;  // the bytes of the tables kept (at most CLUA_VIEW_CACHE_BYTES, view.c)
    const void *cached_record;
    uint64_t cached_serial;
} clua_sandbox;

/// One call's inputs and outputs, handed to the protected trampolines.
typedef struct clua_call {
    clua_sandbox *sandbox;
    int function_ref;          // a registry reference, or CLUA_RESOLVE_NOT_A_TABLE / _MISSING_FUNCTION
    const uint8_t *input;
    size_t input_count;
    const uint8_t *input_origin; // where the input's JSON text is in the host's bytes, or NULL
    int input_is_text;         // `input` is that JSON text itself (no wire: no copy, in process)
    const uint8_t *user_data;  // NULL: no user data
    size_t user_data_count;
    const char *module;        // for loading: the module name
    const char *function;      // for resolving: the function name
    uint8_t *output;           // malloc'd wire of the result
    size_t output_count, output_capacity;
    size_t output_limit;       // the most bytes the result's wire may take; 0: CLUA_MAX_WIRE_BYTES
    int nodes;
    int status;
    int line_defined;
    char message[CLUA_MESSAGE_SIZE];
    char source[256];
    int log_limit;             // the most lines `log(...)` keeps in this call; 0: logging is off
    int log_kept, log_dropped; // lines kept in `log`, and lines over `log_limit`
    char *log;                 // malloc'd: "place\tmessage\n" per line kept, control bytes escaped
    size_t log_count;
} clua_call;

/// Creates a sandboxed interpreter with a memory cap, or NULL when even that fails; its stack is
/// left empty. Stack: [-0, +0, -]
lua_State *clua_sandbox_open(size_t memory_limit);

/// How many views found their members through a record's structural index (view.c) on the
/// calling thread; why: tests tell the indexed path from the bytes' path.
uint64_t clua_views_indexed_total(void);

/// Closes an interpreter made by `clua_sandbox_open`.
void clua_sandbox_close(lua_State *L);

/// Bytes the interpreter holds now; why: tests and reports show memory against the cap.
size_t clua_sandbox_memory(lua_State *L);

/// Runs `operation` under `lua_pcall` with the budget armed and turns the outcome into a status,
/// with the message in `call->message`; why: the one place a Lua error becomes a host value.
/// Stack: [-0, +0, -]
int clua_sandbox_run(lua_State *L, lua_CFunction operation, clua_call *call, int64_t budget,
                                   int64_t timeout_ns);

/// Frees a call's output wire and log lines.
void clua_call_release(clua_call *call);

/// Readies a call for another operation: frees its log lines and clears its inputs, but keeps
/// its output block (up to 64 KiB); why: an interpreter reuses one call, with no allocation per call.
void clua_call_reuse(clua_call *call);

/// The record the calling thread is mapping (its input line), 0 when none; why: a host sets it
/// per record and reads it back when it writes that record's log lines, without a lock.
int64_t clua_log_record(void);

/// Sets what `clua_log_record` returns on this thread.
void clua_log_set_record(int64_t record);

/// Bytes of stack left below the current frame on this thread; why: Lua's C recursion needs
/// about 512 KiB, and a host may call from a thread with less.
size_t clua_stack_remaining(void);

/// Registers a script's text under its module name; runs under `lua_pcall`. Stack: [-1, +0, m]
int clua_sandbox_add_source_protected(lua_State *L);

/// Compiles a text chunk without running it (`input`, named `function`); a syntax error fails
/// the operation with Lua's message; runs under `lua_pcall`. Stack: [-1, +0, m]
int clua_sandbox_compile_protected(lua_State *L);

/// Loads a module and finds one of its functions (or leaves a CLUA_RESOLVE_* in `function_ref`);
/// runs under `lua_pcall`. Stack: [-1, +0, e]
int clua_sandbox_resolve_protected(lua_State *L);

/// Lists the function names a module returns, newline-separated, into `call->output`; why:
/// suggestions. Stack: [-1, +0, e]
int clua_sandbox_functions_protected(lua_State *L);

/// One transformer call; runs under `lua_pcall`: decode the input and user data, call, encode.
/// Stack: [-1, +0, e]
int clua_sandbox_call_protected(lua_State *L);

/// One value of a batch (`clua_sandbox_run_batch`): its input wire, and what came of it.
typedef struct clua_batch_item {
    const uint8_t *input;       // in: the value's wire
    size_t input_count;
    int status;                 // out: as `clua_sandbox_run` returns it
    int log_dropped;            // out: lines over the call's log limit
    size_t output_start;        // out: the result's wire, `batch->output[start..<start + count]`
    size_t output_count;
    size_t log_start;           // out: the lines logged, `batch->log[start..<start + count]`
    size_t log_count;
    char message[CLUA_MESSAGE_SIZE];  // out: why it failed
} clua_batch_item;

/// Where a batch's results and log lines go, malloc'd and grown as they come.
typedef struct clua_batch {
    uint8_t *output;
    size_t output_count, output_capacity;
    char *log;
    size_t log_count, log_capacity;
} clua_batch;

/// Calls the function of `call` (`function_ref`, `user_data`, `output_limit`, `log_limit` set)
/// once per item, each a call of its own (`clua_sandbox_call_protected` under `lua_pcall`, its
/// budget and deadline armed anew); returns how many items ran: all, or up to the first whose
/// failure leaves the interpreter unfit (a tripped limit: the host goes on with a fresh one), or
/// up to the one after which the results hold `output_budget` bytes (0: no bound); why: one call
/// from the host, and one request to a worker, for many records. Stack: [-0, +0, -]
size_t clua_sandbox_run_batch(lua_State *L, clua_call *call, clua_batch_item *items, size_t count,
                              clua_batch *batch, size_t output_budget, int64_t budget, int64_t timeout_ns);

/// Frees a batch's results and log lines.
void clua_batch_release(clua_batch *batch);

/// Adds the lookup table `call->module` (tables.c) from `call->input`, the wire of an array of
/// [key text, row object] pairs in the file's order, replacing one of that name; its memory is
/// added to the interpreter's cap. Runs under `lua_pcall`. Stack: [-1, +0, m]
int clua_tables_add_protected(lua_State *L);

/// A connected pair of Unix sockets that close on exec, the channel to a worker process.
int clua_worker_channel(int descriptors[2]);

#endif
