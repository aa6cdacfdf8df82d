import CSQLite
import CoreStoreStorage

/// The commit counters a writer connection stored in its last commit, with SQLite's data
/// version of the file right after it.
///
/// The data version (`SQLITE_FCNTL_DATA_VERSION`) changes with every commit to the file, by
/// this connection or by any other, in this process or another: SQLite notices another
/// connection's commit when a transaction starts, the same check that keeps its page cache
/// valid. So inside a write transaction, an unchanged data version means that the stored
/// counters are still the remembered ones, and the commit need not read them.
struct SQLiteCommittedCounters {
    /// The data version after the commit that stored ``counters``.
    let dataVersion: UInt32
    /// The counters that commit stored.
    let counters: CommitCounters
}

extension SQLiteConnection {
    /// SQLite's data version of the main database file, `nil` if SQLite cannot tell.
    func dataVersion() -> UInt32? {
        var version: UInt32 = 0
        guard sqlite3_file_control(handle, "main", SQLITE_FCNTL_DATA_VERSION, &version) == SQLITE_OK else { return nil }
        return version
    }

    /// The stored counters, inside a write transaction: the remembered ones while no commit
    /// reached the file since they were stored, otherwise read from the metadata table.
    func currentCounters() throws -> CommitCounters {
        if let committed = committedCounters, let version = dataVersion(), version == committed.dataVersion {
            return committed.counters
        }
        return try SQLiteMetadata.counters(self)
    }

    /// Remembers `counters` as stored by the commit that just ended (`nil`: forget them).
    func remember(committed counters: CommitCounters?) {
        committedCounters = counters.flatMap { counters in
            dataVersion().map { SQLiteCommittedCounters(dataVersion: $0, counters: counters) }
        }
    }
}
