// The transformer sandbox; lua_sandbox.h says what it is for, docs/lua.md what scripts see.
//
// Stack effects are written as the Lua manual writes them, `Stack: [-o, +p, x]`: `o` values
// popped, `p` pushed, and `x` one of `-` (raises nothing), `m` (may raise a memory error), `v`
// (raises on purpose) or `e` (may raise anything: it runs a script's code). For a function
// scripts call, what it pops is its arguments and what it pushes its results.
#define _GNU_SOURCE
#include "sandbox_internal.h"

#include <math.h>
#include <pthread.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/// Nanoseconds of the monotonic clock, read the cheap way (CLOCK_MONOTONIC_COARSE on Linux:
/// the kernel's last tick, a few milliseconds fine, without the hardware counter); why: every
/// call reads it twice (arming its deadline, checking it at the end) and the hook once per
/// thousand instructions, and deadlines are hundreds of milliseconds.
int64_t clua_now_ns(void) {
    struct timespec now;
#if defined(CLOCK_MONOTONIC_COARSE)
    clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
#else
    clock_gettime(CLOCK_MONOTONIC, &now);
#endif
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

/// The sandbox of a state; why: the hook and the C functions find their limits through `ud`.
clua_sandbox *clua_sandbox_of(lua_State *L) {
    void *ud = NULL;
    lua_getallocf(L, &ud);
    return (clua_sandbox *)ud;
}

/// The capped allocator; why: a per-interpreter memory cap. Refuses growth past the cap, never a shrink.
void *clua_sandbox_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    clua_sandbox *s = (clua_sandbox *)ud;
    size_t old = ptr ? osize : 0;
    if (nsize == 0) {
        free(ptr);
        s->memory_used -= old;
        return NULL;
    }
    if (nsize > old && s->memory_used - old + nsize > s->memory_limit) return NULL;
    void *block = realloc(ptr, nsize);
    if (block == NULL) return nsize <= old ? ptr : NULL;
    s->memory_used = s->memory_used - old + nsize;
    return block;
}

/// What a tripped limit says; why: the hook, the checkpoints and the call's outcome say it alike.
const char *clua_sandbox_limit_message(int tripped) {
    switch (tripped) {
    case CLUA_BUDGET: return "instruction budget exhausted";
    case CLUA_DEADLINE: return "deadline passed";
    default: return "not enough memory";
    }
}

/// The count hook; why: a sticky instruction budget and deadline. Once tripped (memory too) it
/// re-arms on every instruction, so a script's `pcall` cannot swallow the error and go on.
/// Stack: [-0, +0, v]
void clua_sandbox_hook(lua_State *L, lua_Debug *ar) {
    (void)ar;
    clua_sandbox *s = clua_sandbox_of(L);
    if (!s->tripped) {
        s->budget_left -= CLUA_HOOK_STEP;
        if (s->budget_left <= 0) {
            s->tripped = CLUA_BUDGET;
        } else if (s->deadline_ns != 0 && clua_now_ns() >= s->deadline_ns) {
            s->tripped = CLUA_DEADLINE;
        } else {
            return;
        }
        lua_sethook(L, clua_sandbox_hook, LUA_MASKCOUNT, 1);
    }
    lua_pushstring(L, clua_sandbox_limit_message(s->tripped));
    lua_error(L);
}

/// Trips `limit` and raises it (see sandbox_internal.h). Stack: [-0, +0, v]
int clua_sandbox_trip(lua_State *L, int limit) {
    clua_sandbox *s = clua_sandbox_of(L);
    if (!s->tripped) s->tripped = limit;
    lua_sethook(L, clua_sandbox_hook, LUA_MASKCOUNT, 1);
    lua_pushstring(L, clua_sandbox_limit_message(s->tripped));
    return lua_error(L);
}

/// Charges `steps` of a C loop to the budget (see sandbox_internal.h). Stack: [-0, +0, v]
void clua_sandbox_charge(lua_State *L, int64_t steps) {
    clua_sandbox *s = clua_sandbox_of(L);
    if (s->tripped) clua_sandbox_trip(L, s->tripped);
    s->budget_left -= steps;
    if (s->budget_left <= 0) clua_sandbox_trip(L, CLUA_BUDGET);
    s->unclocked += steps;
    if (s->unclocked >= CLUA_STEP_QUANTUM) {
        s->unclocked = 0;
        if (s->deadline_ns != 0 && clua_now_ns() >= s->deadline_ns) clua_sandbox_trip(L, CLUA_DEADLINE);
    }
}

/// The bytes the interpreter may still allocate under its memory cap; what the bounded library
/// sizes a result against before it allocates. Stack: [-0, +0, -]
size_t clua_sandbox_headroom(lua_State *L) {
    clua_sandbox *s = clua_sandbox_of(L);
    return s->memory_used >= s->memory_limit ? 0 : s->memory_limit - s->memory_used;
}

/// Makes a limit sticky once it has tripped: a memory error becomes `tripped` too, and the
/// hook fires on every instruction from now on; why: the protected calls scripts make (pcall,
/// xpcall) must hand a tripped limit on, not swallow it. Returns whether a limit has tripped.
int clua_sandbox_trips(lua_State *L, int status) {
    clua_sandbox *s = clua_sandbox_of(L);
    if (!s->tripped && status == LUA_ERRMEM) s->tripped = CLUA_MEMORY;
    if (s->tripped) lua_sethook(L, clua_sandbox_hook, LUA_MASKCOUNT, 1);
    return s->tripped != 0;
}

/// Panics only on a host bug (an unprotected error); why: `lua_newstate` installs no panic handler.
/// Stack: [-0, +0, -]
int clua_sandbox_panic(lua_State *L) {
    const char *message = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "(not a string)";
    fprintf(stderr, "mappings: unprotected Lua error (a bug in the host): %s\n", message);
    abort();
}
