// The power-cut recorder: a shared library loaded with LD_PRELOAD into a process that changes a
// store. It records every file operation under one directory, in the order the operations
// happened, so that `corestore torture power` can rebuild the files as a power cut at any
// moment would leave them. It has no API: it works through the environment.
//
//   CORESTORE_POWERCUT_JOURNAL  the journal file to append to (required to record anything)
//   CORESTORE_POWERCUT_WATCH    the absolute directory whose files are recorded
//
// The journal is a sequence of records: a 32-byte header (`corestore_powercut_header`, in the
// machine's byte order) followed by `length` bytes. Standard output is recorded too, as marks,
// so the journal says which commits the process had acknowledged at every point.
#ifndef CPOWERCUTRECORDER_H
#define CPOWERCUTRECORDER_H

#include <stdint.h>

/// The kinds of journal records.
typedef enum {
    /// A watched file or directory was opened: `file` is its inode, `a` the open flags, `b` 1 for a
    /// directory; the payload is the absolute path.
    corestore_powercut_open = 1,
    /// Bytes were written: `file`, `a` the offset; the payload is the bytes.
    corestore_powercut_write = 2,
    /// `fsync` or `fdatasync` succeeded on `file` (also after each write to an `O_DSYNC` file).
    corestore_powercut_sync = 3,
    /// `file` was truncated (or extended) to `a` bytes.
    corestore_powercut_truncate = 4,
    /// A rename: the payload is the old path, a zero byte, the new path.
    corestore_powercut_rename = 5,
    /// An unlink: the payload is the path.
    corestore_powercut_unlink = 6,
    /// A directory was made: the payload is the path.
    corestore_powercut_mkdir = 7,
    /// A directory was removed: the payload is the path.
    corestore_powercut_rmdir = 8,
    /// The process wrote to standard output: the payload is what it wrote.
    corestore_powercut_mark = 9,
} corestore_powercut_kind;

/// The header of one journal record.
typedef struct {
    uint8_t kind;
    uint8_t reserved[3];
    uint32_t length;
    uint64_t file;
    uint64_t a;
    uint64_t b;
} corestore_powercut_header;

#endif
