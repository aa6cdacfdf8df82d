import Foundation
import CoreStore

/// Model version "V1" of the books of the `migrations` group (chains, options and errors).
enum BooksV1 {
    final class Book: CoreStoreObject {
        @Field.Stored("title") var title: String = ""
        @Field.Stored("rating") var rating: Int = 0
    }

    static func schema() -> CoreStoreSchema {
        CoreStoreSchema(modelVersion: "V1", entities: [Entity<Book>("Book")])
    }
}

/// "V2": `pages` added with the default 50, an index on `rating` (attributes only: SQLite takes
/// its native path). `uniqueRatings` declares a unique constraint on `rating` instead.
enum BooksV2 {
    final class Book: CoreStoreObject {
        @Field.Stored("title") var title: String = ""
        @Field.Stored("rating") var rating: Int = 0
        @Field.Stored("pages") var pages: Int = 50
    }

    static func schema() -> CoreStoreSchema {
        CoreStoreSchema(modelVersion: "V2", entities: [Entity<Book>("Book", indexes: [[\Book.$rating]])])
    }

    static func uniqueRatings() -> CoreStoreSchema {
        CoreStoreSchema(modelVersion: "V2", entities: [Entity<Book>("Book", uniqueConstraints: [[\Book.$rating]])])
    }
}

/// "V3": `pages` defaults to 100 and `isbn` (optional) is added. A store migrated from "V1"
/// straight to "V3" has 100 pages per book; through "V2", 50.
enum BooksV3 {
    final class Book: CoreStoreObject {
        @Field.Stored("title") var title: String = ""
        @Field.Stored("rating") var rating: Int = 0
        @Field.Stored("pages") var pages: Int = 100
        @Field.Stored("isbn") var isbn: String?
    }

    static func schema() -> CoreStoreSchema {
        CoreStoreSchema(modelVersion: "V3", entities: [Entity<Book>("Book")])
    }
}

/// A "V2" that cannot be inferred from "V1": `rating` changes from an integer to a string.
enum BooksRetyped {
    final class Book: CoreStoreObject {
        @Field.Stored("title") var title: String = ""
        @Field.Stored("rating") var rating: String = ""
    }

    static func schema() -> CoreStoreSchema {
        CoreStoreSchema(modelVersion: "V2", entities: [Entity<Book>("Book")])
    }
}

/// The books the cases write: Dune (5), Emma (4), Ulysses (4) — two books share a rating.
enum BooksSeed {
    static let books: [(title: String, rating: Int)] = [("Dune", 5), ("Emma", 4), ("Ulysses", 4)]

    static func writeV1(_ stack: DataStack) throws {
        try stack.perform(synchronous: { t in
            for (title, rating) in books {
                let book = t.create(Into<BooksV1.Book>())
                book.title = title; book.rating = rating
            }
        })
    }

    /// Writes the books with 300, 301 and 302 pages.
    static func writeV2(_ stack: DataStack) throws {
        try stack.perform(synchronous: { t in
            for (index, (title, rating)) in books.enumerated() {
                let book = t.create(Into<BooksV2.Book>())
                book.title = title; book.rating = rating; book.pages = 300 + index
            }
        })
    }

    /// The books of a "V1" stack as `title:rating`, by title.
    static func readV1(_ stack: DataStack) throws -> [String] {
        try stack.fetchAll(From<BooksV1.Book>().orderBy(.ascending(\.$title))).map { "\($0.title):\($0.rating)" }
    }

    /// The books of a "V2" stack as `title:rating:pages`, by title.
    static func readV2(_ stack: DataStack) throws -> [String] {
        try stack.fetchAll(From<BooksV2.Book>().orderBy(.ascending(\.$title))).map { "\($0.title):\($0.rating):\($0.pages)" }
    }

    /// The books of a "V3" stack as `title:rating:pages:isbn`, by title.
    static func readV3(_ stack: DataStack) throws -> [String] {
        try stack.fetchAll(From<BooksV3.Book>().orderBy(.ascending(\.$title))).map { "\($0.title):\($0.rating):\($0.pages):\($0.isbn ?? "nil")" }
    }
}
