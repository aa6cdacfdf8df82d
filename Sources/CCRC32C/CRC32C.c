// CRC-32C in three implementations that agree bit for bit: the x86-64 SSE 4.2 instruction,
// the ARMv8 CRC instruction, and a slicing-by-8 table for every other processor. The choice is
// made once, at the first call, from what the processor reports.

#include "CCRC32C.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#if defined(__x86_64__)
#include <cpuid.h>
#include <nmmintrin.h>
#elif defined(__aarch64__)
#include <arm_acle.h>
#if defined(__linux__)
#include <sys/auxv.h>
#ifndef HWCAP_CRC32
#define HWCAP_CRC32 (1 << 7)
#endif
#endif
#endif

typedef uint32_t (*crc_function)(uint32_t crc, const uint8_t *bytes, size_t length);

// MARK: - Table (any processor)

/// table[k][b]: the CRC of byte b followed by k zero bytes.
static uint32_t table[8][256];

static void build_table(void) {
    for (uint32_t b = 0; b < 256; b++) {
        uint32_t crc = b;
        for (int bit = 0; bit < 8; bit++) crc = (crc & 1) ? (crc >> 1) ^ 0x82F63B78u : crc >> 1;
        table[0][b] = crc;
    }
    for (uint32_t b = 0; b < 256; b++) {
        for (int k = 1; k < 8; k++) table[k][b] = (table[k - 1][b] >> 8) ^ table[0][table[k - 1][b] & 0xFF];
    }
}

static uint32_t crc32c_table(uint32_t crc, const uint8_t *bytes, size_t length) {
    while (length >= 8) {
        uint32_t low, high;
        memcpy(&low, bytes, 4);
        memcpy(&high, bytes + 4, 4);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        low = __builtin_bswap32(low);
        high = __builtin_bswap32(high);
#endif
        low ^= crc;
        crc = table[7][low & 0xFF] ^ table[6][(low >> 8) & 0xFF] ^ table[5][(low >> 16) & 0xFF] ^ table[4][low >> 24]
            ^ table[3][high & 0xFF] ^ table[2][(high >> 8) & 0xFF] ^ table[1][(high >> 16) & 0xFF] ^ table[0][high >> 24];
        bytes += 8;
        length -= 8;
    }
    while (length-- > 0) crc = table[0][(crc ^ *bytes++) & 0xFF] ^ (crc >> 8);
    return crc;
}

// MARK: - Processor instructions

#if defined(__x86_64__)
/// The register `wide` after the `words` 8-byte words at `bytes`.
__attribute__((target("sse4.2")))
static inline uint64_t crc32c_words(uint64_t wide, const uint8_t *bytes, size_t words) {
    for (size_t i = 0; i < words; i++) {
        uint64_t word;
        memcpy(&word, bytes + 8 * i, 8);
        wide = _mm_crc32_u64(wide, word);
    }
    return wide;
}

__attribute__((target("sse4.2")))
static uint32_t crc32c_hardware(uint32_t crc, const uint8_t *bytes, size_t length) {
    uint64_t wide = crc32c_words(crc, bytes, length / 8);
    bytes += length & ~(size_t)7;
    length &= 7;
    crc = (uint32_t)wide;
    // The last 0 to 7 bytes in at most three steps.
    if (length & 4) {
        uint32_t word;
        memcpy(&word, bytes, 4);
        crc = _mm_crc32_u32(crc, word);
        bytes += 4;
    }
    if (length & 2) {
        uint16_t half;
        memcpy(&half, bytes, 2);
        crc = _mm_crc32_u16(crc, half);
        bytes += 2;
    }
    if (length & 1) crc = _mm_crc32_u8(crc, *bytes);
    return crc;
}

static int has_hardware(void) {
    unsigned int eax, ebx, ecx, edx;
    return __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_SSE4_2) != 0;
}

/// Buffers shorter than this (and at least 8 bytes long) take `crc32c_hardware_whole`.
#define WHOLE_LIMIT 2048

/// zeros_crc[n]: the CRC register after n zero bytes from the initial value 0xFFFFFFFF.
static uint32_t zeros_crc[WHOLE_LIMIT];

__attribute__((target("sse4.2")))
static void build_zeros_crc(void) {
    uint32_t crc = 0xFFFFFFFFu;
    for (size_t n = 0; n < WHOLE_LIMIT; n++) {
        zeros_crc[n] = crc;
        crc = _mm_crc32_u8(crc, 0);
    }
}

/// The CRC register of a whole buffer of 8 to WHOLE_LIMIT - 1 bytes from the initial value
/// 0xFFFFFFFF, with one branch on its length instead of three: the register update is linear,
/// so the register from 0xFFFFFFFF is the register from 0 over the bytes, combined with the
/// register from 0xFFFFFFFF over as many zero bytes (zeros_crc). From 0, leading zero bytes
/// leave the register at 0, so the first length % 8 bytes go in as one 8-byte word whose low
/// bytes are zero: what remains is whole words. (Record lengths vary from one record to the
/// next, and the branches of `crc32c_hardware`'s last 7 bytes were mispredicted about as often.)
__attribute__((target("sse4.2")))
static uint32_t crc32c_hardware_whole(const uint8_t *bytes, size_t length) {
    uint32_t zeros = zeros_crc[length];
    uint64_t wide = 0;
    size_t head = length & 7;
    if (head != 0) {
        uint64_t word;
        memcpy(&word, bytes, 8);
        wide = _mm_crc32_u64(0, word << (8 * (8 - head)));
        bytes += head;
        length -= head;
    }
    return (uint32_t)crc32c_words(wide, bytes, length / 8) ^ zeros;
}
#elif defined(__aarch64__)
__attribute__((target("crc")))
static uint32_t crc32c_hardware(uint32_t crc, const uint8_t *bytes, size_t length) {
    while (length >= 8) {
        uint64_t word;
        memcpy(&word, bytes, 8);
        crc = __crc32cd(crc, word);
        bytes += 8;
        length -= 8;
    }
    if (length & 4) {
        uint32_t word;
        memcpy(&word, bytes, 4);
        crc = __crc32cw(crc, word);
        bytes += 4;
    }
    if (length & 2) {
        uint16_t half;
        memcpy(&half, bytes, 2);
        crc = __crc32ch(crc, half);
        bytes += 2;
    }
    if (length & 1) crc = __crc32cb(crc, *bytes);
    return crc;
}

static int has_hardware(void) {
#if defined(__linux__)
    return (getauxval(AT_HWCAP) & HWCAP_CRC32) != 0;
#elif defined(__APPLE__)
    return 1; // Every Apple ARM processor has the CRC extension.
#else
    return 0;
#endif
}
#endif

// MARK: - Dispatch

static pthread_once_t chosen_once = PTHREAD_ONCE_INIT;
static pthread_once_t table_once = PTHREAD_ONCE_INIT;
static crc_function best;

/// Whether `best` is x86-64's `crc32c_hardware`, whose whole buffers of common lengths take
/// `crc32c_hardware_whole`.
static int best_has_whole = 0;

static void choose(void) {
#if defined(__x86_64__) || defined(__aarch64__)
    if (has_hardware()) {
#if defined(__x86_64__)
        build_zeros_crc();
        best_has_whole = 1;
#endif
        best = crc32c_hardware;
        return;
    }
#endif
    pthread_once(&table_once, build_table);
    best = crc32c_table;
}

static uint32_t choose_and_run(uint32_t crc, const uint8_t *bytes, size_t length);

/// The implementation calls go to: first one that makes the choice (once, whichever thread
/// gets there first) and then runs it; from then on the chosen one, read with one load
/// instead of a pthread_once check per call.
static _Atomic(crc_function) chosen = choose_and_run;

/// Whether whole buffers of common lengths take `crc32c_hardware_whole`: set, after `choose`,
/// together with `chosen`.
static _Atomic(int) uses_whole = 0;

static uint32_t choose_and_run(uint32_t crc, const uint8_t *bytes, size_t length) {
    pthread_once(&chosen_once, choose);
    atomic_store_explicit(&uses_whole, best_has_whole, memory_order_release);
    atomic_store_explicit(&chosen, best, memory_order_release);
    return best(crc, bytes, length);
}

uint32_t corestore_crc32c(const void *data, size_t length) {
#if defined(__x86_64__)
    if (length >= 8 && length < WHOLE_LIMIT && atomic_load_explicit(&uses_whole, memory_order_acquire)) {
        return crc32c_hardware_whole((const uint8_t *)data, length) ^ 0xFFFFFFFFu;
    }
#endif
    crc_function function = atomic_load_explicit(&chosen, memory_order_acquire);
    return function(0xFFFFFFFFu, (const uint8_t *)data, length) ^ 0xFFFFFFFFu;
}

uint32_t corestore_crc32c_table(const void *data, size_t length) {
    pthread_once(&table_once, build_table);
    return crc32c_table(0xFFFFFFFFu, (const uint8_t *)data, length) ^ 0xFFFFFFFFu;
}
