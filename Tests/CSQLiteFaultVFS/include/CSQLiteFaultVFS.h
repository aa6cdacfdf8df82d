#ifndef CORESTORE_SQLITE_FAULT_VFS_H
#define CORESTORE_SQLITE_FAULT_VFS_H

/// A SQLite VFS for tests that fails chosen file operations the way a disk fails. It wraps the
/// default VFS and becomes the default itself; only the files whose names start with the
/// watched prefix (a database path: the database, its -wal and its journal) are counted and can
/// fail, so the rest of a test process is unaffected.

/// What can fail.
typedef enum {
    CORESTORE_FAULT_READ = 0,   ///< xRead
    CORESTORE_FAULT_WRITE = 1,  ///< xWrite and xTruncate
    CORESTORE_FAULT_SYNC = 2,   ///< xSync
} corestore_fault_operation;

/// Registers the VFS as the default (once; later calls do nothing). Returns a SQLite result code.
int corestore_fault_vfs_install(void);

/// Watches the files whose names start with `prefix` (copied), zeroes the counts and cancels
/// any planned failure.
void corestore_fault_vfs_watch(const char *prefix);

/// Makes the operation of kind `operation` on a watched file that comes after `after` more of
/// its kind return `code` (an extended SQLite result code such as SQLITE_IOERR_WRITE or
/// SQLITE_FULL), once.
void corestore_fault_vfs_fail(corestore_fault_operation operation, int after, int code);

/// Cancels the planned failures.
void corestore_fault_vfs_clear(void);

/// How many operations of kind `operation` ran on watched files since the last watch or reset.
int corestore_fault_vfs_count(corestore_fault_operation operation);

/// Zeroes the counts.
void corestore_fault_vfs_reset_counts(void);

#endif
