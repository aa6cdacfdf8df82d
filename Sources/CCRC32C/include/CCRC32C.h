#ifndef CCRC32C_H
#define CCRC32C_H

#include <stddef.h>
#include <stdint.h>

/// The CRC-32C (Castagnoli polynomial, reflected, initial and final value 0xFFFFFFFF) of the
/// `length` bytes at `data`: the checksum LevelDB, ext4 and iSCSI use. It runs on the
/// processor's CRC instruction where there is one (SSE 4.2 on x86-64, the CRC extension on
/// ARMv8), found once at run time, and on a table otherwise; all give the same result.
uint32_t corestore_crc32c(const void *data, size_t length);

/// The same checksum from the table alone, whatever the processor has: for the tests that show
/// the instruction and the table agree.
uint32_t corestore_crc32c_table(const void *data, size_t length);

#endif
