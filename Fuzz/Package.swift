// swift-tools-version:6.1
import PackageDescription

// libFuzzer targets for the parsers and decoders that read untrusted bytes: the record codec
// and the record fields a scan reads in place, the key-value tuple-key decoder, the
// format-predicate lexer and parser, and the import value accessors (JSON into an import). A separate package, built only by `scripts/fuzz.sh` with
// `-sanitize=fuzzer,address`; each target's `main` hands its test function to libFuzzer's
// `LLVMFuzzerRunDriver` (declared by the small `FuzzDriver` C module).
let package = Package(
    name: "CoreStoreFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "CoreStore", path: ".."),
    ],
    targets: [
        .target(name: "FuzzDriver"),
        .executableTarget(
            name: "fuzz-record-codec",
            dependencies: [
                "FuzzDriver",
                .product(name: "CoreStoreKeyValue", package: "CoreStore"),
                .product(name: "CoreStoreStorage", package: "CoreStore"),
            ]
        ),
        .executableTarget(
            name: "fuzz-tuple-key",
            dependencies: [
                "FuzzDriver",
                .product(name: "CoreStoreKeyValue", package: "CoreStore"),
                .product(name: "CoreStoreStorage", package: "CoreStore"),
            ]
        ),
        .executableTarget(
            name: "fuzz-format-predicate",
            dependencies: [
                "FuzzDriver",
                .product(name: "CoreStore", package: "CoreStore"),
            ]
        ),
        .executableTarget(
            name: "fuzz-import-values",
            dependencies: [
                "FuzzDriver",
                .product(name: "CoreStore", package: "CoreStore"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
