#ifndef RELAYDECK_CSQLITEVFS_H
#define RELAYDECK_CSQLITEVFS_H

// The WAL writer: a VFS over SQLite's default one that gathers the writes of a commit to the
// WAL into one write system call (see CSQLiteVFS.c for why and when it writes).

// Registers it as the default VFS, over the one that is the default now. Call it once,
// after sqlite3_initialize and before the first connection opens. SQLITE_OK, or SQLite's
// error when it could not (the default VFS then stays).
int relaydeck_wal_writer_register(void);

// The bytes this thread's WAL files hold that are not written yet. Zero whenever no commit
// of this thread is in progress: a COMMIT that returned has written everything.
long long relaydeck_wal_writer_pending_bytes(void);

// The write calls this thread's WAL files made to the file below (each a system call).
long long relaydeck_wal_writer_writes(void);

#endif
