import Foundation
import CoreStoreSQL
import CoreStoreStorage

/// The `corestore_metadata` table (key → value, both text) in the store's schema: the format,
/// the model version and schema hash the data was written with, the application's user info
/// (JSON), the next record key and the commit sequence. Both counters change in the same
/// transaction as the data.
enum PostgresMetadata {
    static let table = "corestore_metadata"
    static let formatVersion: Int64 = 1

    /// The advisory lock that serializes creating, migrating and erasing the store `schemaName`
    /// across processes (a 64-bit key derived from the name).
    static func lockKey(_ schemaName: String) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in "corestore:\(schemaName)".utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return Int64(bitPattern: hash)
    }

    /// The stored metadata of the schema `schemaName`; `nil` when the schema does not exist or
    /// holds no table. Throws `incompatibleStore` for a schema whose tables CoreStore did not
    /// create.
    static func inspect(_ connection: PostgresConnection, schemaName: String) throws -> StoredMetadata? {
        let tables = try self.tables(connection, schemaName: schemaName)
        if tables.isEmpty { return nil }
        guard tables.contains(table) else {
            throw StorageError.incompatibleStore(path: "\(connection.location) schema \(schemaName)", reason: "the schema holds tables that CoreStore did not create")
        }
        return try read(connection, schemaName: schemaName)
    }

    /// The names of the tables in the schema `schemaName`.
    static func tables(_ connection: PostgresConnection, schemaName: String) throws -> Set<String> {
        var tables = Set<String>()
        // pg_catalog rather than information_schema: its view checks privileges on every
        // table of the database, and gets slower with every schema.
        try connection.statement("SELECT c.relname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind IN ('r', 'p')")
            .query([.text(schemaName)]) { tables.insert($0.text(0) ?? "") }
        return tables
    }

    /// The metadata stored in the schema.
    static func read(_ connection: PostgresConnection, schemaName: String) throws -> StoredMetadata {
        var values: [String: String] = [:]
        try connection.statement("SELECT key, value FROM \(schemaName.sqlIdentifier).\(table.sqlIdentifier)").query { row in
            if let key = row.text(0) { values[key] = row.text(1) }
        }
        guard let format = values["format"].flatMap({ Int64($0) }), format <= formatVersion,
              let version = values["model_version"], let hash = values["schema_hash"] else {
            throw StorageError.incompatibleStore(path: "\(connection.location) schema \(schemaName)", reason: "its CoreStore metadata is missing or from a newer version of CoreStore")
        }
        var userInfo: [String: String] = [:]
        if let json = values["user_info"], let decoded = try? JSONDecoder().decode([String: String].self, from: Data(json.utf8)) {
            userInfo = decoded
        }
        return StoredMetadata(modelVersion: version, schemaHash: hash, userInfo: userInfo)
    }

    /// Creates the table for a new store (in the connection's search path).
    static func create(_ connection: PostgresConnection, metadata: StoredMetadata) throws {
        try connection.execute("CREATE TABLE \(table.sqlIdentifier) (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        let insert = try connection.statement("INSERT INTO \(table.sqlIdentifier) (key, value) VALUES ($1, $2)")
        try insert.execute([.text("format"), .text(String(formatVersion))])
        try insert.execute([.text("next_key"), .text("1")])
        try insert.execute([.text("sequence"), .text("0")])
        try write(connection, metadata)
    }

    /// The next record key and the last commit sequence. With `lock`, the rows stay locked until
    /// the transaction ends: the first statement of every commit, so that commits from every
    /// connection and process run one at a time, each after the last has committed.
    ///
    /// With `schema`, the stored schema hash is read (and locked) too, and a store that another
    /// process migrated to a model other than `schema`'s throws `incompatibleStore`: a commit
    /// of the old model's layout must not reach the new model's tables.
    static func counters(_ connection: PostgresConnection, lock: Bool = false, expecting schema: StoreSchema? = nil) throws -> CommitCounters {
        var nextKey: Int64?, sequence: Int64?, hash: String?, version: String?
        let keys = schema == nil ? "'next_key', 'sequence'" : "'next_key', 'sequence', 'schema_hash', 'model_version'"
        let sql = "SELECT key, value FROM \(table.sqlIdentifier) WHERE key IN (\(keys))" + (lock ? " FOR UPDATE" : "")
        try connection.statement(sql).query { row in
            switch row.text(0) {
            case "next_key": nextKey = row.integer(1)
            case "sequence": sequence = row.integer(1)
            case "schema_hash": hash = row.text(1)
            case "model_version": version = row.text(1)
            default: break
            }
        }
        guard let nextKey, let sequence else {
            throw StorageError.incompatibleStore(path: connection.location, reason: "its CoreStore counters are missing")
        }
        if let schema, hash != schema.schemaHash {
            throw StorageError.incompatibleStore(path: connection.location, reason: "it was migrated to model version '\(version ?? "?")' (schema hash \(hash ?? "?")) by another process, and this process writes '\(schema.modelVersion)'; nothing was written: start it again with the current model")
        }
        return CommitCounters(nextKey: nextKey, sequence: UInt64(max(sequence, 0)))
    }

    /// Stores the counters: `$1` the next key, `$2` the sequence, both as text. Every commit runs
    /// it (inside `PostgresCommitRecord`'s statement), and so does a migration.
    static let countersUpdateSQL = "UPDATE \(table.sqlIdentifier) SET value = CASE key WHEN 'next_key' THEN $1 ELSE $2 END WHERE key IN ('next_key', 'sequence')"

    /// The store's record counts (``SQLRecordCounts``), checked against the sequence in this
    /// table.
    static let recordCounts = SQLRecordCounts(sequenceQuery: "SELECT value::bigint FROM \(table.sqlIdentifier) WHERE key = 'sequence'")

    /// Gives a store made before record counts were kept their table, and counts every table
    /// anew when the counts are not stamped with the store's sequence (a commit of a process
    /// running an earlier CoreStore left them behind). `tables` are the schema's tables. Counts
    /// found current cost one read; otherwise the work runs in its own transaction, with the
    /// counter rows locked as a commit locks them: no commit runs meanwhile.
    static func bringRecordCountsUpToDate(_ connection: PostgresConnection, mapping: SQLSchemaMapping, tables: Set<String>) throws {
        if tables.contains(SQLRecordCounts.table), try recordCounts.isCurrent(on: connection) { return }
        try connection.transaction("READ COMMITTED") {
            let counters = try counters(connection, lock: true)
            try connection.execute(SQLRecordCounts.creationSQL)
            guard try SQLRecordCounts.stamp(on: connection, dialect: mapping.dialect) != Int64(clamping: counters.sequence) else { return }
            try SQLRecordCounts.recount(mapping: mapping, sequence: counters.sequence, on: connection)
        }
    }

    /// Stores the counters (and new metadata) of a commit.
    static func update(_ connection: PostgresConnection, counters: CommitCounters, metadata: StoredMetadata?) throws {
        try connection.statement(countersUpdateSQL).execute([.text(String(counters.nextKey)), .text(String(counters.sequence))])
        if let metadata { try write(connection, metadata) }
    }

    /// Stores new metadata (model version, schema hash, user info).
    static func write(_ connection: PostgresConnection, _ metadata: StoredMetadata) throws {
        let json = (try? JSONEncoder().encode(metadata.userInfo)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        let upsert = try connection.statement("INSERT INTO \(table.sqlIdentifier) (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value")
        try upsert.execute([.text("model_version"), .text(metadata.modelVersion)])
        try upsert.execute([.text("schema_hash"), .text(metadata.schemaHash)])
        try upsert.execute([.text("user_info"), .text(json)])
    }

    /// Checks that every table of the mapping exists, and returns the names of the schema's
    /// tables.
    @discardableResult
    static func verifyTables(_ connection: PostgresConnection, mapping: SQLSchemaMapping, schemaName: String) throws -> Set<String> {
        let tables = try self.tables(connection, schemaName: schemaName)
        for name in mapping.tableOrder where !tables.contains(name) {
            throw StorageError.incompatibleStore(path: "\(connection.location) schema \(schemaName)", reason: "its table '\(name)' is missing")
        }
        return tables
    }
}

/// Connection strings as they may be shown.
enum PostgresLocation {
    /// The connection string without its password: `postgres://user@host:port/db` for a URL,
    /// the key-value form without `password=…` otherwise.
    static func redacted(_ connectionString: String) -> String {
        if connectionString.hasPrefix("postgres://") || connectionString.hasPrefix("postgresql://"),
           var components = URLComponents(string: connectionString) {
            components.password = nil
            components.query = nil
            return components.string ?? "postgres://"
        }
        return tokens(connectionString).filter { !$0.hasPrefix("password=") }.joined(separator: " ")
    }

    /// Where the store is, as a URL for errors: `postgres://user@host:port/database#schema`,
    /// without the password (a Unix-socket directory goes in the `host` query item).
    static func url(_ connectionString: String, schemaName: String) -> URL {
        var components: URLComponents
        if connectionString.hasPrefix("postgres://") || connectionString.hasPrefix("postgresql://"),
           let parsed = URLComponents(string: connectionString) {
            components = parsed
            components.password = nil
            let hosts = parsed.queryItems?.filter { $0.name == "host" } ?? []
            components.queryItems = hosts.isEmpty ? nil : hosts
        } else {
            components = URLComponents()
            components.scheme = "postgres"
            for (key, value) in keyValuePairs(connectionString) {
                switch key {
                case "host" where value.hasPrefix("/"): components.queryItems = [URLQueryItem(name: "host", value: value)]
                case "host", "hostaddr": components.host = value
                case "port": components.port = Int(value)
                case "user": components.user = value
                case "dbname": components.path = "/" + value
                default: break
                }
            }
        }
        components.fragment = schemaName
        return components.url ?? URL(string: "postgres:")!
    }

    /// The `key=value` pairs of a libpq key-value connection string, values unquoted.
    static func keyValuePairs(_ connectionString: String) -> [(String, String)] {
        tokens(connectionString).compactMap { token in
            guard let equals = token.firstIndex(of: "=") else { return nil }
            var value = String(token[token.index(after: equals)...])
            if value.count >= 2 && value.hasPrefix("'") && value.hasSuffix("'") {
                value = String(value.dropFirst().dropLast())
                value = value.replacingOccurrences(of: "\\'", with: "'").replacingOccurrences(of: "\\\\", with: "\\")
            }
            return (String(token[..<equals]), value)
        }
    }

    /// The `key=value` tokens of a libpq key-value connection string, as written: separated by
    /// spaces, a value may be in single quotes, with `\'` and `\\` inside.
    private static func tokens(_ connectionString: String) -> [String] {
        var tokens: [String] = []
        var token = "", quoted = false, escaped = false
        func finish() {
            if !token.isEmpty { tokens.append(token) }
            token = ""
        }
        for character in connectionString {
            if escaped { token.append(character); escaped = false; continue }
            switch character {
            case "\\" where quoted: token.append(character); escaped = true
            case "'": token.append(character); quoted.toggle()
            case " " where !quoted: finish()
            default: token.append(character)
            }
        }
        finish()
        return tokens
    }

    /// A value for a libpq key-value connection string: in single quotes, with `\` and `'`
    /// escaped.
    static func quoted(_ value: String) -> String {
        "'" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
    }
}
