import FuzzDriver
#if canImport(Glibc)
import Glibc
#endif

// SwiftPM renames this module's `main` and links it as the program's entry point, so the
// program runs libFuzzer through LLVMFuzzerRunDriver instead of libFuzzer's own `main`.
var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in
    guard let data else { return 0 }
    return importValuesFuzzTarget(data, size)
})
