// Generated from docs/GETTING-STARTED.md by scripts/extract-doc-snippets.sh: edit the document, then run
// the script. Each method is one code block of the document (or a run of blocks of one name), verbatim.
import Foundation
import CoreStore
import CoreStoreSQLite

extension GuideSnippets {
    /// docs/GETTING-STARTED.md, the `gettingStarted` blocks.
    func gettingStarted() async throws {
        final class Author: CoreStoreObject {
            @Field.Stored("name") var name: String = ""
            @Field.Stored("born") var born: Int?
            @Field.Relationship("books", inverse: \Book.$author, deleteRule: .cascade) var books: Set<Book>
        }

        final class Book: CoreStoreObject {
            @Field.Stored("title") var title: String = ""
            @Field.Stored("year") var year: Int = 0
            @Field.Relationship("author") var author: Author?
        }

        let schema = CoreStoreSchema(
            modelVersion: "V1",
            entities: [
                Entity<Author>("Author", uniqueConstraints: [[\Author.$name]]),
                Entity<Book>("Book", indexes: [[\Book.$year]]),
            ]
        )
        print(schema.modelVersion)

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        let stack = DataStack(schema)
        try stack.addStorageAndWait(SQLiteStore(fileURL: directory.appendingPathComponent("Library.sqlite")))

        try await stack.async.perform { transaction in
            let author = transaction.create(Into<Author>())
            author.name = "Ursula K. Le Guin"
            author.born = 1929
            for (title, year) in [("A Wizard of Earthsea", 1968), ("The Dispossessed", 1974)] {
                let book = transaction.create(Into<Book>())
                book.title = title
                book.year = year
                book.author = author
            }
        }

        let seventies = try stack.fetchAll(From<Book>().where(\.$year >= 1970).orderBy(.ascending(\.$year)))
        let author = try stack.fetchOne(From<Author>().where(\.$name == "Ursula K. Le Guin"))
        print(seventies.map(\.title), author?.books.count ?? 0)   // ["The Dispossessed"] 2

        let books = try stack.monitorList(
            From<Book>().orderBy(.ascending(\.$title)), deliveryQueue: DispatchQueue(label: "library.observers")
        )
        print(books.numberOfObjects())                            // 2

        try stack.perform(synchronous: { transaction in
            let book = transaction.create(Into<Book>())
            book.title = "The Left Hand of Darkness"
            book.year = 1969
        })
        print(books.numberOfObjects())                            // 3

        do {
            try stack.perform(synchronous: { transaction in
                let duplicate = transaction.create(Into<Author>())
                duplicate.name = "Ursula K. Le Guin"                  // the name is a unique constraint
            })
        } catch {
            print(error)                                          // the constraint and the entity
        }
        print(try stack.fetchCount(From<Author>()))               // still 1
    }

}
