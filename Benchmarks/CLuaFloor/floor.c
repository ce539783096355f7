#include "lua_floor.h"

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <time.h>

static int64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static int floor_calls(lua_State *L) {
    int iterations = (int)lua_tointeger(L, 1);
    int object = lua_toboolean(L, 2);
    static const char *keys[10] = {"id", "name", "text", "lang", "count", "score", "url", "when", "flag", "kind"};
    int64_t sink = 0;
    for (int i = 0; i < iterations; i++) {
        lua_pushvalue(L, 3);  // the function
        if (object) {
            lua_createtable(L, 0, 10);
            for (int k = 0; k < 10; k++) {
                if (k % 2) lua_pushinteger(L, i + k);
                else lua_pushstring(L, keys[k]);
                lua_setfield(L, -2, keys[k]);
            }
        } else {
            lua_pushinteger(L, i);
        }
        lua_call(L, 1, 1);
        if (object) {
            lua_pushnil(L);
            while (lua_next(L, -2)) {
                size_t length = 0;
                if (lua_type(L, -1) == LUA_TSTRING) sink += (int64_t)lua_tolstring(L, -1, &length)[0];
                else sink += lua_tointeger(L, -1);
                sink += (int64_t)length;
                lua_pop(L, 1);
            }
        } else {
            sink += lua_tointeger(L, -1);
        }
        lua_pop(L, 1);
    }
    lua_pushinteger(L, sink);
    return 1;
}

double lua_floor_ns_per_call(int iterations, int object) {
    lua_State *L = luaL_newstate();
    if (L == NULL) return -1;
    luaL_openlibs(L);
    if (luaL_loadstring(L, "return function(v) return v end") != LUA_OK || lua_pcall(L, 0, 1, 0) != LUA_OK) {
        lua_close(L);
        return -1;
    }
    int function = lua_gettop(L);
    lua_pushcfunction(L, floor_calls);
    lua_pushinteger(L, iterations);
    lua_pushboolean(L, object);
    lua_pushvalue(L, function);
    int64_t started = now_ns();
    int status = lua_pcall(L, 3, 1, 0);
    int64_t elapsed = now_ns() - started;
    lua_close(L);
    return status == LUA_OK ? (double)elapsed / iterations : -1;
}
