// The power-cut recorder (see include/CPowerCutRecorder.h). Each interposed call runs the real
// call and, when it touched a watched file and succeeded, appends a record, both under one lock,
// so the journal's order is the order in which the operations reached the kernel.
#define _GNU_SOURCE
#include "CPowerCutRecorder.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#define MAX_FDS 65536

enum { fd_unwatched = 0, fd_watched = 1, fd_watched_dsync = 2 };

static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int active = 0;
static int journal_fd = -1;
static char watch[PATH_MAX];
static size_t watch_length = 0;
static uint8_t fd_state[MAX_FDS];
static uint64_t fd_file[MAX_FDS];

static int (*real_open)(const char *, int, ...);
static int (*real_open64)(const char *, int, ...);
static int (*real_openat)(int, const char *, int, ...);
static int (*real_close)(int);
static ssize_t (*real_write)(int, const void *, size_t);
static ssize_t (*real_pwrite)(int, const void *, size_t, off_t);
static ssize_t (*real_pwrite64)(int, const void *, size_t, off_t);
static ssize_t (*real_writev)(int, const struct iovec *, int);
static int (*real_fsync)(int);
static int (*real_fdatasync)(int);
static int (*real_ftruncate)(int, off_t);
static int (*real_ftruncate64)(int, off_t);
static int (*real_rename)(const char *, const char *);
static int (*real_unlink)(const char *);
static int (*real_mkdir)(const char *, mode_t);
static int (*real_rmdir)(const char *);
static off_t (*real_lseek)(int, off_t, int);

static void initialize(void) {
    real_open = dlsym(RTLD_NEXT, "open");
    real_open64 = dlsym(RTLD_NEXT, "open64");
    real_openat = dlsym(RTLD_NEXT, "openat");
    real_close = dlsym(RTLD_NEXT, "close");
    real_write = dlsym(RTLD_NEXT, "write");
    real_pwrite = dlsym(RTLD_NEXT, "pwrite");
    real_pwrite64 = dlsym(RTLD_NEXT, "pwrite64");
    real_writev = dlsym(RTLD_NEXT, "writev");
    real_fsync = dlsym(RTLD_NEXT, "fsync");
    real_fdatasync = dlsym(RTLD_NEXT, "fdatasync");
    real_ftruncate = dlsym(RTLD_NEXT, "ftruncate");
    real_ftruncate64 = dlsym(RTLD_NEXT, "ftruncate64");
    real_rename = dlsym(RTLD_NEXT, "rename");
    real_unlink = dlsym(RTLD_NEXT, "unlink");
    real_mkdir = dlsym(RTLD_NEXT, "mkdir");
    real_rmdir = dlsym(RTLD_NEXT, "rmdir");
    real_lseek = dlsym(RTLD_NEXT, "lseek");

    const char *journal = getenv("CORESTORE_POWERCUT_JOURNAL");
    const char *watched = getenv("CORESTORE_POWERCUT_WATCH");
    if (!journal || !watched || watched[0] != '/' || strlen(watched) >= sizeof(watch)) return;
    strcpy(watch, watched);
    watch_length = strlen(watch);
    while (watch_length > 1 && watch[watch_length - 1] == '/') watch[--watch_length] = 0;
    journal_fd = real_open(journal, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (journal_fd >= 0 && journal_fd < MAX_FDS) active = 1;
}

static int ready(void) {
    pthread_once(&once, initialize);
    return active;
}

/// Writes all of `length` bytes to the journal; a short journal would make the run meaningless,
/// so a failure ends the process.
static void journal_bytes(const void *bytes, size_t length) {
    const char *p = bytes;
    while (length > 0) {
        ssize_t n = real_write(journal_fd, p, length);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) abort();
        p += n;
        length -= (size_t)n;
    }
}

/// Appends one record; the caller holds `lock`.
static void record(uint8_t kind, uint64_t file, uint64_t a, uint64_t b, const void *payload, size_t length) {
    corestore_powercut_header header = {0};
    header.kind = kind;
    header.length = (uint32_t)length;
    header.file = file;
    header.a = a;
    header.b = b;
    journal_bytes(&header, sizeof header);
    if (length > 0) journal_bytes(payload, length);
}

/// Whether the absolute `path` is the watched directory or inside it.
static int is_watched(const char *path) {
    return strncmp(path, watch, watch_length) == 0 && (path[watch_length] == 0 || path[watch_length] == '/');
}

/// `path` made absolute against the working directory in `out`; 0 if it does not fit.
static int absolute(const char *path, char *out) {
    if (!path) return 0;
    if (path[0] == '/') {
        if (strlen(path) >= PATH_MAX) return 0;
        strcpy(out, path);
        return 1;
    }
    if (!getcwd(out, PATH_MAX)) return 0;
    size_t used = strlen(out);
    if (used + 1 + strlen(path) >= PATH_MAX) return 0;
    out[used] = '/';
    strcpy(out + used + 1, path);
    return 1;
}

static int state_of(int fd) {
    if (fd < 0 || fd >= MAX_FDS) return fd_unwatched;
    return __atomic_load_n(&fd_state[fd], __ATOMIC_ACQUIRE);
}

/// Records an open that returned `fd`; the caller holds `lock`.
static void opened(const char *path, int flags, int fd) {
    if (fd < 0 || fd >= MAX_FDS) return;
    __atomic_store_n(&fd_state[fd], fd_unwatched, __ATOMIC_RELEASE);
    char full[PATH_MAX];
    struct stat status;
    if (!absolute(path, full) || !is_watched(full) || fstat(fd, &status) != 0) return;
    fd_file[fd] = (uint64_t)status.st_ino;
    int directory = S_ISDIR(status.st_mode);
    record(corestore_powercut_open, fd_file[fd], (uint64_t)(unsigned)flags, directory, full, strlen(full));
    if ((flags & O_TRUNC) && !directory) record(corestore_powercut_truncate, fd_file[fd], 0, 0, NULL, 0);
    __atomic_store_n(&fd_state[fd], (flags & O_DSYNC) ? fd_watched_dsync : fd_watched, __ATOMIC_RELEASE);
}

static int open_common(int (*real)(const char *, int, ...), const char *path, int flags, mode_t mode) {
    if (!ready()) return real(path, flags, mode);
    pthread_mutex_lock(&lock);
    int fd = real(path, flags, mode);
    int saved = errno;
    opened(path, flags, fd);
    pthread_mutex_unlock(&lock);
    errno = saved;
    return fd;
}

static mode_t mode_argument(int flags, va_list arguments) {
    return (flags & (O_CREAT | O_TMPFILE)) ? (mode_t)va_arg(arguments, int) : 0;
}

int open(const char *path, int flags, ...) {
    va_list arguments;
    va_start(arguments, flags);
    mode_t mode = mode_argument(flags, arguments);
    va_end(arguments);
    pthread_once(&once, initialize);
    return open_common(real_open, path, flags, mode);
}

int open64(const char *path, int flags, ...) {
    va_list arguments;
    va_start(arguments, flags);
    mode_t mode = mode_argument(flags, arguments);
    va_end(arguments);
    pthread_once(&once, initialize);
    return open_common(real_open64, path, flags, mode);
}

int openat(int directory, const char *path, int flags, ...) {
    va_list arguments;
    va_start(arguments, flags);
    mode_t mode = mode_argument(flags, arguments);
    va_end(arguments);
    if (!ready() || (directory != AT_FDCWD && path[0] != '/')) return real_openat(directory, path, flags, mode);
    pthread_mutex_lock(&lock);
    int fd = real_openat(directory, path, flags, mode);
    int saved = errno;
    opened(path, flags, fd);
    pthread_mutex_unlock(&lock);
    errno = saved;
    return fd;
}

int close(int fd) {
    if (!ready() || state_of(fd) == fd_unwatched) return real_close(fd);
    pthread_mutex_lock(&lock);
    __atomic_store_n(&fd_state[fd], fd_unwatched, __ATOMIC_RELEASE);
    int result = real_close(fd);
    int saved = errno;
    pthread_mutex_unlock(&lock);
    errno = saved;
    return result;
}

/// Records `count` bytes written at `offset` (and a sync for an O_DSYNC file); holds `lock`.
static void wrote(int fd, const void *bytes, ssize_t count, off_t offset) {
    if (count <= 0) return;
    record(corestore_powercut_write, fd_file[fd], (uint64_t)offset, 0, bytes, (size_t)count);
    if (state_of(fd) == fd_watched_dsync) record(corestore_powercut_sync, fd_file[fd], 0, 0, NULL, 0);
}

/// Where a `write` on `fd` lands: the end of the file in append mode, else the file position.
static off_t position(int fd) {
    int flags = fcntl(fd, F_GETFL);
    if (flags >= 0 && (flags & O_APPEND)) {
        struct stat status;
        return fstat(fd, &status) == 0 ? status.st_size : 0;
    }
    return real_lseek(fd, 0, SEEK_CUR);
}

ssize_t write(int fd, const void *bytes, size_t count) {
    if (!ready()) return real_write(fd, bytes, count);
    int state = state_of(fd);
    if (fd == STDOUT_FILENO && state == fd_unwatched) {
        pthread_mutex_lock(&lock);
        ssize_t n = real_write(fd, bytes, count);
        int saved = errno;
        if (n > 0) record(corestore_powercut_mark, 0, 0, 0, bytes, (size_t)n);
        pthread_mutex_unlock(&lock);
        errno = saved;
        return n;
    }
    if (state == fd_unwatched) return real_write(fd, bytes, count);
    pthread_mutex_lock(&lock);
    off_t offset = position(fd);
    ssize_t n = real_write(fd, bytes, count);
    int saved = errno;
    wrote(fd, bytes, n, offset);
    pthread_mutex_unlock(&lock);
    errno = saved;
    return n;
}

static ssize_t pwrite_common(ssize_t (*real)(int, const void *, size_t, off_t), int fd, const void *bytes, size_t count, off_t offset) {
    if (!ready() || state_of(fd) == fd_unwatched) return real(fd, bytes, count, offset);
    pthread_mutex_lock(&lock);
    ssize_t n = real(fd, bytes, count, offset);
    int saved = errno;
    wrote(fd, bytes, n, offset);
    pthread_mutex_unlock(&lock);
    errno = saved;
    return n;
}

ssize_t pwrite(int fd, const void *bytes, size_t count, off_t offset) {
    pthread_once(&once, initialize);
    return pwrite_common(real_pwrite, fd, bytes, count, offset);
}

ssize_t pwrite64(int fd, const void *bytes, size_t count, off_t offset) {
    pthread_once(&once, initialize);
    return pwrite_common(real_pwrite64, fd, bytes, count, offset);
}

ssize_t writev(int fd, const struct iovec *vectors, int count) {
    if (!ready() || state_of(fd) == fd_unwatched) return real_writev(fd, vectors, count);
    pthread_mutex_lock(&lock);
    off_t offset = position(fd);
    ssize_t n = real_writev(fd, vectors, count);
    int saved = errno;
    ssize_t left = n;
    for (int i = 0; i < count && left > 0; i++) {
        ssize_t part = (ssize_t)vectors[i].iov_len < left ? (ssize_t)vectors[i].iov_len : left;
        if (part > 0) record(corestore_powercut_write, fd_file[fd], (uint64_t)offset, 0, vectors[i].iov_base, (size_t)part);
        offset += part;
        left -= part;
    }
    if (n > 0 && state_of(fd) == fd_watched_dsync) record(corestore_powercut_sync, fd_file[fd], 0, 0, NULL, 0);
    pthread_mutex_unlock(&lock);
    errno = saved;
    return n;
}

static int sync_common(int (*real)(int), int fd) {
    if (!ready() || state_of(fd) == fd_unwatched) return real(fd);
    pthread_mutex_lock(&lock);
    int result = real(fd);
    int saved = errno;
    if (result == 0) record(corestore_powercut_sync, fd_file[fd], 0, 0, NULL, 0);
    pthread_mutex_unlock(&lock);
    errno = saved;
    return result;
}

int fsync(int fd) {
    pthread_once(&once, initialize);
    return sync_common(real_fsync, fd);
}

int fdatasync(int fd) {
    pthread_once(&once, initialize);
    return sync_common(real_fdatasync, fd);
}

static int truncate_common(int (*real)(int, off_t), int fd, off_t length) {
    if (!ready() || state_of(fd) == fd_unwatched) return real(fd, length);
    pthread_mutex_lock(&lock);
    int result = real(fd, length);
    int saved = errno;
    if (result == 0) record(corestore_powercut_truncate, fd_file[fd], (uint64_t)length, 0, NULL, 0);
    pthread_mutex_unlock(&lock);
    errno = saved;
    return result;
}

int ftruncate(int fd, off_t length) {
    pthread_once(&once, initialize);
    return truncate_common(real_ftruncate, fd, length);
}

int ftruncate64(int fd, off_t length) {
    pthread_once(&once, initialize);
    return truncate_common(real_ftruncate64, fd, length);
}

int rename(const char *from, const char *to) {
    if (!ready()) return real_rename(from, to);
    char full_from[PATH_MAX], full_to[PATH_MAX];
    if (!absolute(from, full_from) || !absolute(to, full_to) || (!is_watched(full_from) && !is_watched(full_to))) {
        return real_rename(from, to);
    }
    pthread_mutex_lock(&lock);
    int result = real_rename(from, to);
    int saved = errno;
    if (result == 0) {
        size_t a = strlen(full_from), b = strlen(full_to);
        char payload[2 * PATH_MAX + 1];
        memcpy(payload, full_from, a);
        payload[a] = 0;
        memcpy(payload + a + 1, full_to, b);
        record(corestore_powercut_rename, 0, 0, 0, payload, a + 1 + b);
    }
    pthread_mutex_unlock(&lock);
    errno = saved;
    return result;
}

/// Runs a path operation and records it when the path is watched and it succeeded.
static int path_operation(uint8_t kind, const char *path, int (*perform)(const char *, mode_t), mode_t mode) {
    char full[PATH_MAX];
    if (!absolute(path, full) || !is_watched(full)) return perform(path, mode);
    pthread_mutex_lock(&lock);
    int result = perform(path, mode);
    int saved = errno;
    if (result == 0) record(kind, 0, 0, 0, full, strlen(full));
    pthread_mutex_unlock(&lock);
    errno = saved;
    return result;
}

static int perform_unlink(const char *path, mode_t mode) { (void)mode; return real_unlink(path); }
static int perform_mkdir(const char *path, mode_t mode) { return real_mkdir(path, mode); }
static int perform_rmdir(const char *path, mode_t mode) { (void)mode; return real_rmdir(path); }

int unlink(const char *path) {
    if (!ready()) return real_unlink(path);
    return path_operation(corestore_powercut_unlink, path, perform_unlink, 0);
}

int mkdir(const char *path, mode_t mode) {
    if (!ready()) return real_mkdir(path, mode);
    return path_operation(corestore_powercut_mkdir, path, perform_mkdir, mode);
}

int rmdir(const char *path) {
    if (!ready()) return real_rmdir(path);
    return path_operation(corestore_powercut_rmdir, path, perform_rmdir, 0);
}
