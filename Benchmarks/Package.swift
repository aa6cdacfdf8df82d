// swift-tools-version:6.1
import PackageDescription

// The benchmarks: CoreStore on each first-party backend against the raw C API of the engine
// beneath it (for PostgreSQL: libpq, against a server), and (for SQLite) against GRDB. A separate
// package so that the main package never depends on GRDB. Run it with `./scripts/bench.sh`
// (release build).
let package = Package(
    name: "CoreStoreBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "CoreStore", path: ".."),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
    ],
    targets: [
        // LMDB and LevelDB from the system, for the raw-engine baselines (the main package's
        // own module maps are not products, and module names must not clash).
        .systemLibrary(name: "BenchLMDB", path: "Sources/BenchLMDB", pkgConfig: "lmdb", providers: [.apt(["liblmdb-dev"])]),
        .systemLibrary(name: "BenchLevelDB", path: "Sources/BenchLevelDB", providers: [.apt(["libleveldb-dev"])]),
        // libpq, for the raw PostgreSQL baseline (the main package's CPostgres is not a product).
        .systemLibrary(name: "BenchPostgres", path: "Sources/BenchPostgres", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .executableTarget(
            name: "corestore-bench",
            dependencies: [
                .product(name: "CoreStore", package: "CoreStore"),
                .product(name: "CoreStoreSQLite", package: "CoreStore"),
                .product(name: "CoreStoreLMDB", package: "CoreStore"),
                .product(name: "CoreStoreLevelDB", package: "CoreStore"),
                .product(name: "CoreStorePostgres", package: "CoreStore"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                "BenchLMDB",
                "BenchLevelDB",
                "BenchPostgres",
            ],
            path: "Sources/CoreStoreBenchmarks"
        ),
    ],
    swiftLanguageModes: [.v6]
)
