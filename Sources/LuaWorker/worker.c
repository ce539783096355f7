// mappings-lua-worker: one sandboxed Lua interpreter in a process of its own, for
// `--lua-isolation process`. The host (MappingsLua's LuaWorkerProcess) starts it with one end
// of a Unix socket pair as its stdin and stdout, sends the scripts and the limits once, then
// one request at a time; a call that passes its deadline is ended by the host killing it.
//
// Before it reads a request, the worker limits its address space (RLIMIT_AS) and CPU time
// (RLIMIT_CPU) and installs a seccomp filter: from then
// on it can read, write and wait on the channel it has, manage memory, read clocks and exit;
// opening files, sockets, starting processes and every other system call fail with EPERM. The
// channel is non-blocking: after an answer the worker looks for the next request for 50 µs
// before it sleeps in `poll` (a host mapping records sends it within microseconds, and waking
// up costs more than that), and the host likewise looks for the answer before it sleeps.
//
// Framing (little-endian, as the host writes it):
//   setup:    u64 memory, i64 budget, i64 timeout_ns, u64 result_limit, u64 cpu_seconds,
//             u32 log_limit (the most `log(...)` lines a call keeps; 0: logging off), u32 modules,
//             then per module: str name, str chunk name, str text
//   request:  u8 kind ('R' resolve, 'N' names, 'C' call, 'S' add a module, 'K' compile only,
//             'T' add a lookup table), str module (for 'T': the table's name), str function
//             (for 'S' and 'K': the chunk name; empty for 'T'),
//             for 'C': u32 function_ref, str input wire, u8 has_user_data, [str user data wire];
//             for 'S' and 'K': str text; for 'T': str the wire of its keyed rows;
//             for 'B' (a batch): u32 function_ref, u8 has_user_data, [str user data wire],
//             u32 count, count × str input wire
//   response: i32 status, str message, i32 a, i32 b, str output, str log, u32 log_dropped
//             ('R': a = function_ref (or CLUA_RESOLVE_MISSING_FUNCTION, CLUA_RESOLVE_NOT_A_TABLE),
//              b = line, output = source;
//              'N': output = names, newline-separated; 'C': output = the result wire;
//              'B': a = how many items ran, output = per item i32 status, str message,
//              str result wire, str log lines, u32 lines dropped;
//              log = the lines the scripts logged meanwhile, "place\tmessage\n" each, and
//              log_dropped = those over log_limit: the host writes them, never the worker)
// where str is u32 length + bytes.
#define _GNU_SOURCE
#include <lua_sandbox.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <time.h>
#if defined(__linux__)
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#endif
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define WORKER_IN 0
#define WORKER_OUT 1
/// The exit status when the worker cannot go on: out of memory, or the scripts did not register.
#define WORKER_EXIT_FAILED 3
/// The exit status when a request is of no kind the worker knows (a host bug).
#define WORKER_EXIT_BAD_REQUEST 4
/// Address space for the program itself, beyond the interpreter's cap and the results.
#define WORKER_PROGRAM_SPACE (256u << 20)

/// How long a read looks for the next request before it sleeps until one comes, in
/// nanoseconds: a host mapping records sends the next call within microseconds, and waking
/// up costs more than that (most on a VM). The channel is non-blocking (see `main`).
#define WORKER_SPIN_NS 50000

static int64_t worker_now_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

/// Waits until the channel is ready for `events`; exits when it cannot wait.
static void worker_wait(int descriptor, short events) {
    struct pollfd poller = {.fd = descriptor, .events = events, .revents = 0};
    for (;;) {
        int ready = poll(&poller, 1, -1);
        if (ready > 0) return;
        if (ready < 0 && errno != EINTR) _exit(0);
    }
}

/// Reads what the channel has, at least one byte and at most `capacity`, into `into`; looks
/// for it a while before it sleeps (see WORKER_SPIN_NS), and exits when the host is gone.
static size_t worker_read_some(uint8_t *into, size_t capacity) {
    int64_t spin_until = 0;
    for (;;) {
        ssize_t got = read(WORKER_IN, into, capacity);
        if (got > 0) return (size_t)got;
        if (got < 0 && errno == EINTR) continue;
        if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (spin_until == 0) spin_until = worker_now_ns() + WORKER_SPIN_NS;
            if (worker_now_ns() >= spin_until) worker_wait(WORKER_IN, POLLIN);
            continue;
        }
        _exit(0);
    }
}

/// What the last read from the channel brought beyond what was asked: a request's small
/// fields (a batch has two per value) come from here, not from a system call each.
static uint8_t worker_buffer[1 << 16];
static size_t worker_buffered = 0, worker_taken = 0;

/// Reads exactly `count` bytes, or exits: the host closed the pipe or broke the framing.
static void worker_read(void *into, size_t count) {
    uint8_t *at = (uint8_t *)into;
    size_t ready = worker_buffered - worker_taken;
    size_t from_buffer = ready < count ? ready : count;
    memcpy(at, worker_buffer + worker_taken, from_buffer);
    worker_taken += from_buffer;
    at += from_buffer;
    count -= from_buffer;
    // A large rest goes straight where it belongs; a small one through the buffer.
    while (count >= sizeof worker_buffer / 2) {
        size_t got = worker_read_some(at, count);
        at += got;
        count -= got;
    }
    if (count == 0) return;
    worker_taken = worker_buffered = 0;
    while (worker_buffered < count)
        worker_buffered += worker_read_some(worker_buffer + worker_buffered, sizeof worker_buffer - worker_buffered);
    memcpy(at, worker_buffer, count);
    worker_taken = count;
}

static void worker_write(const void *bytes, size_t count) {
    const uint8_t *at = (const uint8_t *)bytes;
    while (count > 0) {
        ssize_t put = write(WORKER_OUT, at, count);
        if (put < 0 && errno == EINTR) continue;
        if (put < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            worker_wait(WORKER_OUT, POLLOUT);
            continue;
        }
        if (put <= 0) _exit(0);
        at += put;
        count -= (size_t)put;
    }
}

static uint64_t worker_u64(void) {
    uint64_t value;
    worker_read(&value, 8);
    return value;
}

static uint32_t worker_u32(void) {
    uint32_t value;
    worker_read(&value, 4);
    return value;
}

/// Reads a string into a malloc'd, NUL-terminated buffer; `length` gets its size.
static char *worker_string(size_t *length) {
    uint32_t count = worker_u32();
    char *text = (char *)malloc((size_t)count + 1);
    if (text == NULL) _exit(WORKER_EXIT_FAILED);
    worker_read(text, count);
    text[count] = 0;
    if (length) *length = count;
    return text;
}

/// Writes one response in one write; why: every write wakes the host, one per call is enough.
/// `call` gives the log lines (NULL: none).
static void worker_respond(int status, const char *message, int32_t a, int32_t b, const void *output, size_t count,
                           const clua_call *call) {
    uint32_t message_length = (uint32_t)strlen(message);
    uint32_t output_length = (uint32_t)count;
    uint32_t log_length = call ? (uint32_t)call->log_count : 0;
    uint32_t log_dropped = call ? (uint32_t)call->log_dropped : 0;
    size_t total = 4 + 4 + message_length + 4 + 4 + 4 + count + 4 + log_length + 4;
    uint8_t *frame = (uint8_t *)malloc(total);
    if (frame == NULL) _exit(WORKER_EXIT_FAILED);
    uint8_t *at = frame;
    int32_t status32 = status;
    memcpy(at, &status32, 4), at += 4;
    memcpy(at, &message_length, 4), at += 4;
    memcpy(at, message, message_length), at += message_length;
    memcpy(at, &a, 4), at += 4;
    memcpy(at, &b, 4), at += 4;
    memcpy(at, &output_length, 4), at += 4;
    if (count) memcpy(at, output, count), at += count;
    memcpy(at, &log_length, 4), at += 4;
    if (log_length) memcpy(at, call->log, log_length), at += log_length;
    memcpy(at, &log_dropped, 4);
    worker_write(frame, total);
    free(frame);
}

/// The seccomp filter: the system calls a worker needs, and EPERM for every other one (Linux
/// only: elsewhere the worker runs unconfined and says so, with its other limits on).
static int worker_confine(void) {
#if defined(__linux__) && defined(__x86_64__)
#define WORKER_ARCH AUDIT_ARCH_X86_64
#elif defined(__linux__) && defined(__aarch64__)
#define WORKER_ARCH AUDIT_ARCH_AARCH64
#endif
#if defined(__linux__) && defined(WORKER_ARCH)
    static const int allowed[] = {
        SYS_read, SYS_write, SYS_close, SYS_exit, SYS_exit_group, SYS_brk, SYS_mmap, SYS_munmap, SYS_mremap,
        SYS_mprotect, SYS_madvise, SYS_clock_gettime, SYS_gettimeofday, SYS_futex, SYS_rt_sigreturn,
        SYS_rt_sigprocmask, SYS_getpid, SYS_gettid, SYS_tgkill, SYS_getrusage, SYS_ppoll,
#ifdef SYS_poll
        SYS_poll,
#endif
#ifdef SYS_time
        SYS_time,
#endif
    };
    enum { COUNT = sizeof allowed / sizeof allowed[0] };
    struct sock_filter program[COUNT + 6];
    int n = 0;
    program[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
    program[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, WORKER_ARCH, 1, 0);
    program[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
    program[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
    for (int i = 0; i < COUNT; i++) {
        // Equal: jump to the ALLOW at the end (past the remaining checks and the EPERM).
        program[n] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)allowed[i],
                                                  (unsigned char)(COUNT - i), 0);
        n++;
    }
    program[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA));
    program[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    struct sock_fprog filter = {.len = (unsigned short)n, .filter = program};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &filter);
#else
    return -1;
#endif
}

/// The limits and the scripts the host sends first.
typedef struct worker_setup {
    uint64_t memory;
    int64_t budget;
    int64_t timeout_ns;
    uint64_t result_limit;
    uint64_t cpu_seconds;
    int log_limit;
} worker_setup;

/// Reads the setup's limits, then opens the interpreter and adds each module the setup names;
/// NULL when the interpreter cannot open or a module does not register.
static lua_State *worker_open(worker_setup *setup) {
    setup->memory = worker_u64();
    setup->budget = (int64_t)worker_u64();
    setup->timeout_ns = (int64_t)worker_u64();
    setup->result_limit = worker_u64();
    setup->cpu_seconds = worker_u64();
    setup->log_limit = (int)worker_u32();
    uint32_t modules = worker_u32();

    lua_State *L = clua_sandbox_open((size_t)setup->memory);
    if (L == NULL) return NULL;
    for (uint32_t i = 0; i < modules; i++) {
        char *name = worker_string(NULL);
        char *chunk = worker_string(NULL);
        size_t length = 0;
        char *text = worker_string(&length);
        clua_call call;
        memset(&call, 0, sizeof call);
        call.input = (const uint8_t *)text;
        call.input_count = length;
        call.module = name;
        call.function = chunk;
        if (clua_sandbox_run(L, clua_sandbox_add_source_protected, &call, 0, 0) != CLUA_OK) return NULL;
        free(name);
        free(chunk);
        free(text);
    }
    return L;
}

/// Limits the process (address space, CPU time), makes the channel non-blocking and confines
/// the system calls; tells the host whether the filter is on, in a status line of its own.
static void worker_confine_process(const worker_setup *setup) {
    // The address space: the interpreter's cap, twice the largest result (the wire and its
    // copy on the way out), and room for the program itself.
    rlim_t space = (rlim_t)(setup->memory + 2 * setup->result_limit + WORKER_PROGRAM_SPACE);
    struct rlimit limit = {space, space};
    setrlimit(RLIMIT_AS, &limit);
    struct rlimit cpu = {(rlim_t)setup->cpu_seconds, (rlim_t)setup->cpu_seconds};
    setrlimit(RLIMIT_CPU, &cpu);
    // Non-blocking, so that a read can look for the next request a while before it sleeps
    // (stdin and stdout are one socket: one flag for both).
    int flags = fcntl(WORKER_IN, F_GETFL);
    if (flags >= 0) fcntl(WORKER_IN, F_SETFL, flags | O_NONBLOCK);
    int confined = worker_confine() == 0;
    worker_respond(CLUA_OK, confined ? "confined" : "not confined", 0, 0, NULL, 0, NULL);
}

/// The response of a batch that ran `ran` items: per item, i32 status, str message, str result
/// wire, str log lines, u32 lines dropped. Exits when there is no memory for it.
static void worker_respond_batch(const clua_batch_item *items, size_t ran, const clua_batch *batch) {
    size_t packed_length = 0;
    for (size_t index = 0; index < ran; index++)
        packed_length += 4 + 4 + strlen(items[index].message) + 4 + items[index].output_count + 4
                         + items[index].log_count + 4;
    uint8_t *packed = malloc(packed_length ? packed_length : 1);
    if (packed == NULL) exit(WORKER_EXIT_FAILED);
    uint8_t *at = packed;
    for (size_t index = 0; index < ran; index++) {
        const clua_batch_item *item = &items[index];
        int32_t status32 = item->status;
        uint32_t lengths[3] = {(uint32_t)strlen(item->message), (uint32_t)item->output_count,
                               (uint32_t)item->log_count};
        uint32_t dropped = (uint32_t)item->log_dropped;
        memcpy(at, &status32, 4), at += 4;
        memcpy(at, &lengths[0], 4), at += 4;
        memcpy(at, item->message, lengths[0]), at += lengths[0];
        memcpy(at, &lengths[1], 4), at += 4;
        if (lengths[1]) memcpy(at, batch->output + item->output_start, lengths[1]), at += lengths[1];
        memcpy(at, &lengths[2], 4), at += 4;
        if (lengths[2]) memcpy(at, batch->log + item->log_start, lengths[2]), at += lengths[2];
        memcpy(at, &dropped, 4), at += 4;
    }
    worker_respond(CLUA_OK, "", (int32_t)ran, 0, packed, packed_length, NULL);
    free(packed);
}

/// 'B', a batch: one function, one user data, many values; answered item by item in one
/// response, up to the first that leaves the interpreter unfit or the result limit.
static void worker_serve_batch(lua_State *L, clua_call *call, const worker_setup *setup) {
    int32_t reference = (int32_t)worker_u32();
    uint8_t has_data;
    worker_read(&has_data, 1);
    size_t data_length = 0;
    char *data = has_data ? worker_string(&data_length) : NULL;
    uint32_t count = worker_u32();
    clua_batch_item *items = calloc(count ? count : 1, sizeof *items);
    char **inputs = calloc(count ? count : 1, sizeof *inputs);
    if (items == NULL || inputs == NULL) exit(WORKER_EXIT_FAILED);
    for (uint32_t index = 0; index < count; index++) {
        inputs[index] = worker_string(&items[index].input_count);
        items[index].input = (const uint8_t *)inputs[index];
    }
    call->function_ref = reference;
    call->user_data = (const uint8_t *)data;
    call->user_data_count = data_length;
    call->output_limit = (size_t)setup->result_limit;
    clua_batch batch;
    memset(&batch, 0, sizeof batch);
    size_t ran = clua_sandbox_run_batch(L, call, items, count, &batch, (size_t)setup->result_limit, setup->budget,
                                        setup->timeout_ns);
    worker_respond_batch(items, ran, &batch);
    clua_batch_release(&batch);
    for (uint32_t index = 0; index < count; index++) free(inputs[index]);
    free(inputs);
    free(items);
    free(data);
}

/// 'S': a module's text added after the start (inline code); 'K': text compiled only; 'T': a
/// lookup table (tables.c), loaded once for every call of this worker.
static void worker_serve_text(lua_State *L, uint8_t kind, clua_call *call, const worker_setup *setup) {
    size_t length = 0;
    char *text = worker_string(&length);
    call->input = (const uint8_t *)text;
    call->input_count = length;
    int status = clua_sandbox_run(L, kind == 'S'   ? clua_sandbox_add_source_protected
                                     : kind == 'T' ? clua_tables_add_protected
                                                   : clua_sandbox_compile_protected,
                                  call, setup->budget, setup->timeout_ns);
    worker_respond(status, call->message, 0, 0, NULL, 0, call);
    free(text);
}

/// 'C': one call of a function with one value (and the user data, if any).
static void worker_serve_call(lua_State *L, clua_call *call, const worker_setup *setup) {
    int32_t reference = (int32_t)worker_u32();
    size_t input_length = 0, data_length = 0;
    char *input = worker_string(&input_length);
    uint8_t has_data;
    worker_read(&has_data, 1);
    char *data = has_data ? worker_string(&data_length) : NULL;
    call->function_ref = reference;
    call->input = (const uint8_t *)input;
    call->input_count = input_length;
    call->user_data = (const uint8_t *)data;
    call->user_data_count = data_length;
    call->output_limit = (size_t)setup->result_limit;
    int status = clua_sandbox_run(L, clua_sandbox_call_protected, call, setup->budget, setup->timeout_ns);
    worker_respond(status, call->message, 0, 0, call->output, status == CLUA_OK ? call->output_count : 0, call);
    free(input);
    free(data);
}

/// Reads one request and answers it; 0 when it is of no kind the worker knows (a host bug).
static int worker_serve(lua_State *L, const worker_setup *setup) {
    uint8_t kind;
    worker_read(&kind, 1);
    char *module = worker_string(NULL);
    char *function = worker_string(NULL);
    clua_call call;
    memset(&call, 0, sizeof call);
    call.module = module;
    call.function = function;
    call.log_limit = setup->log_limit;
    if (kind == 'R') {
        int status = clua_sandbox_run(L, clua_sandbox_resolve_protected, &call, setup->budget, setup->timeout_ns);
        worker_respond(status, call.message, call.function_ref, call.line_defined, call.source, strlen(call.source),
                       &call);
    } else if (kind == 'B') {
        worker_serve_batch(L, &call, setup);
    } else if (kind == 'S' || kind == 'K' || kind == 'T') {
        worker_serve_text(L, kind, &call, setup);
    } else if (kind == 'N') {
        int status = clua_sandbox_run(L, clua_sandbox_functions_protected, &call, setup->budget, setup->timeout_ns);
        worker_respond(status, call.message, 0, 0, call.output, call.output_count, &call);
    } else if (kind == 'C') {
        worker_serve_call(L, &call, setup);
    } else {
        return 0;
    }
    clua_call_release(&call);
    free(module);
    free(function);
    return 1;
}

int main(int argc, char **argv) {
    // argv: the host's pid, then a label (the scripts directory) that only `ps` reads.
    // If the host is already gone, nothing to do. Once it goes, the next read of the channel
    // ends this process (after the call in progress, which the sandbox's own limits bound).
    // Not PR_SET_PDEATHSIG: it fires when the host *thread* that started the worker ends.
    if (argc > 1 && getppid() != (pid_t)atol(argv[1])) return 0;
    signal(SIGPIPE, SIG_IGN);
    // A stop is the host's to make: Ctrl-C reaches the terminal's whole process group, and a
    // service manager signals every process of the service, but the host finishes the records
    // in flight (their calls here included) before it closes the channel or kills this process.
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
    worker_setup setup;
    lua_State *L = worker_open(&setup);
    if (L == NULL) return WORKER_EXIT_FAILED;
    worker_confine_process(&setup);
    // After a tripped limit the interpreter holds whatever the script left half-built: the
    // host replaces this worker, as it replaces an interpreter in process.
    for (;;)
        if (!worker_serve(L, &setup)) return WORKER_EXIT_BAD_REQUEST;
}
