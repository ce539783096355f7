// liblua5.4 as the system installs it, for the C-API floor: the library's own CLua is not a
// product (no Lua type is part of the library's API), so the benchmarks declare their own.
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
