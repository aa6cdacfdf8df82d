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
