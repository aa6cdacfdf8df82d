// swift-tools-version:6.1
import PackageDescription

// A third-party backend for CoreStore: an append-only log file turned into a complete store by
// CoreStoreKeyValue, proven by the conformance suite.
let package = Package(
    name: "ThirdPartyBackend",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "AppendLogStore", targets: ["AppendLogStore"]),
    ],
    dependencies: [
        .package(name: "CoreStore", path: "../.."),
    ],
    targets: [
        .target(
            name: "AppendLogStore",
            dependencies: [
                .product(name: "CoreStoreKeyValue", package: "CoreStore"),
                .product(name: "CoreStoreStorage", package: "CoreStore"),
            ]
        ),
        .testTarget(
            name: "AppendLogStoreTests",
            dependencies: [
                "AppendLogStore",
                .product(name: "CoreStoreConformance", package: "CoreStore"),
                .product(name: "CoreStore", package: "CoreStore"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
