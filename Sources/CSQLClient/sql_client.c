#include "sql_client.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

// Each table is filled once, under its `pthread_once`, and never changes afterwards.
static mappings_sqlite_api sqlite_api;
static const char *sqlite_error;
static pthread_once_t sqlite_once = PTHREAD_ONCE_INIT;

static mappings_pq_api pq_api;
static const char *pq_error;
static pthread_once_t pq_once = PTHREAD_ONCE_INIT;

static char missing_symbol[256];

// Finds `name` in `library`, or notes which one is missing; returns whether it was found.
static int find(void *library, const char *name, void **slot, const char **error) {
    *slot = dlsym(library, name);
    if (*slot == NULL) {
        snprintf(missing_symbol, sizeof missing_symbol, "the library has no function %s", name);
        *error = missing_symbol;
        return 0;
    }
    return 1;
}

#define FIND(library, table, field, name, error)                                                                     \
    if (!find(library, name, (void **)&(table).field, error)) return

static void load_sqlite(void) {
    void *library = dlopen("libsqlite3.so.0", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        sqlite_error = "SQLite destinations need the SQLite library (libsqlite3.so.0): install it, "
                       "such as `apt-get install libsqlite3-0`";
        return;
    }
    const char **error = &sqlite_error;
    FIND(library, sqlite_api, open_v2, "sqlite3_open_v2", error);
    FIND(library, sqlite_api, close_v2, "sqlite3_close_v2", error);
    FIND(library, sqlite_api, exec, "sqlite3_exec", error);
    FIND(library, sqlite_api, prepare_v2, "sqlite3_prepare_v2", error);
    FIND(library, sqlite_api, bind_int64, "sqlite3_bind_int64", error);
    FIND(library, sqlite_api, bind_double, "sqlite3_bind_double", error);
    FIND(library, sqlite_api, bind_text, "sqlite3_bind_text", error);
    FIND(library, sqlite_api, bind_null, "sqlite3_bind_null", error);
    FIND(library, sqlite_api, step, "sqlite3_step", error);
    FIND(library, sqlite_api, reset, "sqlite3_reset", error);
    FIND(library, sqlite_api, finalize, "sqlite3_finalize", error);
    FIND(library, sqlite_api, errmsg, "sqlite3_errmsg", error);
    FIND(library, sqlite_api, column_count, "sqlite3_column_count", error);
    FIND(library, sqlite_api, column_type, "sqlite3_column_type", error);
    FIND(library, sqlite_api, column_int64, "sqlite3_column_int64", error);
    FIND(library, sqlite_api, column_text, "sqlite3_column_text", error);
    FIND(library, sqlite_api, column_name, "sqlite3_column_name", error);
    FIND(library, sqlite_api, column_bytes, "sqlite3_column_bytes", error);
    FIND(library, sqlite_api, busy_timeout, "sqlite3_busy_timeout", error);
    FIND(library, sqlite_api, free, "sqlite3_free", error);
    FIND(library, sqlite_api, libversion, "sqlite3_libversion", error);
}

const mappings_sqlite_api *mappings_sqlite_load(const char **error) {
    pthread_once(&sqlite_once, load_sqlite);
    *error = sqlite_error;
    return sqlite_error == NULL ? &sqlite_api : NULL;
}

static void load_pq(void) {
    void *library = dlopen("libpq.so.5", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        pq_error = "PostgreSQL destinations need libpq (libpq.so.5): install it, such as `apt-get install libpq5`";
        return;
    }
    const char **error = &pq_error;
    FIND(library, pq_api, connectdb, "PQconnectdb", error);
    FIND(library, pq_api, status, "PQstatus", error);
    FIND(library, pq_api, error_message, "PQerrorMessage", error);
    FIND(library, pq_api, finish, "PQfinish", error);
    FIND(library, pq_api, exec, "PQexec", error);
    FIND(library, pq_api, exec_params, "PQexecParams", error);
    FIND(library, pq_api, result_status, "PQresultStatus", error);
    FIND(library, pq_api, result_error_message, "PQresultErrorMessage", error);
    FIND(library, pq_api, result_error_field, "PQresultErrorField", error);
    FIND(library, pq_api, clear, "PQclear", error);
    FIND(library, pq_api, ntuples, "PQntuples", error);
    FIND(library, pq_api, nfields, "PQnfields", error);
    FIND(library, pq_api, getvalue, "PQgetvalue", error);
    FIND(library, pq_api, getisnull, "PQgetisnull", error);
    FIND(library, pq_api, put_copy_data, "PQputCopyData", error);
    FIND(library, pq_api, put_copy_end, "PQputCopyEnd", error);
    FIND(library, pq_api, get_result, "PQgetResult", error);
    FIND(library, pq_api, server_version, "PQserverVersion", error);
}

const mappings_pq_api *mappings_pq_load(const char **error) {
    pthread_once(&pq_once, load_pq);
    *error = pq_error;
    return pq_error == NULL ? &pq_api : NULL;
}
