// A fault-injecting SQLite VFS for tests (see include/CSQLiteFaultVFS.h): every method forwards
// to the default VFS; xRead, xWrite, xTruncate and xSync of watched files are counted and fail
// when a failure is planned there.
#include "CSQLiteFaultVFS.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t state_lock = PTHREAD_MUTEX_INITIALIZER;
static char *watched_prefix = NULL;
static int counts[3];
static int planned[3];
static int planned_after[3];
static int planned_code[3];

static sqlite3_vfs *base_vfs = NULL;
static sqlite3_vfs fault_vfs;

typedef struct {
    sqlite3_file file;  // pMethods: fault_methods when the real file opened
    char *name;         // the file's path (copied), NULL for temporary files
    sqlite3_file *real; // follows this struct in the same allocation
} FaultFile;

/// Counts one operation on `f` when it is watched (decided at each operation, so a file opened
/// before the watch began counts too); returns the planned error code, or SQLITE_OK.
static int perform(FaultFile *f, corestore_fault_operation operation) {
    if (!f->name) return SQLITE_OK;
    int code = SQLITE_OK;
    pthread_mutex_lock(&state_lock);
    if (!watched_prefix || strncmp(f->name, watched_prefix, strlen(watched_prefix)) != 0) {
        pthread_mutex_unlock(&state_lock);
        return SQLITE_OK;
    }
    counts[operation] += 1;
    if (planned[operation]) {
        if (planned_after[operation] == 0) {
            planned[operation] = 0;
            code = planned_code[operation];
        } else {
            planned_after[operation] -= 1;
        }
    }
    pthread_mutex_unlock(&state_lock);
    return code;
}

#define REAL(pFile) (((FaultFile *)(pFile))->real)

static int fault_close(sqlite3_file *pFile) {
    int rc = REAL(pFile)->pMethods->xClose(REAL(pFile));
    free(((FaultFile *)pFile)->name);
    ((FaultFile *)pFile)->name = NULL;
    pFile->pMethods = NULL;
    return rc;
}
static int fault_read(sqlite3_file *pFile, void *buf, int amount, sqlite3_int64 offset) {
    int rc = perform((FaultFile *)pFile, CORESTORE_FAULT_READ);
    return rc != SQLITE_OK ? rc : REAL(pFile)->pMethods->xRead(REAL(pFile), buf, amount, offset);
}
static int fault_write(sqlite3_file *pFile, const void *buf, int amount, sqlite3_int64 offset) {
    int rc = perform((FaultFile *)pFile, CORESTORE_FAULT_WRITE);
    return rc != SQLITE_OK ? rc : REAL(pFile)->pMethods->xWrite(REAL(pFile), buf, amount, offset);
}
static int fault_truncate(sqlite3_file *pFile, sqlite3_int64 size) {
    int rc = perform((FaultFile *)pFile, CORESTORE_FAULT_WRITE);
    return rc != SQLITE_OK ? rc : REAL(pFile)->pMethods->xTruncate(REAL(pFile), size);
}
static int fault_sync(sqlite3_file *pFile, int flags) {
    int rc = perform((FaultFile *)pFile, CORESTORE_FAULT_SYNC);
    return rc != SQLITE_OK ? rc : REAL(pFile)->pMethods->xSync(REAL(pFile), flags);
}
static int fault_file_size(sqlite3_file *pFile, sqlite3_int64 *size) { return REAL(pFile)->pMethods->xFileSize(REAL(pFile), size); }
static int fault_lock(sqlite3_file *pFile, int lock) { return REAL(pFile)->pMethods->xLock(REAL(pFile), lock); }
static int fault_unlock(sqlite3_file *pFile, int lock) { return REAL(pFile)->pMethods->xUnlock(REAL(pFile), lock); }
static int fault_check_reserved_lock(sqlite3_file *pFile, int *out) { return REAL(pFile)->pMethods->xCheckReservedLock(REAL(pFile), out); }
static int fault_file_control(sqlite3_file *pFile, int op, void *arg) { return REAL(pFile)->pMethods->xFileControl(REAL(pFile), op, arg); }
static int fault_sector_size(sqlite3_file *pFile) { return REAL(pFile)->pMethods->xSectorSize(REAL(pFile)); }
static int fault_device_characteristics(sqlite3_file *pFile) { return REAL(pFile)->pMethods->xDeviceCharacteristics(REAL(pFile)); }
static int fault_shm_map(sqlite3_file *pFile, int region, int size, int extend, void volatile **out) {
    return REAL(pFile)->pMethods->xShmMap(REAL(pFile), region, size, extend, out);
}
static int fault_shm_lock(sqlite3_file *pFile, int offset, int n, int flags) { return REAL(pFile)->pMethods->xShmLock(REAL(pFile), offset, n, flags); }
static void fault_shm_barrier(sqlite3_file *pFile) { REAL(pFile)->pMethods->xShmBarrier(REAL(pFile)); }
static int fault_shm_unmap(sqlite3_file *pFile, int deleteFlag) { return REAL(pFile)->pMethods->xShmUnmap(REAL(pFile), deleteFlag); }
static int fault_fetch(sqlite3_file *pFile, sqlite3_int64 offset, int amount, void **out) {
    // No memory-mapped reads: every page goes through xRead, where faults are injected.
    *out = NULL;
    return SQLITE_OK;
}
static int fault_unfetch(sqlite3_file *pFile, sqlite3_int64 offset, void *page) { return SQLITE_OK; }

static const sqlite3_io_methods fault_methods = {
    3, fault_close, fault_read, fault_write, fault_truncate, fault_sync, fault_file_size, fault_lock, fault_unlock,
    fault_check_reserved_lock, fault_file_control, fault_sector_size, fault_device_characteristics,
    fault_shm_map, fault_shm_lock, fault_shm_barrier, fault_shm_unmap, fault_fetch, fault_unfetch,
};

static int fault_open(sqlite3_vfs *vfs, sqlite3_filename name, sqlite3_file *pFile, int flags, int *outFlags) {
    FaultFile *f = (FaultFile *)pFile;
    f->real = (sqlite3_file *)(f + 1);
    f->name = NULL;
    int rc = base_vfs->xOpen(base_vfs, name, f->real, flags, outFlags);
    if (f->real->pMethods) {
        pFile->pMethods = &fault_methods;
        if (name) f->name = strdup(name);
    } else {
        pFile->pMethods = NULL;
    }
    return rc;
}

static int fault_delete(sqlite3_vfs *vfs, const char *name, int syncDir) { return base_vfs->xDelete(base_vfs, name, syncDir); }
static int fault_access(sqlite3_vfs *vfs, const char *name, int flags, int *out) { return base_vfs->xAccess(base_vfs, name, flags, out); }
static int fault_full_pathname(sqlite3_vfs *vfs, const char *name, int n, char *out) { return base_vfs->xFullPathname(base_vfs, name, n, out); }
static void *fault_dl_open(sqlite3_vfs *vfs, const char *name) { return base_vfs->xDlOpen(base_vfs, name); }
static void fault_dl_error(sqlite3_vfs *vfs, int n, char *out) { base_vfs->xDlError(base_vfs, n, out); }
static void (*fault_dl_sym(sqlite3_vfs *vfs, void *handle, const char *symbol))(void) { return base_vfs->xDlSym(base_vfs, handle, symbol); }
static void fault_dl_close(sqlite3_vfs *vfs, void *handle) { base_vfs->xDlClose(base_vfs, handle); }
static int fault_randomness(sqlite3_vfs *vfs, int n, char *out) { return base_vfs->xRandomness(base_vfs, n, out); }
static int fault_sleep(sqlite3_vfs *vfs, int microseconds) { return base_vfs->xSleep(base_vfs, microseconds); }
static int fault_current_time(sqlite3_vfs *vfs, double *out) { return base_vfs->xCurrentTime(base_vfs, out); }
static int fault_get_last_error(sqlite3_vfs *vfs, int n, char *out) { return base_vfs->xGetLastError(base_vfs, n, out); }
static int fault_current_time_int64(sqlite3_vfs *vfs, sqlite3_int64 *out) { return base_vfs->xCurrentTimeInt64(base_vfs, out); }

int corestore_fault_vfs_install(void) {
    pthread_mutex_lock(&state_lock);
    if (base_vfs) {
        pthread_mutex_unlock(&state_lock);
        return SQLITE_OK;
    }
    sqlite3_vfs *base = sqlite3_vfs_find(NULL);
    if (!base) {
        pthread_mutex_unlock(&state_lock);
        return SQLITE_ERROR;
    }
    base_vfs = base;
    memset(&fault_vfs, 0, sizeof fault_vfs);
    fault_vfs.iVersion = 2;
    fault_vfs.szOsFile = (int)sizeof(FaultFile) + base->szOsFile;
    fault_vfs.mxPathname = base->mxPathname;
    fault_vfs.zName = "corestore-fault";
    fault_vfs.xOpen = fault_open;
    fault_vfs.xDelete = fault_delete;
    fault_vfs.xAccess = fault_access;
    fault_vfs.xFullPathname = fault_full_pathname;
    fault_vfs.xDlOpen = fault_dl_open;
    fault_vfs.xDlError = fault_dl_error;
    fault_vfs.xDlSym = fault_dl_sym;
    fault_vfs.xDlClose = fault_dl_close;
    fault_vfs.xRandomness = fault_randomness;
    fault_vfs.xSleep = fault_sleep;
    fault_vfs.xCurrentTime = fault_current_time;
    fault_vfs.xGetLastError = fault_get_last_error;
    fault_vfs.xCurrentTimeInt64 = fault_current_time_int64;
    int rc = sqlite3_vfs_register(&fault_vfs, 1);
    pthread_mutex_unlock(&state_lock);
    return rc;
}

void corestore_fault_vfs_watch(const char *prefix) {
    pthread_mutex_lock(&state_lock);
    free(watched_prefix);
    watched_prefix = prefix ? strdup(prefix) : NULL;
    memset(counts, 0, sizeof counts);
    memset(planned, 0, sizeof planned);
    pthread_mutex_unlock(&state_lock);
}

void corestore_fault_vfs_fail(corestore_fault_operation operation, int after, int code) {
    pthread_mutex_lock(&state_lock);
    planned[operation] = 1;
    planned_after[operation] = after < 0 ? 0 : after;
    planned_code[operation] = code;
    pthread_mutex_unlock(&state_lock);
}

void corestore_fault_vfs_clear(void) {
    pthread_mutex_lock(&state_lock);
    memset(planned, 0, sizeof planned);
    pthread_mutex_unlock(&state_lock);
}

int corestore_fault_vfs_count(corestore_fault_operation operation) {
    pthread_mutex_lock(&state_lock);
    int n = counts[operation];
    pthread_mutex_unlock(&state_lock);
    return n;
}

void corestore_fault_vfs_reset_counts(void) {
    pthread_mutex_lock(&state_lock);
    memset(counts, 0, sizeof counts);
    pthread_mutex_unlock(&state_lock);
}
