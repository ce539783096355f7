// The parts of SQLite's and libpq's C interfaces that `stream --to` uses, as tables of function
// pointers filled by dlopen when a destination is first opened: the tool links neither library
// (no start-up cost for the commands that write no database, and the portable build runs where
// they are not installed), and says which package to install when one is missing.
//
// The declarations are the libraries' documented, stable signatures; nothing of their headers
// is needed to build.
#ifndef MAPPINGS_SQL_CLIENT_H
#define MAPPINGS_SQL_CLIENT_H

#include <stddef.h>
#include <stdint.h>

typedef struct sqlite3 mappings_sqlite3;
typedef struct sqlite3_stmt mappings_sqlite3_stmt;

/// SQLite's result codes and flags that the Swift side reads.
enum {
    MAPPINGS_SQLITE_OK = 0,
    MAPPINGS_SQLITE_BUSY = 5,
    MAPPINGS_SQLITE_ROW = 100,
    MAPPINGS_SQLITE_DONE = 101,
    MAPPINGS_SQLITE_NULL = 5,
    MAPPINGS_SQLITE_INTEGER = 1,
    MAPPINGS_SQLITE_FLOAT = 2,
    MAPPINGS_SQLITE_OPEN_READONLY = 0x00000001,
    MAPPINGS_SQLITE_OPEN_READWRITE = 0x00000002,
    MAPPINGS_SQLITE_OPEN_CREATE = 0x00000004,
    MAPPINGS_SQLITE_OPEN_NOMUTEX = 0x00008000,
};

typedef struct mappings_sqlite_api {
    int (*_Nonnull open_v2)(const char *_Nonnull, mappings_sqlite3 *_Nullable *_Nonnull, int, const char *_Nullable);
    int (*_Nonnull close_v2)(mappings_sqlite3 *_Nullable);
    int (*_Nonnull exec)(mappings_sqlite3 *_Nonnull, const char *_Nonnull, void *_Nullable, void *_Nullable,
                         char *_Nullable *_Nullable);
    int (*_Nonnull prepare_v2)(mappings_sqlite3 *_Nonnull, const char *_Nonnull, int,
                               mappings_sqlite3_stmt *_Nullable *_Nonnull, const char *_Nullable *_Nullable);
    int (*_Nonnull bind_int64)(mappings_sqlite3_stmt *_Nonnull, int, int64_t);
    int (*_Nonnull bind_double)(mappings_sqlite3_stmt *_Nonnull, int, double);
    // The text must stay where it is until the statement is stepped (SQLITE_STATIC).
    int (*_Nonnull bind_text)(mappings_sqlite3_stmt *_Nonnull, int, const char *_Nullable, int, void *_Nullable);
    int (*_Nonnull bind_null)(mappings_sqlite3_stmt *_Nonnull, int);
    int (*_Nonnull step)(mappings_sqlite3_stmt *_Nonnull);
    int (*_Nonnull reset)(mappings_sqlite3_stmt *_Nonnull);
    int (*_Nonnull finalize)(mappings_sqlite3_stmt *_Nullable);
    const char *_Nonnull (*_Nonnull errmsg)(mappings_sqlite3 *_Nullable);
    int (*_Nonnull column_count)(mappings_sqlite3_stmt *_Nonnull);
    int (*_Nonnull column_type)(mappings_sqlite3_stmt *_Nonnull, int);
    int64_t (*_Nonnull column_int64)(mappings_sqlite3_stmt *_Nonnull, int);
    const unsigned char *_Nullable (*_Nonnull column_text)(mappings_sqlite3_stmt *_Nonnull, int);
    // A result column's name (lookup tables read a table of a database file: `@tables`).
    const char *_Nullable (*_Nonnull column_name)(mappings_sqlite3_stmt *_Nonnull, int);
    int (*_Nonnull column_bytes)(mappings_sqlite3_stmt *_Nonnull, int);
    int (*_Nonnull busy_timeout)(mappings_sqlite3 *_Nonnull, int);
    void (*_Nonnull free)(void *_Nullable);
    const char *_Nonnull (*_Nonnull libversion)(void);
} mappings_sqlite_api;

/// SQLite's functions, loaded once (libsqlite3.so.0); NULL, with `error` set, when the library
/// or one of its functions cannot be found.
const mappings_sqlite_api *_Nullable mappings_sqlite_load(const char *_Nullable *_Nonnull error);

typedef struct pg_conn mappings_pg_conn;
typedef struct pg_result mappings_pg_result;

/// libpq's statuses that the Swift side reads.
enum {
    MAPPINGS_PG_CONNECTION_OK = 0,
    MAPPINGS_PGRES_EMPTY_QUERY = 0,
    MAPPINGS_PGRES_COMMAND_OK = 1,
    MAPPINGS_PGRES_TUPLES_OK = 2,
    MAPPINGS_PGRES_COPY_IN = 4,
    MAPPINGS_PG_DIAG_SQLSTATE = 'C',
};

typedef struct mappings_pq_api {
    mappings_pg_conn *_Nullable (*_Nonnull connectdb)(const char *_Nonnull);
    int (*_Nonnull status)(const mappings_pg_conn *_Nullable);
    char *_Nonnull (*_Nonnull error_message)(const mappings_pg_conn *_Nullable);
    void (*_Nonnull finish)(mappings_pg_conn *_Nullable);
    mappings_pg_result *_Nullable (*_Nonnull exec)(mappings_pg_conn *_Nonnull, const char *_Nonnull);
    mappings_pg_result *_Nullable (*_Nonnull exec_params)(
        mappings_pg_conn *_Nonnull, const char *_Nonnull, int, const unsigned int *_Nullable,
        const char *_Nullable const *_Nullable, const int *_Nullable, const int *_Nullable, int);
    int (*_Nonnull result_status)(const mappings_pg_result *_Nullable);
    char *_Nonnull (*_Nonnull result_error_message)(const mappings_pg_result *_Nullable);
    char *_Nullable (*_Nonnull result_error_field)(const mappings_pg_result *_Nullable, int);
    void (*_Nonnull clear)(mappings_pg_result *_Nullable);
    int (*_Nonnull ntuples)(const mappings_pg_result *_Nonnull);
    int (*_Nonnull nfields)(const mappings_pg_result *_Nonnull);
    char *_Nonnull (*_Nonnull getvalue)(const mappings_pg_result *_Nonnull, int, int);
    int (*_Nonnull getisnull)(const mappings_pg_result *_Nonnull, int, int);
    int (*_Nonnull put_copy_data)(mappings_pg_conn *_Nonnull, const char *_Nonnull, int);
    int (*_Nonnull put_copy_end)(mappings_pg_conn *_Nonnull, const char *_Nullable);
    mappings_pg_result *_Nullable (*_Nonnull get_result)(mappings_pg_conn *_Nonnull);
    int (*_Nonnull server_version)(const mappings_pg_conn *_Nonnull);
} mappings_pq_api;

/// libpq's functions, loaded once (libpq.so.5); NULL, with `error` set, when missing.
const mappings_pq_api *_Nullable mappings_pq_load(const char *_Nullable *_Nonnull error);

#endif
