#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

// Atomic operations on the 64-bit words of the commit counters file that every process with
// the database open maps (SQLiteCounterFile): Swift's atomics cannot address shared memory.

static inline uint64_t corestore_counter_load(const uint64_t *word) {
    return __atomic_load_n(word, __ATOMIC_ACQUIRE);
}

static inline void corestore_counter_store(uint64_t *word, uint64_t value) {
    __atomic_store_n(word, value, __ATOMIC_RELEASE);
}

/// Raises `*word` to `value` unless it is already at least that.
static inline void corestore_counter_raise(uint64_t *word, uint64_t value) {
    uint64_t current = __atomic_load_n(word, __ATOMIC_ACQUIRE);
    while (current < value && !__atomic_compare_exchange_n(word, &current, value, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {}
}

/// Sets `*word` to `desired` if it still holds `expected`.
static inline bool corestore_counter_replace(uint64_t *word, uint64_t expected, uint64_t desired) {
    return __atomic_compare_exchange_n(word, &expected, desired, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

// Open-file-description locks (Linux): a writer holds a shared one on a byte of the counters
// file from just before its COMMIT until it has published the commit, so that a reader that
// finds a pending sequence can tell a writer at work from one that stopped (the kernel drops
// the locks of a process that dies). Writers never wait for each other: their locks are
// shared. Unlike POSIX record locks they belong to the descriptor, so closing another
// descriptor of the file does not drop them.
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#ifndef F_OFD_GETLK
#define F_OFD_GETLK 36
#define F_OFD_SETLK 37
#define F_OFD_SETLKW 38
#endif

/// A lock of `type` on the one byte at `offset`.
static inline struct flock corestore_byte_lock(short type, long offset) {
    struct flock lock;
    memset(&lock, 0, sizeof lock);
    lock.l_type = type;
    lock.l_whence = SEEK_SET;
    lock.l_start = offset;
    lock.l_len = 1;
    return lock;
}

/// Takes a shared lock on byte `offset` of `fd`; 0 or an errno.
static inline int corestore_ofd_share(int fd, long offset) {
    struct flock lock = corestore_byte_lock(F_RDLCK, offset);
    while (fcntl(fd, F_OFD_SETLK, &lock) != 0) {
        if (errno != EINTR) return errno;
    }
    return 0;
}

/// Releases the lock on byte `offset` of `fd`.
static inline void corestore_ofd_unlock(int fd, long offset) {
    struct flock lock = corestore_byte_lock(F_UNLCK, offset);
    (void)fcntl(fd, F_OFD_SETLK, &lock);
}

/// 1 when another open file description holds a lock on byte `offset` of `fd` (a shared one
/// too), 0 when none does, -1 when it cannot be told.
static inline int corestore_ofd_is_locked(int fd, long offset) {
    struct flock lock = corestore_byte_lock(F_WRLCK, offset);
    if (fcntl(fd, F_OFD_GETLK, &lock) != 0) return -1;
    return lock.l_type == F_UNLCK ? 0 : 1;
}
