import Foundation
import CoreStore
import CoreStoreSQLite

/// A directory under the system's temporary directory, removed when the value goes away.
final class TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("corestore-sqlite-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func file(_ name: String = "store.sqlite") -> URL {
        url.appendingPathComponent(name)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}

enum Color: String, FieldStorableType { case red, green }

final class Sample: CoreStoreObject {
    @Field.Stored("title") var title: String = ""
    @Field.Stored("body") var body: String?
    @Field.Stored("data") var data: Data?
    @Field.Stored("score") var score: Double?
    @Field.Stored("big") var big: UInt64 = 0
    @Field.Stored("small") var small: Int8 = 0
    @Field.Stored("price") var price: Decimal?
    @Field.Stored("when") var when: Date?
    @Field.Stored("uuid") var uuid: UUID?
    @Field.Stored("link") var link: URL?
    @Field.Stored("flag") var flag: Bool = false
    @Field.Stored("ratio") var ratio: Float = 0
    @Field.Stored("color") var color: Color = .red
}

class Creature: CoreStoreObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("zoo") var zoo: Zoo?
}

final class Lion: Creature {
    @Field.Stored("mane") var mane: Bool = true
}

final class Snake: Creature {
    @Field.Stored("length") var length: Double = 0
}

final class Zoo: CoreStoreObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("residents", inverse: \Creature.$zoo) var residents: [Creature]
    @Field.Relationship("favorites") var favorites: Set<Creature>
}

final class Account: CoreStoreObject {
    @Field.Stored("email") var email: String = ""
    @Field.Stored("handle") var handle: String?
}

let sqliteTestSchema = CoreStoreSchema(
    modelVersion: "S1",
    entities: [
        Entity<Sample>("Sample"),
        Entity<Creature>("Creature", isAbstract: true),
        Entity<Lion>("Lion"),
        Entity<Snake>("Snake"),
        Entity<Zoo>("Zoo"),
        Entity<Account>("Account", uniqueConstraints: [[\Account.$email]]),
    ]
)

/// A stack on a SQLite file.
func makeSQLiteStack(_ url: URL, schema: CoreStoreSchema = sqliteTestSchema, options: LocalStorageOptions = .none) throws -> DataStack {
    let stack = DataStack(schema)
    try stack.addStorageAndWait(SQLiteStore(fileURL: url, localStorageOptions: options))
    return stack
}

/// Inserts an account with `email` in its own transaction; its identifier.
func insertAccount(_ stack: DataStack, _ email: String) throws -> ObjectID {
    try stack.perform(synchronous: { transaction in
        transaction.create(Into<Account>()).email = email
    })
    guard let id = try stack.fetchOne(From<Account>().where(\.$email == email))?.cs_id() else {
        throw CoreStoreError.invalidObject(message: "the account \(email) was not saved")
    }
    return id
}
