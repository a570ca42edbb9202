// The WAL writer: a VFS over SQLite's default ("unix") that writes each commit's WAL frames
// with one write system call instead of two per frame.
//
// SQLite writes a frame as two pwrite calls, its 24-byte header and then its page, so a
// commit of 23 pages (ten task writes of one loop turn) made 46 system calls, and each call
// makes the kernel look up, lock and dirty the page-cache pages it touches (a header and the
// page after it straddle two). Measured on the shared VM (ext4): 2.4 us of CPU a frame that
// way, 0.6 us a frame with one write for the whole commit; a write request of the server
// wrote about 2.3 frames natively and 11 under callgrind.
//
// Only files opened as a WAL are wrapped; the database file, journals and temporary files
// are the default VFS's own files. A WAL file keeps the bytes written to it in a buffer while
// they continue one another, and writes the buffer:
//   - at the page of a commit frame (a frame header whose "database size after commit" is
//     not zero): the last write of a transaction's frames, before SQLite updates the
//     wal-index that makes the frames visible to other connections, so a COMMIT that
//     returns has written everything, and a failed write fails that COMMIT;
//   - before any other operation on the file (read, sync, truncate, size, lock, close, file
//     control), so the file never looks different from what was written;
//   - when a write does not continue the buffer, or the buffer is full.
// The bytes are copied: SQLite's header buffer is reused for the next frame, and a page
// written by a cache spill may change before the commit.
//
// Each file is used by one connection, on one thread, like the connection itself.

#include "CSQLiteVFS.h"

#include <sqlite3.h>
#include <string.h>

enum {
    // A commit of the server's loop turn is 10 to 30 frames of 4,120 bytes; larger ones are
    // written in parts of this size. The default VFS writes at most 128 KiB - 1 in one call
    // (its seekAndWrite keeps 17 bits of the length), so a part must stay below that.
    BUFFER_CAPACITY = 120 * 1024,
    FRAME_HEADER_SIZE = 24,
};

typedef struct WALFile {
    sqlite3_file base;
    // The default VFS's file, in the memory right after this struct.
    sqlite3_file *below;
    unsigned char *buffer;
    int used;
    // The last write was the header of a commit frame: its page ends the transaction.
    int commitFrame;
    sqlite3_int64 start;
} WALFile;

static sqlite3_vfs *belowVFS;
static sqlite3_vfs writerVFS;
static sqlite3_io_methods walMethods;

static __thread long long pendingBytes;
static __thread long long writeCalls;

static int flush(WALFile *file) {
    if (file->used == 0) return SQLITE_OK;
    int used = file->used;
    file->used = 0;
    pendingBytes -= used;
    writeCalls += 1;
    return file->below->pMethods->xWrite(file->below, file->buffer, used, file->start);
}

static int walClose(sqlite3_file *handle) {
    WALFile *file = (WALFile *)handle;
    int rc = flush(file);
    int closed = file->below->pMethods->xClose(file->below);
    sqlite3_free(file->buffer);
    file->buffer = 0;
    return rc != SQLITE_OK ? rc : closed;
}

static int walWrite(sqlite3_file *handle, const void *data, int amount, sqlite3_int64 offset) {
    WALFile *file = (WALFile *)handle;
    int rc;
    if (file->used > 0 && offset != file->start + file->used) {
        if ((rc = flush(file)) != SQLITE_OK) return rc;
    }
    if (file->used + amount > BUFFER_CAPACITY) {
        if ((rc = flush(file)) != SQLITE_OK) return rc;
    }
    if (file->buffer == 0 && amount <= BUFFER_CAPACITY) {
        file->buffer = sqlite3_malloc(BUFFER_CAPACITY);
    }
    if (file->buffer == 0 || amount > BUFFER_CAPACITY) {
        writeCalls += 1;
        return file->below->pMethods->xWrite(file->below, data, amount, offset);
    }
    if (file->used == 0) file->start = offset;
    memcpy(file->buffer + file->used, data, (size_t)amount);
    file->used += amount;
    pendingBytes += amount;
    if (amount == FRAME_HEADER_SIZE) {
        // Bytes 4 to 7 of a frame header: the database's size in pages after a commit, zero
        // in the other frames of the transaction.
        const unsigned char *header = data;
        file->commitFrame = (header[4] | header[5] | header[6] | header[7]) != 0;
        return SQLITE_OK;
    }
    if (file->commitFrame) {
        file->commitFrame = 0;
        return flush(file);
    }
    return SQLITE_OK;
}

// Every other operation writes what waits first, then is the file's own.
#define FLUSH_OR_RETURN(handle)                                    \
    do {                                                           \
        int flushed = flush((WALFile *)(handle));                  \
        if (flushed != SQLITE_OK) return flushed;                  \
    } while (0)
#define BELOW(handle) (((WALFile *)(handle))->below)

static int walRead(sqlite3_file *handle, void *data, int amount, sqlite3_int64 offset) {
    FLUSH_OR_RETURN(handle);
    return BELOW(handle)->pMethods->xRead(BELOW(handle), data, amount, offset);
}

static int walTruncate(sqlite3_file *handle, sqlite3_int64 size) {
    FLUSH_OR_RETURN(handle);
    return BELOW(handle)->pMethods->xTruncate(BELOW(handle), size);
}

static int walSync(sqlite3_file *handle, int flags) {
    FLUSH_OR_RETURN(handle);
    return BELOW(handle)->pMethods->xSync(BELOW(handle), flags);
}

static int walFileSize(sqlite3_file *handle, sqlite3_int64 *size) {
    FLUSH_OR_RETURN(handle);
    return BELOW(handle)->pMethods->xFileSize(BELOW(handle), size);
}

static int walLock(sqlite3_file *handle, int level) {
    FLUSH_OR_RETURN(handle);
    return BELOW(handle)->pMethods->xLock(BELOW(handle), level);
}

static int walUnlock(sqlite3_file *handle, int level) {
    FLUSH_OR_RETURN(handle);
    return BELOW(handle)->pMethods->xUnlock(BELOW(handle), level);
}

static int walCheckReservedLock(sqlite3_file *handle, int *reserved) {
    FLUSH_OR_RETURN(handle);
    return BELOW(handle)->pMethods->xCheckReservedLock(BELOW(handle), reserved);
}

static int walFileControl(sqlite3_file *handle, int op, void *argument) {
    FLUSH_OR_RETURN(handle);
    return BELOW(handle)->pMethods->xFileControl(BELOW(handle), op, argument);
}

static int walSectorSize(sqlite3_file *handle) {
    return BELOW(handle)->pMethods->xSectorSize(BELOW(handle));
}

static int walDeviceCharacteristics(sqlite3_file *handle) {
    return BELOW(handle)->pMethods->xDeviceCharacteristics(BELOW(handle));
}

static int writerOpen(sqlite3_vfs *vfs, const char *name, sqlite3_file *handle, int flags, int *outFlags) {
    (void)vfs;
    if ((flags & SQLITE_OPEN_WAL) == 0) {
        // Not a WAL: the default VFS's file as it is (this VFS's files are large enough).
        return belowVFS->xOpen(belowVFS, name, handle, flags, outFlags);
    }
    WALFile *file = (WALFile *)handle;
    memset(file, 0, sizeof(*file));
    file->below = (sqlite3_file *)&file[1];
    int rc = belowVFS->xOpen(belowVFS, name, file->below, flags, outFlags);
    // Without methods, SQLite calls no xClose: a failed open leaves nothing to close.
    file->base.pMethods = rc == SQLITE_OK ? &walMethods : 0;
    return rc;
}

int relaydeck_wal_writer_register(void) {
    if (belowVFS != 0) return SQLITE_OK;
    sqlite3_vfs *below = sqlite3_vfs_find(0);
    if (below == 0) return SQLITE_ERROR;
    walMethods = (sqlite3_io_methods){
        .iVersion = 1,
        .xClose = walClose,
        .xRead = walRead,
        .xWrite = walWrite,
        .xTruncate = walTruncate,
        .xSync = walSync,
        .xFileSize = walFileSize,
        .xLock = walLock,
        .xUnlock = walUnlock,
        .xCheckReservedLock = walCheckReservedLock,
        .xFileControl = walFileControl,
        .xSectorSize = walSectorSize,
        .xDeviceCharacteristics = walDeviceCharacteristics,
    };
    // The default VFS's own entries (its pAppData and path length included), with files
    // large enough for either kind and this xOpen.
    writerVFS = *below;
    writerVFS.zName = "relaydeck-wal-writer";
    writerVFS.pNext = 0;
    int wrapped = (int)((sizeof(WALFile) + 7) & ~(size_t)7) + below->szOsFile;
    writerVFS.szOsFile = wrapped > below->szOsFile ? wrapped : below->szOsFile;
    writerVFS.xOpen = writerOpen;
    belowVFS = below;
    int rc = sqlite3_vfs_register(&writerVFS, 1);
    if (rc != SQLITE_OK) belowVFS = 0;
    return rc;
}

long long relaydeck_wal_writer_pending_bytes(void) {
    return pendingBytes;
}

long long relaydeck_wal_writer_writes(void) {
    return writeCalls;
}
