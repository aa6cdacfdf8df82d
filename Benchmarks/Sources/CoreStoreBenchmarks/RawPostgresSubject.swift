import Foundation

/// The baseline for PostgreSQL: the benchmark entity in one table of a schema of its own,
/// driven through libpq alone (one connection, named prepared statements with binary parameters
/// and results, explicit transactions, no object layer). The schema is dropped when the subject
/// is released.
///
/// Like the raw SQLite subject: a heap table without a primary key, indexes on `id` and `age`,
/// dates as `float8` seconds since 1970, one statement (one round trip) per row, and the
/// server's default durability (`synchronous_commit = on`), as `PostgresStore` has it.
final class RawPostgresSubject: BenchmarkSubject {
    private let connection: RawPostgresConnection
    private let schemaName: String

    private static let selectItems = "SELECT id, name, age, score, created FROM item"

    /// Creates the schema `schemaName` (which must not exist) with the `item` table and its
    /// indexes, on the server at `url`.
    init(url: String, schemaName: String) throws {
        connection = try RawPostgresConnection(url: url)
        self.schemaName = schemaName
        let schema = "\"\(schemaName)\""
        try connection.execute("""
            CREATE SCHEMA \(schema);
            SET search_path TO \(schema);
            CREATE TABLE item (
                id int8 NOT NULL, name text NOT NULL, age int8 NOT NULL,
                score float8 NOT NULL, created float8 NOT NULL);
            CREATE INDEX item_id ON item(id);
            CREATE INDEX item_age ON item(age);
            """)
        try prepareStatements()
    }

    deinit {
        do {
            try connection.execute("DROP SCHEMA IF EXISTS \"\(schemaName)\" CASCADE")
        } catch {
            FileHandle.standardError.write(Data("warning: could not drop the raw PostgreSQL schema \(schemaName): \(error)\n".utf8))
        }
    }

    private func prepareStatements() throws {
        try connection.prepare("begin", "BEGIN")
        try connection.prepare("commit", "COMMIT")
        try connection.prepare("insert", "INSERT INTO item (id, name, age, score, created) VALUES ($1, $2, $3, $4, $5)",
                               types: [.int8, .text, .int8, .float8, .float8])
        try connection.prepare("all", Self.selectItems)
        try connection.prepare("age", "\(Self.selectItems) WHERE age = $1", types: [.int8])
        try connection.prepare("top", "\(Self.selectItems) WHERE score BETWEEN $1 AND $2 ORDER BY score DESC, id ASC LIMIT $3",
                               types: [.float8, .float8, .int8])
        try connection.prepare("totals", "SELECT COUNT(*), SUM(score) FROM item")
        try connection.prepare("groups", "SELECT age, COUNT(*), SUM(score) FROM item GROUP BY age ORDER BY age")
        try connection.prepare("ageCounts", "SELECT age, COUNT(age) FROM item GROUP BY age ORDER BY age")
        try connection.prepare("highestID", "SELECT COALESCE(MAX(id), -1) FROM item")
        try connection.prepare("bump", "UPDATE item SET score = score + 1, age = (age + 1) % 100 WHERE id = $1", types: [.int8])
        try connection.prepare("delete", "DELETE FROM item WHERE id >= $1 AND id < $2", types: [.int8, .int8])
        try connection.prepare("score", "UPDATE item SET score = $1 WHERE id = $2", types: [.float8, .int8])
        try connection.prepare("replace", "UPDATE item SET name = $1, age = $2, score = $3, created = $4 WHERE id = $5",
                               types: [.text, .int8, .float8, .float8, .int8])
    }

    // MARK: Workloads

    func insert(_ rows: [BenchRow]) throws {
        try inTransaction {
            for row in rows { try insertRow(row) }
        }
        // Fresh planner statistics after a load that at least doubles the table, by the rule
        // CoreStore's store follows (and as autovacuum would a minute later): both subjects'
        // queries are planned from the same picture of the table.
        if rows.count >= 1_000, rows.count >= storedRows { try connection.execute("ANALYZE item") }
        storedRows += rows.count
    }

    /// The rows the inserts so far added (what the statistics rule above compares with).
    private var storedRows = 0

    func fetchAll() throws -> Checksum {
        try rowsChecksum(connection.run("all"))
    }

    func fetch(age: Int) throws -> Checksum {
        try rowsChecksum(connection.run("age", [.int8(Int64(age))]))
    }

    func fetchTopScores(in range: ClosedRange<Double>, limit: Int) throws -> Checksum {
        let result = try connection.run("top", [.float8(range.lowerBound), .float8(range.upperBound), .int8(Int64(limit))])
        var checksum = Checksum()
        for row in 0..<result.count {
            result.addRow(row, to: &checksum, position: Int64(row) + 1)
        }
        return checksum
    }

    func aggregate() throws -> Checksum {
        var checksum = Checksum()
        let totals = try connection.run("totals")
        for row in 0..<totals.count {
            checksum.add(totals.int64(row, 0))
            checksum.add(Int64(totals.double(row, 1)))
        }
        let groups = try connection.run("groups")
        for row in 0..<groups.count {
            checksum.add(aggregateGroupChecksum(
                age: Int(groups.int64(row, 0)), count: Int(groups.int64(row, 1)), scoreSum: groups.double(row, 2)))
        }
        return checksum
    }

    func countPerAgeAndHighestID() throws -> Checksum {
        let groups = try connection.run("ageCounts")
        let highest = try connection.run("highestID")
        return countPerAgeChecksum((0..<groups.count).map { (age: Int(groups.int64($0, 0)), count: Int(groups.int64($0, 1))) },
                                   highestID: highest.count == 1 ? highest.int64(0, 0) : nil)
    }

    func update(ids: Range<Int64>) throws {
        try inTransaction {
            for id in ids { try connection.change("bump", [.int8(id)]) }
        }
    }

    func delete(ids: Range<Int64>) throws {
        try inTransaction {
            try connection.change("delete", [.int8(ids.lowerBound), .int8(ids.upperBound)])
        }
    }

    func monitoredUpdates(_ updates: [(id: Int64, score: Double)]) throws -> [Duration] {
        let clock = ContinuousClock()
        return try updates.map { update in
            try clock.measure {
                try inTransaction {
                    try connection.change("score", [.float8(update.score), .int8(update.id)])
                }
            }
        }
    }

    func insertEach(_ rows: [BenchRow]) throws {
        for row in rows {
            try inTransaction { try insertRow(row) }
        }
    }

    func importUnique(_ rows: [BenchRow]) throws {
        try inTransaction {
            for row in rows {
                let changed = try connection.change("replace", [
                    .text(row.name), .int8(Int64(row.age)), .float8(row.score),
                    .float8(row.created.timeIntervalSince1970), .int8(row.id),
                ])
                if changed == 0 { try insertRow(row) }
            }
        }
    }

    // MARK: Helpers

    private func insertRow(_ row: BenchRow) throws {
        try connection.change("insert", [
            .int8(row.id), .text(row.name), .int8(Int64(row.age)),
            .float8(row.score), .float8(row.created.timeIntervalSince1970),
        ])
    }

    /// Every row of a `SELECT id, name, age, score, created`, read in full.
    private func rowsChecksum(_ result: RawPostgresResult) -> Checksum {
        var checksum = Checksum()
        for row in 0..<result.count { result.addRow(row, to: &checksum) }
        return checksum
    }

    /// Runs `body` between `BEGIN` and `COMMIT`, rolling back if anything in it throws.
    private func inTransaction(_ body: () throws -> Void) throws {
        try connection.change("begin")
        do {
            try body()
            try connection.change("commit")
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
    }
}
