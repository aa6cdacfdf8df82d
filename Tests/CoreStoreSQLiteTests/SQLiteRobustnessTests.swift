import Foundation
import Testing
import CSQLite
import CoreStore
import CoreStoreSQLite

@Suite("SQLiteStore robustness")
struct SQLiteRobustnessTests {
    static let hostileStrings = [
        "'); DROP TABLE \"Sample\"; --",
        "\" OR 1=1 --",
        "Robert'); DELETE FROM corestore_metadata; --",
        "NUL\u{0}in the middle",
        "\u{0}",
        "emoji 👩‍👩‍👧‍👦 family",
        "percent %@ %d %K",
        "?1 ?2 ?",
        "",
    ]

    @Test func hostileStringsAreStoredAndMatchedAsPlainText() throws {
        let directory = try TemporaryDirectory()
        let stack = try makeSQLiteStack(directory.file())
        try stack.perform(synchronous: { transaction in
            for text in Self.hostileStrings {
                let sample = transaction.create(Into<Sample>())
                sample.title = text
                sample.body = text
            }
        })
        for text in Self.hostileStrings {
            let found = try stack.fetchAll(From<Sample>().where(\.$title == text))
            #expect(found.map(\.title) == [text])
            #expect(try stack.fetchCount(From<Sample>().where(Where(\.$body, contains: text))) >= 1)
            #expect(try stack.fetchCount(From<Sample>().where(Where<Sample>("title == %@", text))) == 1)
            #expect(try stack.fetchCount(From<Sample>().where(\.$title ~= [text, "nothing"])) == 1)
        }
        #expect(try stack.fetchCount(From<Sample>()) == Self.hostileStrings.count, "no statement was injected")
    }

    @Test func integrityAfterHeavyUse() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        do {
            let stack = try makeSQLiteStack(url)
            for round in 0..<20 {
                try stack.perform(synchronous: { transaction in
                    let zoo = transaction.create(Into<Zoo>())
                    zoo.name = "zoo \(round)"
                    for i in 0..<25 {
                        let lion = transaction.create(Into<Lion>())
                        lion.name = "lion \(round).\(i)"
                        lion.zoo = zoo
                        let sample = transaction.create(Into<Sample>())
                        sample.title = "\(round).\(i)"
                        sample.data = Data(repeating: UInt8(i), count: 1000 * i)
                    }
                    for old in try transaction.fetchAll(From<Sample>().where(Where<Sample>("title BEGINSWITH %@", "\(round - 1)."))).prefix(10) {
                        transaction.delete(old)
                    }
                    for lion in try transaction.fetchAll(From<Lion>().tweak { $0.fetchLimit = 7 }) {
                        lion.zoo = zoo
                    }
                })
            }
            #expect(try stack.fetchCount(From<Lion>()) == 500)
            #expect(try stack.fetchCount(From<Sample>()) == 500 - 19 * 10)
        }
        var db: OpaquePointer?
        #expect(sqlite3_open_v2(url.path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK)
        defer { sqlite3_close(db) }
        var statement: OpaquePointer?
        #expect(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &statement, nil) == SQLITE_OK)
        defer { sqlite3_finalize(statement) }
        #expect(sqlite3_step(statement) == SQLITE_ROW)
        #expect(String(cString: sqlite3_column_text(statement, 0)) == "ok")
    }

    @Test func readersSeeWholeCommitsWhileAWriterRuns() async throws {
        let directory = try TemporaryDirectory()
        let stack = try makeSQLiteStack(directory.file())
        let batch = 50
        let rounds = 30
        let writer = Task.detached {
            for _ in 0..<rounds {
                try stack.perform(synchronous: { transaction in
                    for _ in 0..<batch { transaction.create(Into<Account>()).email = UUID().uuidString }
                })
            }
        }
        let readers = (0..<4).map { _ in
            Task.detached { () -> [Int] in
                var seen: [Int] = []
                for _ in 0..<60 { seen.append(try stack.fetchCount(From<Account>())) }
                return seen
            }
        }
        try await writer.value
        for reader in readers {
            let counts = try await reader.value
            #expect(counts.allSatisfy { $0 % batch == 0 }, "a reader never sees half a commit: \(counts)")
            #expect(counts == counts.sorted(), "a reader never goes back in time")
        }
        #expect(try stack.fetchCount(From<Account>()) == batch * rounds)
    }

    @Test func aFailedCommitLeavesNoTrace() throws {
        let directory = try TemporaryDirectory()
        let stack = try makeSQLiteStack(directory.file())
        try stack.perform(synchronous: { $0.create(Into<Account>()).email = "taken@x" })
        #expect(throws: CoreStoreError.self) {
            try stack.perform(synchronous: { transaction in
                for i in 0..<10 { transaction.create(Into<Account>()).email = "new\(i)@x" }
                transaction.create(Into<Account>()).email = "taken@x"
            })
        }
        #expect(try stack.fetchAll(From<Account>()).map(\.email) == ["taken@x"])
        try stack.perform(synchronous: { $0.create(Into<Account>()).email = "after@x" })
        #expect(try stack.fetchCount(From<Account>()) == 2)
    }
}
