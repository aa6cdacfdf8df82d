import Foundation
import Testing
import CoreStore
import CoreStoreSQLite

@Suite("SQLiteStore persistence")
struct SQLitePersistenceTests {
    @Test func everyValueSurvivesReopening() throws {
        let directory = try TemporaryDirectory()
        let when = Date(timeIntervalSinceReferenceDate: 123_456.789_012_345)
        let uuid = UUID()
        let blob = Data([0, 1, 2, 255, 0])
        do {
            let stack = try makeSQLiteStack(directory.file())
            try stack.perform(synchronous: { transaction in
                let a = transaction.create(Into<Sample>())
                a.title = "emoji 🦁 and NUL \u{0} inside"
                a.body = ""
                a.data = blob
                a.score = -0.0
                a.big = UInt64.max
                a.small = -128
                a.price = Decimal(string: "12345678901234567890.123456789")
                a.when = when
                a.uuid = uuid
                a.link = URL(string: "https://example.com/a?b=c")
                a.flag = true
                a.ratio = 0.5
                a.color = .green
                let b = transaction.create(Into<Sample>())
                b.title = "nan"
                b.score = .nan
                b.data = Data()
                b.big = 7
            })
        }
        let stack = try makeSQLiteStack(directory.file())
        let a = try #require(try stack.fetchOne(From<Sample>().where(\.$flag == true)))
        #expect(a.title == "emoji 🦁 and NUL \u{0} inside")
        #expect(a.body == "")
        #expect(a.data == blob)
        #expect(a.score == 0 && a.score?.sign == .minus, "-0.0 keeps its sign")
        #expect(a.big == UInt64.max)
        #expect(a.small == -128)
        #expect(a.price == Decimal(string: "12345678901234567890.123456789"))
        #expect(a.when == when)
        #expect(a.uuid == uuid)
        #expect(a.link == URL(string: "https://example.com/a?b=c"))
        #expect(a.ratio == 0.5)
        #expect(a.color == .green)
        let b = try #require(try stack.fetchOne(From<Sample>().where(\.$title == "nan")))
        #expect(b.score?.isNaN == true)
        #expect(b.data == Data())
    }

    @Test func specialNumbersCompareAndSortLikeTheReference() throws {
        let directory = try TemporaryDirectory()
        let stack = try makeSQLiteStack(directory.file())
        try stack.perform(synchronous: { transaction in
            for (title, score, big) in [("nan", Double.nan, UInt64.max), ("one", 1, 1), ("none", nil, UInt64(Int64.max) + 1), ("minus", -2, 0)] as [(String, Double?, UInt64)] {
                let sample = transaction.create(Into<Sample>())
                sample.title = title
                sample.score = score
                sample.big = big
            }
        })
        func titles(_ chain: FetchChainBuilder<Sample>) throws -> [String] { try stack.fetchAll(chain).map(\.title) }
        #expect(try titles(From<Sample>().orderBy(.ascending(\.$score))) == ["none", "nan", "minus", "one"])
        #expect(try titles(From<Sample>().orderBy(.descending(\.$score))) == ["one", "minus", "nan", "none"])
        #expect(try titles(From<Sample>().where(\.$score > -10).orderBy(.ascending(\.$title))) == ["minus", "one"], "NaN is unordered")
        #expect(try titles(From<Sample>().where(\.$score != 1).orderBy(.ascending(\.$title))) == ["minus", "nan", "none"])
        #expect(try titles(From<Sample>().orderBy(.ascending(\.$big))) == ["minus", "one", "none", "nan"])
        #expect(try titles(From<Sample>().where(\.$big > UInt64(Int64.max)).orderBy(.ascending(\.$title))) == ["nan", "none"])
        #expect(try titles(From<Sample>().where(\.$big == UInt64.max)) == ["nan"])
    }

    @Test func relationshipsSurviveReopeningInOrder() throws {
        let directory = try TemporaryDirectory()
        do {
            let stack = try makeSQLiteStack(directory.file())
            try stack.perform(synchronous: { transaction in
                let zoo = transaction.create(Into<Zoo>())
                zoo.name = "City"
                let names = ["Kaa", "Leo", "Nagini", "Simba"]
                var creatures: [Creature] = []
                for name in names {
                    let creature: Creature = name.hasPrefix("K") || name.hasPrefix("N") ? transaction.create(Into<Snake>()) : transaction.create(Into<Lion>())
                    creature.name = name
                    creatures.append(creature)
                }
                zoo.residents = [creatures[3], creatures[0], creatures[2], creatures[1]]
                zoo.favorites = [creatures[0], creatures[1]]
            })
        }
        do {
            let stack = try makeSQLiteStack(directory.file())
            let zoo = try #require(try stack.fetchOne(From<Zoo>()))
            #expect(zoo.residents.map(\.name) == ["Simba", "Kaa", "Nagini", "Leo"], "ordered to-many keeps its order")
            #expect(zoo.residents.map { String(describing: type(of: $0)) } == ["Lion", "Snake", "Snake", "Lion"], "destinations keep their concrete entity")
            #expect(Set(zoo.favorites.map(\.name)) == ["Kaa", "Leo"])
            let kaa = try #require(try stack.fetchOne(From<Snake>().where(\.$name == "Kaa")))
            #expect(kaa.zoo?.name == "City")
            #expect(try stack.fetchAll(From<Creature>().where((\.$zoo ~ \.$name) == "City")).count == 4)
            #expect(try stack.fetchAll(From<Zoo>().where((\.$residents ~ \.$name).any() == "Leo")).count == 1)
            #expect(try stack.fetchAll(From<Zoo>().where((\Zoo.$favorites).count() == 2)).count == 1)
            try stack.perform(synchronous: { transaction in
                let zoo = try #require(try transaction.fetchOne(From<Zoo>()))
                zoo.residents = zoo.residents.reversed()
            })
        }
        let reopened = try makeSQLiteStack(directory.file())
        #expect(try reopened.fetchOne(From<Zoo>())?.residents.map(\.name) == ["Leo", "Nagini", "Kaa", "Simba"])
    }

    @Test func sixteenMebibyteBlob() throws {
        let directory = try TemporaryDirectory()
        var blob = Data(count: 16 << 20)
        blob.withUnsafeMutableBytes { bytes in
            for i in stride(from: 0, to: bytes.count, by: 8) { bytes.storeBytes(of: UInt64.random(in: .min ... .max), toByteOffset: i, as: UInt64.self) }
        }
        do {
            let stack = try makeSQLiteStack(directory.file())
            try stack.perform(synchronous: { transaction in
                let sample = transaction.create(Into<Sample>())
                sample.title = "big"
                sample.data = blob
            })
        }
        let stack = try makeSQLiteStack(directory.file())
        #expect(try stack.fetchOne(From<Sample>())?.data == blob)
    }

    @Test func uniqueConstraintsAndSwaps() throws {
        let directory = try TemporaryDirectory()
        let stack = try makeSQLiteStack(directory.file())
        try stack.perform(synchronous: { transaction in
            transaction.create(Into<Account>()).email = "a@x"
            transaction.create(Into<Account>()).email = "b@x"
        })
        #expect {
            try stack.perform(synchronous: { transaction in
                transaction.create(Into<Account>()).email = "a@x"
            })
        } throws: { error in
            guard case CoreStoreError.storageFailure(.uniqueConstraintViolation(let entity, let attributes, let values)) = error else { return false }
            return entity == "Account" && attributes == ["email"] && values == [.string("a@x")]
        }
        try stack.perform(synchronous: { transaction in
            let accounts = try transaction.fetchAll(From<Account>().orderBy(.ascending(\.$email)))
            accounts[0].email = "b@x"
            accounts[1].email = "a@x"
        })
        #expect(try stack.fetchCount(From<Account>()) == 2)
        #expect(try stack.fetchAll(From<Account>().orderBy(.ascending(\.$email))).map(\.email) == ["a@x", "b@x"])
    }

    @Test func durabilityIsAnOption() {
        let url = URL(fileURLWithPath: "/tmp/unused.sqlite")
        #expect(SQLiteStore(fileURL: url).capabilities.contains(.durableCommits))
        #expect(!SQLiteStore(fileURL: url, durability: .normal).capabilities.contains(.durableCommits))
        #expect(SQLiteStore(fileURL: url).capabilities.contains(.concurrentReaders))
    }
}

@Suite("SQLiteStore journal modes")
struct SQLiteJournalModeTests {
    @Test(arguments: [SQLiteStore.JournalMode.wal, .rollback])
    func bothJournalModesStoreAndReopen(_ mode: SQLiteStore.JournalMode) throws {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        do {
            let stack = DataStack(sqliteTestSchema)
            try stack.addStorageAndWait(SQLiteStore(fileURL: url, journalMode: mode))
            try stack.perform(synchronous: { $0.create(Into<Account>()).email = "j@x" })
            #expect(FileManager.default.fileExists(atPath: url.path + "-wal") == (mode == .wal))
        }
        let stack = DataStack(sqliteTestSchema)
        let store = try stack.addStorageAndWait(SQLiteStore(fileURL: url, journalMode: mode))
        #expect(try stack.fetchOne(From<Account>())?.email == "j@x")
        #expect(store.capabilities.contains(.concurrentReaders) == (mode == .wal))
    }
}
