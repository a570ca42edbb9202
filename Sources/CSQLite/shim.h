#ifndef RELAYDECK_CSQLITE_SHIM_H
#define RELAYDECK_CSQLITE_SHIM_H
#include <sqlite3.h>

// SQLITE_TRANSIENT is a cast of -1 to a function pointer, which Swift cannot import.
static inline sqlite3_destructor_type relaydeck_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

// sqlite3_config is variadic; Swift cannot call variadic C functions.
static inline int relaydeck_sqlite_config_single_thread(void) {
    return sqlite3_config(SQLITE_CONFIG_SINGLETHREAD);
}

static inline int relaydeck_sqlite_db_config_defensive(sqlite3 *db, int on) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, on, (int *)0);
}
#endif
