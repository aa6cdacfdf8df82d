import Testing
import CoreStoreSQL

/// Error messages quote the statement that failed, cut at 300 characters (a batched `INSERT`
/// runs to thousands).
@Suite("Statements quoted in error messages")
struct StatementExcerptTests {
    @Test func shortStatementsAreQuotedWhole() {
        let sql = "INSERT INTO \"Item\" (\"_key\") VALUES (?1)"
        #expect(sql.statementExcerpt == sql)
        let exactly = String(repeating: "x", count: 300)
        #expect(exactly.statementExcerpt == exactly)
    }

    @Test func longStatementsAreCutWithTheirLength() {
        let sql = "INSERT INTO \"Item\" VALUES " + (1...400).map { "(?\($0))" }.joined(separator: ", ")
        let excerpt = sql.statementExcerpt
        #expect(excerpt.hasPrefix(String(sql.prefix(300))))
        #expect(excerpt.hasSuffix("… (\(sql.count) characters)"))
        #expect(excerpt.count < 330)
    }
}
