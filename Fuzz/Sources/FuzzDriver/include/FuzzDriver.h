#ifndef CORESTORE_FUZZ_DRIVER_H
#define CORESTORE_FUZZ_DRIVER_H

#include <stddef.h>
#include <stdint.h>

/// libFuzzer's entry point for programs with their own `main` (compiler-rt, LLVM 12 and later):
/// parses libFuzzer's command line in `argv` and fuzzes `callback` until done.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
