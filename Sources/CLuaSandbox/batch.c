// Batches: one transformer called for many values in one C call from the host (and, in a
// worker, one request), each value a call of its own under `lua_pcall` with its own budget,
// deadline, result limit and log lines: what a script sees is the same as one call at a time.
#define _GNU_SOURCE
#include "sandbox_internal.h"

#include <stdlib.h>
#include <string.h>

/// Appends `count` bytes to a growing block; 0 when memory runs out.
static int clua_batch_append(uint8_t **block, size_t *used, size_t *capacity, const void *bytes, size_t count) {
    if (count == 0) return 1;
    if (*used + count > *capacity) {
        size_t wanted = *capacity ? *capacity : 4096;
        while (wanted < *used + count) wanted *= 2;
        uint8_t *grown = realloc(*block, wanted);
        if (grown == NULL) return 0;
        *block = grown;
        *capacity = wanted;
    }
    memcpy(*block + *used, bytes, count);
    *used += count;
    return 1;
}

/// Whether a call's failure leaves the interpreter unfit for the next: a tripped limit, a
/// malformed input, an error in the error handler (as `LuaFailure.poisonsInterpreter` says).
static int clua_batch_poisons(const clua_call *call) {
    switch (call->status) {
    case CLUA_BUDGET:
    case CLUA_DEADLINE:
    case CLUA_MEMORY:
    case CLUA_BAD_INPUT:
        return 1;
    case CLUA_FAILED:
        return strcmp(call->message, "error in error handling") == 0;
    default:
        return 0;
    }
}

size_t clua_sandbox_run_batch(lua_State *L, clua_call *call, clua_batch_item *items, size_t count,
                              clua_batch *batch, size_t output_budget, int64_t budget, int64_t timeout_ns) {
    const uint8_t *user_data = call->user_data;
    size_t user_data_count = call->user_data_count;
    size_t ran = 0;
    for (size_t index = 0; index < count; index++) {
        clua_batch_item *item = &items[index];
        clua_call_reuse(call);
        call->input = item->input;
        call->input_count = item->input_count;
        call->user_data = user_data;
        call->user_data_count = user_data_count;
        int status = clua_sandbox_run(L, clua_sandbox_call_protected, call, budget, timeout_ns);
        item->status = status;
        item->message[0] = 0;
        if (status != CLUA_OK) memcpy(item->message, call->message, CLUA_MESSAGE_SIZE);
        item->output_start = batch->output_count;
        item->output_count = status == CLUA_OK ? call->output_count : 0;
        item->log_start = batch->log_count;
        item->log_count = call->log_count;
        item->log_dropped = call->log_dropped;
        int kept = (status != CLUA_OK
                    || clua_batch_append(&batch->output, &batch->output_count, &batch->output_capacity, call->output,
                                         call->output_count))
                   && clua_batch_append((uint8_t **)&batch->log, &batch->log_count, &batch->log_capacity, call->log,
                                        call->log_count);
        if (!kept) {
            item->status = CLUA_MEMORY;
            item->output_count = 0;
            item->log_count = 0;
            snprintf(item->message, CLUA_MESSAGE_SIZE, "not enough memory for the batch's results");
            return index + 1;
        }
        ran = index + 1;
        if (clua_batch_poisons(call)) break;
        if (output_budget > 0 && batch->output_count >= output_budget) break;
    }
    clua_call_reuse(call);
    return ran;
}

void clua_batch_release(clua_batch *batch) {
    free(batch->output);
    free(batch->log);
    memset(batch, 0, sizeof *batch);
}
