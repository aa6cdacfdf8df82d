import Foundation
import CoreStoreSQL
import CSQLite
import CoreStoreStorage

/// The `corestore_metadata` table (key → value): the file format, the model version and schema
/// hash the data was written with, the application's user info (JSON), the next record key and
/// the commit sequence. In the classic journal mode both counters change in the same transaction
/// as the data; in WAL mode they live in ``SQLiteCounterFile`` while the database is open.
enum SQLiteMetadata {
    static let table = "corestore_metadata"
    static let formatVersion: Int64 = 1

    /// Reads an existing file without changing it: `nil` when there is no file or it is an
    /// empty database; the stored metadata otherwise. Throws `incompatibleStore` for a file that
    /// is not a SQLite database, is damaged or truncated, or was not made by CoreStore.
    static func inspect(path: String, schema: StoreSchema) throws -> StoredMetadata? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        // Another store of this process has it open: it was checked when that store opened it,
        // and reading it with a descriptor of our own would drop SQLite's locks on it.
        if !SQLiteOpenFiles.isOpen(path), try checkFileHeader(path) == .empty {
            return nil
        }
        let connection = try SQLiteConnection(path: path, flags: SQLITE_OPEN_READONLY, schema: schema)
        // Another connection closing the database may hold it for a moment (a checkpoint).
        sqlite3_busy_timeout(connection.handle, 5000)
        return try readMetadata(connection, path: path)
    }

    /// What the first bytes of a database file show.
    private enum FileHeader { case empty, database }

    /// Refuses a file that is not a SQLite database, or a truncated one, before SQLite opens it.
    private static func checkFileHeader(_ path: String) throws -> FileHeader {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw StorageError.incompatibleStore(path: path, reason: "the file cannot be read")
        }
        let header = (try? handle.read(upToCount: 100)) ?? Data()
        let size = (try? handle.seekToEnd()) ?? 0
        try? handle.close()
        if size == 0 { return .empty }
        guard header.count == 100, header.prefix(16) == Data("SQLite format 3\0".utf8) else {
            throw StorageError.incompatibleStore(path: path, reason: "the file is not a SQLite database")
        }
        let rawPageSize = Int(header[16]) << 8 | Int(header[17])
        let pageSize = rawPageSize == 1 ? 65536 : rawPageSize
        let pageCount = header[28..<32].reduce(0) { $0 << 8 | Int($1) }
        let walSize = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
        if walSize == 0, pageCount > 0, UInt64(pageCount * pageSize) > size {
            throw StorageError.incompatibleStore(path: path, reason: "the database is truncated (\(size) bytes instead of \(pageCount * pageSize))")
        }
        return .database
    }

    /// The stored metadata read through `connection`; `nil` for an empty database.
    private static func readMetadata(_ connection: SQLiteConnection, path: String) throws -> StoredMetadata? {
        var tables: [String] = []
        try connection.statement("SELECT name FROM sqlite_master WHERE type = 'table'").query { tables.append($0.text(0) ?? "") }
        if tables.isEmpty { return nil }
        guard tables.contains(table) else {
            throw StorageError.incompatibleStore(path: path, reason: "it is a SQLite database that CoreStore did not create")
        }
        return try read(connection)
    }

    /// The metadata stored in the database of `connection`.
    static func read(_ connection: SQLiteConnection) throws -> StoredMetadata {
        var values: [String: SQLValue] = [:]
        try connection.statement("SELECT key, value FROM \(table.sqlIdentifier)").query { row in
            if let key = row.text(0) { values[key] = row.column(1) }
        }
        guard case .integer(let format)? = values["format"], format <= formatVersion,
              case .text(let version)? = values["model_version"], case .text(let hash)? = values["schema_hash"] else {
            throw StorageError.incompatibleStore(path: connection.path, reason: "its CoreStore metadata is missing or from a newer version of CoreStore")
        }
        var userInfo: [String: String] = [:]
        if case .text(let json)? = values["user_info"], let decoded = try? JSONDecoder().decode([String: String].self, from: Data(json.utf8)) {
            userInfo = decoded
        }
        return StoredMetadata(modelVersion: version, schemaHash: hash, userInfo: userInfo)
    }

    /// Creates the table for a new store.
    static func create(_ connection: SQLiteConnection, metadata: StoredMetadata) throws {
        try connection.execute("CREATE TABLE \(table.sqlIdentifier) (key TEXT PRIMARY KEY, value) WITHOUT ROWID")
        let insert = try connection.statement("INSERT INTO \(table.sqlIdentifier) (key, value) VALUES (?1, ?2)")
        try insert.execute([.text("format"), .integer(formatVersion)])
        try insert.execute([.text("next_key"), .integer(1)])
        try insert.execute([.text("sequence"), .integer(0)])
        try write(connection, metadata)
    }

    /// The next record key and the last commit sequence, read inside the write transaction.
    static func counters(_ connection: SQLiteConnection) throws -> CommitCounters {
        // Both counters in one statement: this runs in every commit.
        var nextKey: Int64?, sequence: Int64?
        try connection.statement(countersSQL).query { row in
            if case .integer(let value) = row.column(0) { nextKey = value }
            if case .integer(let value) = row.column(1) { sequence = value }
        }
        guard let nextKey, let sequence else {
            throw StorageError.incompatibleStore(path: connection.path, reason: "its CoreStore counters are missing")
        }
        return CommitCounters(nextKey: nextKey, sequence: UInt64(max(sequence, 0)))
    }

    private static let countersSQL = "SELECT (SELECT value FROM \(table.sqlIdentifier) WHERE key = 'next_key'), (SELECT value FROM \(table.sqlIdentifier) WHERE key = 'sequence')"
    /// One primary-key update per counter: a single `UPDATE … WHERE key IN (…)` made SQLite
    /// build an ephemeral table for the list on every commit.
    static let updateNextKeySQL = "UPDATE \(table.sqlIdentifier) SET value = ?1 WHERE key = 'next_key'"
    static let updateSequenceSQL = "UPDATE \(table.sqlIdentifier) SET value = ?1 WHERE key = 'sequence'"

    /// Stores the counters (and new metadata) of a commit. The next key is written only when it
    /// differs from `previous` (the counters the commit started from), when those are known.
    static func update(_ connection: SQLiteConnection, counters: CommitCounters, previous: CommitCounters? = nil, metadata: StoredMetadata?) throws {
        if counters.nextKey != previous?.nextKey {
            try connection.statement(.updateNextKey).execute([.integer(counters.nextKey)])
        }
        try connection.statement(.updateSequence).execute([.integer(Int64(counters.sequence))])
        if let metadata { try write(connection, metadata) }
    }

    /// The counters the database shows: those it stored, with the next key raised past the
    /// largest key of every table of `mapping` (in WAL mode the stored ones are written only
    /// when a store closes and, for the next key, when a commit deletes records; see
    /// ``SQLiteCounterFile``).
    static func derivedCounters(_ connection: SQLiteConnection, mapping: SQLSchemaMapping) throws -> CommitCounters {
        var counters = try self.counters(connection)
        for table in mapping.tableOrder {
            if case .integer(let largest) = try connection.scalar("SELECT max(\"_key\") FROM \(table.sqlIdentifier)") {
                counters.nextKey = max(counters.nextKey, largest + 1)
            }
        }
        return counters
    }

    /// Stores the next key, inside a commit that deletes records.
    static func storeNextKey(_ connection: SQLiteConnection, _ nextKey: Int64) throws {
        try connection.statement(.updateNextKey).execute([.integer(nextKey)])
    }

    /// Raises the stored counters to `counters` (when a store closes, and from a counters file
    /// a store in the classic journal mode finds).
    static func persist(_ connection: SQLiteConnection, _ counters: CommitCounters) throws {
        try connection.statement("UPDATE \(table.sqlIdentifier) SET value = ?1 WHERE key = 'next_key' AND value < ?1").execute([.integer(counters.nextKey)])
        try connection.statement("UPDATE \(table.sqlIdentifier) SET value = ?1 WHERE key = 'sequence' AND value < ?1").execute([.integer(Int64(clamping: counters.sequence))])
    }

    /// Stores new metadata (a commit's).
    static func write(_ connection: SQLiteConnection, _ metadata: StoredMetadata) throws {
        let json = (try? JSONEncoder().encode(metadata.userInfo)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        let upsert = try connection.statement("INSERT OR REPLACE INTO \(table.sqlIdentifier) (key, value) VALUES (?1, ?2)")
        try upsert.execute([.text("model_version"), .text(metadata.modelVersion)])
        try upsert.execute([.text("schema_hash"), .text(metadata.schemaHash)])
        try upsert.execute([.text("user_info"), .text(json)])
    }

    /// Checks that every table of the mapping exists.
    static func verifyTables(_ connection: SQLiteConnection, mapping: SQLSchemaMapping) throws {
        var tables = Set<String>()
        try connection.statement("SELECT name FROM sqlite_master WHERE type = 'table'").query { tables.insert($0.text(0) ?? "") }
        for name in mapping.tableOrder where !tables.contains(name) {
            throw StorageError.incompatibleStore(path: connection.path, reason: "its table '\(name)' is missing")
        }
    }
}
