import CoreStore
import CoreStoreLevelDB
import CoreStoreLMDB
import CoreStoreSQLite
import Foundation

/// The model of the stores the store-tool tests write: every attribute type, an optional left
/// `nil`, a unique constraint, an index, an ordered to-many with its to-one inverse, and a
/// sub-entity.
final class ToolShelf: CoreStoreObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("books", inverse: \ToolBook.$shelf) var books: [ToolBook]
}

class ToolBook: CoreStoreObject {
    @Field.Stored("isbn") var isbn: String = ""
    @Field.Stored("title") var title: String = ""
    @Field.Stored("price") var price: Double = 0
    @Field.Stored("weight") var weight: Decimal = 0
    @Field.Stored("pages") var pages: Int = 0
    @Field.Stored("inPrint") var inPrint: Bool = true
    @Field.Stored("cover") var cover: Data?
    @Field.Stored("published") var published: Date = Date(timeIntervalSince1970: 0)
    @Field.Stored("uid") var uid: UUID = UUID(uuidString: "00000000-0000-0000-0000-000000000000")!
    @Field.Stored("link") var link: URL?
    @Field.Relationship("shelf") var shelf: ToolShelf?
}

final class ToolEBook: ToolBook {
    @Field.Stored("megabytes") var megabytes: Double = 0
}

enum StoreToolModel {
    static let schema = CoreStoreSchema(
        modelVersion: "ToolV1",
        entities: [
            Entity<ToolShelf>("Shelf"),
            Entity<ToolBook>("Book", indexes: [[\ToolBook.$title]], uniqueConstraints: [[\ToolBook.$isbn]]),
            Entity<ToolEBook>("EBook"),
        ]
    )

    static let backends = ["sqlite", "lmdb", "leveldb"]

    /// A store of `backend` at `url`.
    static func store(_ backend: String, at url: URL) -> any LocalStorage {
        switch backend {
        case "sqlite": SQLiteStore(fileURL: url)
        case "lmdb": LMDBStore(fileURL: url)
        default: LevelDBStore(fileURL: url)
        }
    }

    /// Writes one shelf with two books and an e-book (in that order), and a second, empty
    /// shelf, then closes the store.
    static func writeStore(_ backend: String, at url: URL) throws {
        let stack = DataStack(schema)
        try stack.addStorageAndWait(store(backend, at: url))
        try stack.perform(synchronous: { t in
            let shelf = t.create(Into<ToolShelf>())
            shelf.name = "Fiction, \"classics\""
            let first = t.create(Into<ToolBook>())
            first.isbn = "111"
            first.title = "Line\nbreak, comma"
            first.price = 12.5
            first.weight = Decimal(string: "0.1")!
            first.pages = 320
            first.cover = Data([0, 1, 2, 255])
            first.published = Date(timeIntervalSince1970: 1_700_000_000.25)
            first.uid = UUID(uuidString: "12345678-1234-1234-1234-123456789ABC")!
            first.link = URL(string: "https://example.com/b?x=1")
            let second = t.create(Into<ToolBook>())
            second.isbn = "222"
            second.title = "Ünïcode ✓"
            second.price = -0.001
            second.inPrint = false
            let ebook = t.create(Into<ToolEBook>())
            ebook.isbn = "333"
            ebook.title = "Electric"
            ebook.megabytes = 1.75
            shelf.books = [second, first, ebook]
            let empty = t.create(Into<ToolShelf>())
            empty.name = "Empty"
        })
    }
}

/// An owner with an unordered to-many (`Set`) whose inverse is a to-one: key-value stores keep
/// its destinations in the order they were added, SQLite in key order.
final class ToolOwner: CoreStoreObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("pets", inverse: \ToolPet.$owner) var pets: Set<ToolPet>
}

final class ToolPet: CoreStoreObject {
    @Field.Stored("name") var name: String = ""
    @Field.Relationship("owner") var owner: ToolOwner?
}

extension StoreToolModel {
    static let petsSchema = CoreStoreSchema(modelVersion: "Pets1", entities: [Entity<ToolOwner>("Owner"), Entity<ToolPet>("Pet")])

    /// An owner whose five pets were given to it one commit at a time, last pet first, so that
    /// the stored order of `pets` is not key order on the key-value stores.
    static func writePetsStore(_ backend: String, at url: URL) throws {
        let stack = DataStack(petsSchema)
        try stack.addStorageAndWait(store(backend, at: url))
        try stack.perform(synchronous: { t in
            t.create(Into<ToolOwner>()).name = "Ann"
            for i in 1...5 { t.create(Into<ToolPet>()).name = "Pet \(i)" }
        })
        for i in (1...5).reversed() {
            try stack.perform(synchronous: { t in
                let pet = try t.fetchOne(From<ToolPet>().where(\.$name == "Pet \(i)"))
                pet?.owner = try t.fetchOne(From<ToolOwner>())
            })
        }
    }
}
