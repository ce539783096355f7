// The sandbox: the protected operations the host runs (load, resolve, call).
// Stack effects are written as sandbox.c says.
#define _GNU_SOURCE
#include "sandbox_internal.h"

#include "json_index.h"

#include <math.h>
#include <pthread.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

// MARK: Protected operations

/// Keeps a script's message, cut to what `call->message` holds: a longer one keeps its head (up
/// to a whole UTF-8 character) and says how long it was; why: a message is read by people and
/// logged per record, and a script chooses its size.
static void clua_call_keep_message(clua_call *call, const char *message, size_t length) {
    if (length < CLUA_MESSAGE_SIZE) {
        memcpy(call->message, message, length);
        call->message[length] = 0;
        return;
    }
    size_t head = CLUA_MESSAGE_SIZE - 64;
    while (head > 0 && ((unsigned char)message[head] & 0xC0) == 0x80) head--;
    snprintf(call->message, CLUA_MESSAGE_SIZE, "%.*s… (cut: %zu bytes in all)", (int)head, message, length);
}

/// Re-arms the instruction budget, the deadline and the count hook for the next call, and
/// clears what tripped the previous one (the globals are cleared by the call itself).
/// Stack: [-0, +0, -]
static void clua_sandbox_arm(lua_State *L, int64_t budget, int64_t timeout_ns) {
    clua_sandbox *s = clua_sandbox_of(L);
    s->budget_left = budget;
    s->deadline_ns = timeout_ns > 0 ? clua_now_ns() + timeout_ns : 0;
    s->tripped = 0;
    s->unclocked = 0;
    lua_sethook(L, clua_sandbox_hook, LUA_MASKCOUNT, CLUA_HOOK_STEP);
}

/// Registers a script's text under its module name; runs under `lua_pcall`, with the call (a
/// light userdata) as its argument. Stack: [-1, +0, m]
int clua_sandbox_add_source_protected(lua_State *L) {
    clua_call *call = (clua_call *)lua_touserdata(L, 1);
    clua_sandbox *s = call->sandbox;
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->sources_ref);
    lua_createtable(L, 2, 0);
    lua_pushlstring(L, (const char *)call->input, call->input_count);
    lua_rawseti(L, -2, 1);
    lua_pushstring(L, call->function);
    lua_rawseti(L, -2, 2);
    lua_setfield(L, -2, call->module);
    return 0;
}

/// Compiles `call->input` as a text chunk named `call->function`, without running it; a syntax
/// error is the operation's failure; why: inline code is checked, and its form chosen, before it
/// becomes a module. Runs under `lua_pcall`, with the call (a light userdata) as its argument.
/// Stack: [-1, +0, m]
int clua_sandbox_compile_protected(lua_State *L) {
    clua_call *call = (clua_call *)lua_touserdata(L, 1);
    if (luaL_loadbufferx(L, (const char *)call->input, call->input_count, call->function, "t") != LUA_OK)
        return lua_error(L);
    lua_pop(L, 1);
    return 0;
}

/// Empties the stack and pushes what `require(call->module)` returns; its index. Stack: [-n, +1, e]
static int clua_require_module(lua_State *L, clua_call *call) {
    lua_settop(L, 0);
    lua_pushcfunction(L, clua_sandbox_require);
    lua_pushstring(L, call->module);
    lua_call(L, 1, 1);
    return lua_gettop(L);
}

/// Loads a module and finds one of its functions: a registry reference in `call->function_ref`,
/// or CLUA_RESOLVE_NOT_A_TABLE or CLUA_RESOLVE_MISSING_FUNCTION; runs under `lua_pcall`, with the
/// call (a light userdata) as its argument. Stack: [-1, +0, e]
int clua_sandbox_resolve_protected(lua_State *L) {
    clua_call *call = (clua_call *)lua_touserdata(L, 1);
    int module = clua_require_module(L, call);
    if (lua_type(L, module) != LUA_TTABLE) {
        call->function_ref = CLUA_RESOLVE_NOT_A_TABLE;
        snprintf(call->source, sizeof call->source, "%s", luaL_typename(L, module));
        return 0;
    }
    lua_pushstring(L, call->function);
    if (lua_rawget(L, module) != LUA_TFUNCTION) {
        call->function_ref = CLUA_RESOLVE_MISSING_FUNCTION;
        return 0;
    }
    lua_Debug info;
    lua_pushvalue(L, -1);
    lua_getinfo(L, ">S", &info);
    call->line_defined = info.linedefined;
    snprintf(call->source, sizeof call->source, "%s", info.short_src);
    call->function_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    return 0;
}

/// Lists the function names a module returns, newline-separated, into `call->output`; why:
/// suggestions. Runs under `lua_pcall`, with the call (a light userdata) as its argument.
/// Stack: [-1, +0, e]
int clua_sandbox_functions_protected(lua_State *L) {
    clua_call *call = (clua_call *)lua_touserdata(L, 1);
    int module = clua_require_module(L, call);
    if (lua_type(L, module) != LUA_TTABLE) return 0;
    lua_pushnil(L);
    while (lua_next(L, module)) {
        if (lua_type(L, -2) == LUA_TSTRING && lua_type(L, -1) == LUA_TFUNCTION) {
            size_t length = 0;
            const char *name = lua_tolstring(L, -2, &length);
            clua_wire_append(call, name, length);
            clua_wire_append(call, "\n", 1);
        }
        lua_pop(L, 1);
    }
    return 0;
}

/// Marks a call whose input could not be given to the script, and says why in its message; why:
/// no issue may have an empty reason.
static void clua_sandbox_refuse_input(clua_call *call, int pushed, const char *what) {
    call->status = CLUA_BAD_INPUT;
    if (pushed == CLUA_PUSH_TOO_DEEP)
        snprintf(call->message, sizeof call->message,
                 "the %s nests deeper than %d levels, more than a script is given", what, CLUA_MAX_DEPTH);
    else
        snprintf(call->message, sizeof call->message, "the host's encoding of the %s is malformed (a bug)", what);
}

/// Finds the structural index of the record the call's input text comes from, when the host
/// published one on this thread (`cjson_index_publish`) and the text lies in that record; why:
/// views then read members through index entries built once per record, not the bytes. A
/// record other than the last one's empties the views' member tables kept for it.
/// Stack: [-0, +0, m]
static void clua_sandbox_find_index(lua_State *L, clua_sandbox *s, const clua_call *call) {
    s->indexed_text = s->indexed_end = NULL;
    if (call->input_origin == NULL) return;
    const uint8_t *text = call->input;
    size_t length = call->input_count;
    if (!call->input_is_text) {
        if (call->input_count < 5 || call->input[0] != CLUA_WIRE_TEXT) return;
        length = (size_t)call->input[1] | (size_t)call->input[2] << 8 | (size_t)call->input[3] << 16
            | (size_t)call->input[4] << 24;
        if (length != call->input_count - 5) return;
        text += 5;
    }
    const cjson_index_record *record = cjson_index_published();
    if (record == NULL || call->input_origin < record->bytes || length > record->count
        || (size_t)(call->input_origin - record->bytes) > record->count - length)
        return;
    s->indexed_text = text;
    s->indexed_end = s->indexed_text + length;
    s->positions = record->positions;
    s->matches = record->matches;
    s->matches_generation = record->generation;
    s->indexed_entries = record->entries;
    s->indexed_origin = (size_t)(call->input_origin - record->bytes);
    if (s->cached_record != (const void *)record || s->cached_serial != record->serial) {
        lua_createtable(L, 0, 4);
        lua_rawseti(L, LUA_REGISTRYINDEX, s->view_cache_ref);
        s->cached_record = record;
        s->cached_serial = record->serial;
        s->view_cache_bytes = 0;
    }
}

/// One transformer call: decode the input and user data, call, encode. Runs under `lua_pcall`,
/// with the call (a light userdata) as its argument. Stack: [-1, +0, e]
int clua_sandbox_call_protected(lua_State *L) {
    clua_call *call = (clua_call *)lua_touserdata(L, 1);
    clua_sandbox *s = call->sandbox;
    s->generation++;  // views of earlier calls are stale from here on
    lua_settop(L, 0);
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->env_ref);
    clua_sandbox_drain(L, -1, 0);
    lua_pop(L, 1);
    lua_rawgeti(L, LUA_REGISTRYINDEX, call->function_ref);
    clua_sandbox_find_index(L, s, call);
    const uint8_t *cursor = call->input, *end = call->input + call->input_count;
    int pushed = call->input_is_text ? (cursor = end, clua_text_push_input(L, call->input, end))
                                     : clua_wire_push(L, s, &cursor, end, 0);
    if (pushed != CLUA_PUSH_OK || cursor != end) {
        clua_sandbox_refuse_input(call, pushed, "value");
        return 0;
    }
    if (call->user_data) {
        cursor = call->user_data;
        pushed = clua_wire_push(L, s, &cursor, call->user_data + call->user_data_count, 0);
        if (pushed != CLUA_PUSH_OK) {
            clua_sandbox_refuse_input(call, pushed, "user data");
            return 0;
        }
    } else {
        lua_pushnil(L);
    }
    call->status = CLUA_FAILED;  // until the function returns
    lua_call(L, 2, 2);
    int result = lua_gettop(L) - 1, refusal = lua_gettop(L);
    // `nil, message` refuses the value; a second value that is no message is a refusal too.
    if (lua_isnil(L, result) && !lua_isnil(L, refusal)) {
        int kind = lua_type(L, refusal);
        if (kind == LUA_TSTRING || kind == LUA_TNUMBER) {
            size_t length = 0;
            const char *message = lua_tolstring(L, refusal, &length);
            clua_call_keep_message(call, message, length);
        } else {
            snprintf(call->message, CLUA_MESSAGE_SIZE, "refused without a message (its second value is a %s, not a string)",
                     kind == LUA_TLIGHTUSERDATA ? "json.null" : luaL_typename(L, refusal));
        }
        return 0;
    }
    const void *ancestors[CLUA_MAX_DEPTH];
    call->nodes = 0;
    call->output_count = 0;
    if (!clua_wire_write(L, call, result, ancestors, 0)) {
        call->status = CLUA_BAD_RESULT;
        return 0;
    }
    call->status = CLUA_OK;
    return 0;
}

/// Runs `operation` under `lua_pcall` with the budget armed and turns the outcome into a status,
/// with the message in `call->message`; why: the one place a Lua error becomes a host value.
/// Stack: [-0, +0, -]
int clua_sandbox_run(lua_State *L, lua_CFunction operation, clua_call *call, int64_t budget,
                                   int64_t timeout_ns) {
    clua_sandbox *s = clua_sandbox_of(L);
    call->sandbox = s;
    call->status = CLUA_OK;
    call->message[0] = 0;
    int top = lua_gettop(L);
    clua_sandbox_arm(L, budget, timeout_ns);
    s->indexed_text = s->indexed_end = NULL;  // only a transformer call's own input has an index
    lua_pushcfunction(L, operation);
    lua_pushlightuserdata(L, call);
    s->call = call;
    int status = lua_pcall(L, 1, 0, 0);
    s->call = NULL;
    s->indexed_text = s->indexed_end = NULL;
    s->generation++;  // the input a call's views read is the host's again
    int tripped = s->tripped;
    // A result that comes back after the deadline is refused too: the call ran past it.
    if (!tripped && s->deadline_ns != 0 && clua_now_ns() >= s->deadline_ns) tripped = CLUA_DEADLINE;
    lua_sethook(L, clua_sandbox_hook, LUA_MASKCOUNT, CLUA_HOOK_STEP);
    s->tripped = 0;
    // A limit that tripped during the call decides its outcome, whatever the script did after.
    if (status == LUA_OK && !tripped) {
        lua_settop(L, top);
        return call->status;
    }
    if (tripped == CLUA_BUDGET || tripped == CLUA_DEADLINE) {
        call->status = tripped;
        snprintf(call->message, CLUA_MESSAGE_SIZE, "%s", clua_sandbox_limit_message(tripped));
    } else if (tripped == CLUA_MEMORY || status == LUA_ERRMEM) {
        call->status = CLUA_MEMORY;
        snprintf(call->message, CLUA_MESSAGE_SIZE, "not enough memory (the interpreter's limit is %zu bytes)",
                 s->memory_limit);
    } else {
        call->status = CLUA_FAILED;
        if (status == LUA_ERRERR) {
            snprintf(call->message, CLUA_MESSAGE_SIZE, "error in error handling");
        } else if (lua_type(L, -1) == LUA_TSTRING) {
            size_t length = 0;
            const char *message = lua_tolstring(L, -1, &length);
            clua_call_keep_message(call, message, length);
        } else if (lua_type(L, -1) == LUA_TNIL) {
            snprintf(call->message, CLUA_MESSAGE_SIZE, "error called with nil");
        } else {
            snprintf(call->message, CLUA_MESSAGE_SIZE, "(error object is a %s value)", luaL_typename(L, -1));
        }
    }
    lua_settop(L, top);
    return call->status;
}

/// Frees a call's output wire and log lines.
void clua_call_release(clua_call *call) {
    free(call->output);
    call->output = NULL;
    call->output_count = call->output_capacity = 0;
    free(call->log);
    call->log = NULL;
    call->log_count = 0;
}

/// The output block a reused call keeps between calls; a larger one is freed.
#define CLUA_KEPT_OUTPUT_CAPACITY (64u << 10)

/// Readies a call for the next operation: frees its log lines, keeps its output block (when
/// small), clears its inputs; why: an interpreter reuses one call for every transformer call.
void clua_call_reuse(clua_call *call) {
    if (call->output_capacity > CLUA_KEPT_OUTPUT_CAPACITY) {
        free(call->output);
        call->output = NULL;
        call->output_capacity = 0;
    }
    call->output_count = 0;
    free(call->log);
    call->log = NULL;
    call->log_count = 0;
    call->log_kept = call->log_dropped = 0;
    call->input = call->user_data = call->input_origin = NULL;
    call->input_is_text = 0;
    call->input_count = call->user_data_count = 0;
    call->module = call->function = NULL;
    call->nodes = 0;
}

/// Bytes of stack left below the current frame on this thread; why: Lua's C recursion needs
/// about 512 KiB, and a host may call from a thread with less.
size_t clua_stack_remaining(void) {
    static _Thread_local uintptr_t low = 0;
    if (low == 0) {
#if defined(__APPLE__)
        // Darwin gives the top of the stack (it grows down) and its size.
        pthread_t self = pthread_self();
        uintptr_t top = (uintptr_t)pthread_get_stackaddr_np(self);
        size_t size = pthread_get_stacksize_np(self);
        low = top > size ? top - size : 1;
#elif defined(__linux__)
        pthread_attr_t attributes;
        void *address = NULL;
        size_t size = 0;
        if (pthread_getattr_np(pthread_self(), &attributes) == 0) {
            pthread_attr_getstack(&attributes, &address, &size);
            pthread_attr_destroy(&attributes);
        }
        low = address ? (uintptr_t)address : 1;
#else
        low = 1;  // unknown: the call stays on its thread
#endif
    }
    char here = 0;
    uintptr_t at = (uintptr_t)&here;
    return at > low ? (size_t)(at - low) : 0;
}


/// A connected pair of Unix sockets whose ends close on exec; why: a worker process started by
/// another thread must not inherit them, and the host writes with MSG_NOSIGNAL, so a worker
/// that died is an error to handle, never a SIGPIPE that ends the host.
int clua_worker_channel(int descriptors[2]) {
#if defined(__linux__)
    return socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, descriptors);
#else
    // No SOCK_CLOEXEC nor MSG_NOSIGNAL elsewhere: the flag set after, and SO_NOSIGPIPE.
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, descriptors) != 0) return -1;
    for (int i = 0; i < 2; i++) {
        fcntl(descriptors[i], F_SETFD, FD_CLOEXEC);
#if defined(SO_NOSIGPIPE)
        int on = 1;
        setsockopt(descriptors[i], SOL_SOCKET, SO_NOSIGPIPE, &on, sizeof on);
#endif
    }
    return 0;
#endif
}
