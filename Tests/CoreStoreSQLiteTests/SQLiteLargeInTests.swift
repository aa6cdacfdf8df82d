import Foundation
import Testing
import CoreStore
import CoreStoreSQLite

/// `IN` with more members than SQLite lets a statement bind (`SQLITE_MAX_VARIABLE_NUMBER`:
/// 32,766 by default since 3.32, 250,000 in Debian's build).
@Suite("SQLiteStore large IN lists")
struct SQLiteLargeInTests {
    /// A stack with `count` accounts `user<i>@x` (handle `h<i>` for even `i`), samples whose
    /// `big` is `i`, and one sample whose `big` is `UInt64.max - 1`.
    private func stack(_ directory: TemporaryDirectory, count: Int) throws -> DataStack {
        let stack = try makeSQLiteStack(directory.file())
        try stack.perform(synchronous: { transaction in
            for i in 0..<count {
                let account = transaction.create(Into<Account>())
                account.email = "user\(i)@x"
                account.handle = i % 2 == 0 ? "h\(i)" : nil
                let sample = transaction.create(Into<Sample>())
                sample.big = UInt64(i)
                sample.title = "t\(i)"
            }
            // Above Int64.max: stored as text, which the JSON list must carry as text too.
            transaction.create(Into<Sample>()).big = UInt64.max - 1
        })
        return stack
    }

    @Test("IN over 40,000 and over 260,000 texts and integers finds exactly the members", arguments: [40_000, 260_000])
    func largeLists(members: Int) throws {
        let directory = try TemporaryDirectory()
        let stack = try stack(directory, count: 1_000)
        // Every other stored record, plus members that match nothing.
        let emails = (0..<members).map { "user\($0 * 2)@x" }
        #expect(try stack.fetchCount(From<Account>().where(\.$email ~= emails)) == 500)
        let bigs = (0..<members).map { UInt64($0 * 2 + 1) } + [UInt64.max - 1, UInt64.max]
        #expect(try stack.fetchCount(From<Sample>().where(\.$big ~= bigs)) == 501)
        let handles: [String?] = (0..<members).map { $0 == members - 1 ? nil : "h\($0 * 4)" }
        #expect(try stack.fetchCount(From<Account>().where(\.$handle ~= handles)) == 250 + 500, "every fourth handle, and the nil ones")
        let fetched = try stack.fetchAll(From<Account>().where(\.$email ~= emails).orderBy(.descending(\.$email)))
        #expect(fetched.count == 500 && fetched.first?.email == "user998@x")
    }

    @Test("IN over 600 and 700 related objects, to-one and to-many, finds exactly the related rows")
    func relationshipLists() throws {
        let directory = try TemporaryDirectory()
        let stack = try makeSQLiteStack(directory.file())
        try stack.perform(synchronous: { transaction in
            for i in 0..<700 {
                let zoo = transaction.create(Into<Zoo>())
                zoo.name = "z\(i)"
                // Two lions in every other zoo.
                for j in 0..<(i % 2 == 0 ? 2 : 0) {
                    let lion = transaction.create(Into<Lion>())
                    lion.name = "l\(i).\(j)"
                    lion.zoo = zoo
                }
            }
        })
        let zoos = try stack.fetchAll(From<Zoo>().orderBy(.ascending(\.$name))).prefix(600)
        let inFirst600 = Set(zoos.map(\.name))
        let lions = try stack.fetchAll(From<Lion>().where(\.$zoo ~= zoos))
        #expect(lions.count == 2 * inFirst600.filter { (Int($0.dropFirst()) ?? 1) % 2 == 0 }.count)
        let allLions = try stack.fetchAll(From<Lion>())
        #expect(allLions.count == 700)
        #expect(try stack.fetchCount(From<Zoo>().where(\.$residents ~= allLions)) == 350)
    }
}
