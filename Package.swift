// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "CoreStore",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "CoreStore", targets: ["CoreStore"]),
        .library(name: "CoreStoreStorage", targets: ["CoreStoreStorage"]),
        .library(name: "CoreStoreInMemory", targets: ["CoreStoreInMemory"]),
        .library(name: "CoreStoreSQLite", targets: ["CoreStoreSQLite"]),
        // A store in a PostgreSQL database that many processes share (libpq from the system).
        .library(name: "CoreStorePostgres", targets: ["CoreStorePostgres"]),
        .library(name: "CoreStoreKeyValue", targets: ["CoreStoreKeyValue"]),
        .library(name: "CoreStoreConformance", targets: ["CoreStoreConformance"]),
        .library(name: "CoreStoreLMDB", targets: ["CoreStoreLMDB"]),
        .library(name: "CoreStoreLevelDB", targets: ["CoreStoreLevelDB"]),
        .executable(name: "corestore", targets: ["corestore"]),
        // Not for apps: the LD_PRELOAD library `corestore torture power` records a store's file
        // operations with, to replay them as a power cut would leave them.
        .library(name: "PowerCutRecorder", type: .dynamic, targets: ["CPowerCutRecorder"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        // `swift package generate-documentation`: the DocC catalogs (scripts/docs.sh). A command
        // plugin, built only when that command runs.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // The storage contract every engine implements. Foundation only.
        .target(name: "CoreStoreStorage", path: "Sources/CoreStoreStorage"),
        // The reference engine: everything in memory, snapshots for readers.
        .target(
            name: "CoreStoreInMemory",
            dependencies: [
                "CoreStoreStorage",
                .product(name: "HashTreeCollections", package: "swift-collections"),
            ],
            path: "Backends/InMemory"
        ),
        // CRC-32C on the processor's instruction where it has one: the key-value tier's record
        // checksums and LevelDB's log records.
        .target(name: "CCRC32C", path: "Sources/CCRC32C"),
        // The ordered key-value tier: one record engine over any sorted byte map.
        .target(
            name: "CoreStoreKeyValue",
            dependencies: ["CoreStoreStorage", "CCRC32C"],
            path: "Sources/CoreStoreKeyValue",
            exclude: ["README.md"]
        ),
        // The conformance suite every backend, ours or a third party's, runs.
        .target(
            name: "CoreStoreConformance",
            dependencies: ["CoreStoreStorage", "CoreStore"],
            path: "Conformance/CoreStoreConformance"
        ),
        // Factories of the first-party stores for the conformance suite (tests and CLI).
        .target(
            name: "CoreStoreFirstPartyFactories",
            dependencies: [
                "CoreStoreConformance", "CoreStoreStorage", "CoreStoreInMemory", "CoreStoreSQLite",
                "CoreStoreKeyValue", "CoreStoreLMDB", "CoreStoreLevelDB", "CoreStorePostgres",
            ],
            path: "Conformance/FirstPartyFactories"
        ),
        // SQLite from the system (libsqlite3-dev).
        .systemLibrary(
            name: "CSQLite",
            path: "Backends/SQLite/CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // The SQL layer the SQL backends share: schema mapping, DDL, predicates, sorts and
        // aggregates, written once against a dialect description.
        .target(
            name: "CoreStoreSQL",
            dependencies: ["CoreStoreStorage"],
            path: "Sources/CoreStoreSQL"
        ),
        // The embedded default engine: SQLite with the query language pushed down to SQL.
        .target(
            name: "CoreStoreSQLite",
            dependencies: ["CoreStoreStorage", "CoreStoreSQL", "CSQLite"],
            path: "Backends/SQLite/CoreStoreSQLite"
        ),
        // libpq, PostgreSQL's client library, from the system (libpq-dev).
        .systemLibrary(
            name: "CPostgres",
            path: "Backends/Postgres/CPostgres",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]
        ),
        // A store in a PostgreSQL database shared by many processes, on the shared SQL layer.
        .target(
            name: "CoreStorePostgres",
            dependencies: ["CoreStoreStorage", "CoreStoreSQL", "CPostgres"],
            path: "Backends/Postgres/CoreStorePostgres"
        ),
        // LMDB from the system (liblmdb-dev).
        .systemLibrary(
            name: "CLMDB",
            path: "Backends/LMDB/CLMDB",
            pkgConfig: "lmdb",
            providers: [.apt(["liblmdb-dev"])]
        ),
        // An ordered key-value engine over an LMDB environment.
        .target(
            name: "CoreStoreLMDB",
            dependencies: ["CoreStoreStorage", "CoreStoreKeyValue", "CLMDB"],
            path: "Backends/LMDB/CoreStoreLMDB"
        ),
        // LevelDB from the system (libleveldb-dev; no pkg-config file, linked by the modulemap).
        .systemLibrary(
            name: "CLevelDB",
            path: "Backends/LevelDB/CLevelDB",
            providers: [.apt(["libleveldb-dev"])]
        ),
        // An ordered key-value engine over a LevelDB database.
        .target(
            name: "CoreStoreLevelDB",
            dependencies: ["CoreStoreStorage", "CoreStoreKeyValue", "CLevelDB"],
            path: "Backends/LevelDB/CoreStoreLevelDB"
        ),
        // The user API.
        .target(
            name: "CoreStore",
            dependencies: [
                "CoreStoreStorage",
                "CoreStoreInMemory",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/CoreStore"
        ),
        // Interposes the file operations of a process (open, write, fsync, rename, …) and records
        // them; loaded with LD_PRELOAD by `corestore torture power`, linked by nothing.
        .target(
            name: "CPowerCutRecorder",
            path: "Sources/CPowerCutRecorder",
            linkerSettings: [.linkedLibrary("dl")]
        ),
        .executableTarget(
            name: "corestore",
            dependencies: [
                "CoreStore",
                "CoreStoreStorage",
                "CoreStoreSQLite",
                "CoreStoreLMDB",
                "CoreStoreLevelDB",
                "CoreStoreConformance",
                "CoreStoreFirstPartyFactories",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/corestore",
            resources: [.copy("Resources/demo-books.json")]
        ),
        .testTarget(
            name: "CoreStoreStorageTests",
            dependencies: ["CoreStoreStorage", "CoreStoreInMemory"]
        ),
        .testTarget(
            name: "CoreStoreKeyValueTests",
            dependencies: ["CoreStoreKeyValue", "CoreStoreStorage", "CoreStoreInMemory", "CCRC32C"]
        ),
        .testTarget(
            name: "CoreStoreTests",
            dependencies: ["CoreStore", "CoreStoreSQLite", "CoreStoreKeyValue", "CoreStoreLMDB", "CoreStoreLevelDB", "CoreStorePostgres"]
        ),
        .testTarget(
            name: "CoreStoreSQLiteTests",
            dependencies: ["CoreStore", "CoreStoreSQLite", "CoreStoreSQL", "CoreStoreStorage", "CSQLite", "CSQLiteFaultVFS"]
        ),
        // A SQLite VFS that fails chosen reads, writes and syncs, for the SQLite fault tests.
        .target(
            name: "CSQLiteFaultVFS",
            dependencies: ["CSQLite"],
            path: "Tests/CSQLiteFaultVFS"
        ),
        .testTarget(
            name: "CoreStoreConformanceTests",
            dependencies: ["CoreStoreConformance", "CoreStoreFirstPartyFactories", "CoreStore", "CoreStoreSQLite", "CoreStoreKeyValue", "CoreStoreLMDB", "CoreStoreLevelDB"]
        ),
        .testTarget(
            name: "CoreStoreConformanceDifferentialTests",
            dependencies: [
                "CoreStoreConformance", "CoreStoreFirstPartyFactories", "CoreStoreStorage", "CoreStoreInMemory", "CoreStoreSQLite",
                "CoreStoreKeyValue", "CoreStoreLMDB", "CoreStoreLevelDB",
            ]
        ),
        // Runs the `corestore` executable (built first, beside the test bundle): crash tests,
        // damaged stores, and the store tools on stores the tests write.
        .testTarget(
            name: "CoreStoreTortureTests",
            dependencies: ["corestore", "CoreStore", "CoreStoreSQLite", "CoreStoreLMDB", "CoreStoreLevelDB", "CoreStoreKeyValue", "CSQLite"]
        ),
        // The conformance suite and the multi-process tests (which run the `corestore`
        // executable, built first) on a real PostgreSQL server
        // (CORESTORE_POSTGRES_URL, or a throwaway cluster from scripts/postgres-cluster.sh).
        .testTarget(
            name: "CoreStorePostgresTests",
            dependencies: ["corestore", "CoreStoreConformance", "CoreStoreFirstPartyFactories", "CoreStorePostgres", "CoreStoreStorage", "CoreStore"]
        ),
        .testTarget(
            name: "CoreStoreKVEngineTests",
            dependencies: ["CoreStoreLMDB", "CoreStoreLevelDB", "CoreStoreKeyValue", "CoreStoreStorage"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
