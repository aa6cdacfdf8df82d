import CoreStoreStorage

extension SQLiteStore: StorageIntegrityChecking {
    /// SQLite's own check of the database file (`PRAGMA integrity_check`: b-tree pages, free
    /// list, every index against its table, `NOT NULL` and `CHECK` constraints), on a read
    /// connection, reporting at most 1,000 problems. Returns the number of lines SQLite
    /// answered (1 when the file is intact).
    public func checkIntegrity(_ problem: (String) -> Void) throws -> Int {
        try withReadConnection { connection in
            var lines = 0
            try connection.statement("PRAGMA integrity_check(1000)").query([]) { row in
                lines += 1
                let line = row.text(0) ?? ""
                if line != "ok" { problem("SQLite integrity_check: \(line)") }
            }
            return lines
        }
    }
}
