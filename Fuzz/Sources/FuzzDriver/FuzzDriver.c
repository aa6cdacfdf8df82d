// The declaration in include/FuzzDriver.h is all this module provides; libFuzzer, linked by
// -sanitize=fuzzer, defines the function.
#include "FuzzDriver.h"
