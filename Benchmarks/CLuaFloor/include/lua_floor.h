#ifndef LUA_FLOOR_H
#define LUA_FLOOR_H

#include <stdint.h>

/// The bare Lua C-API cost of one transformer call, measured as a floor for the bridge:
/// a plain `luaL_newstate` with no sandbox, no hook and no limits, a function that returns
/// its argument, inputs built and results read with the raw API. Returns nanoseconds per
/// call over `iterations` calls, with a 10-field table when `object` is non-zero, else an integer.
double lua_floor_ns_per_call(int iterations, int object);

#endif
