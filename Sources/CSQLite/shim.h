#ifndef RELAYDECK_CSQLITE_SHIM_H
#define RELAYDECK_CSQLITE_SHIM_H
#include <sqlite3.h>

// SQLITE_TRANSIENT is a cast of -1 to a function pointer, which Swift cannot import.
static inline sqlite3_destructor_type relaydeck_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

// sqlite3_config is variadic; Swift cannot call variadic C functions. Each must run before
// sqlite3_initialize (it returns SQLITE_MISUSE afterwards).
static inline int relaydeck_sqlite_config_single_thread(void) {
    return sqlite3_config(SQLITE_CONFIG_SINGLETHREAD);
}

static inline int relaydeck_sqlite_config_multi_thread(void) {
    return sqlite3_config(SQLITE_CONFIG_MULTITHREAD);
}

static inline int relaydeck_sqlite_config_memstatus(int on) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, on);
}

// sqlite3_db_config is variadic as well.
static inline int relaydeck_sqlite_db_config_defensive(sqlite3 *db, int on) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, on, (int *)0);
}

// Double-quoted string literals are a legacy misfeature: with them off, a typo such as
// "name" for 'name' fails at prepare time instead of comparing against a string.
static inline int relaydeck_sqlite_db_config_dqs(sqlite3 *db, int on) {
    int rc = sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DML, on, (int *)0);
    if (rc != SQLITE_OK) return rc;
    return sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DDL, on, (int *)0);
}
#endif
