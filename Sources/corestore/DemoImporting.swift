import CoreStore
import Foundation

extension DemoCommand {
    /// Section 9: importing a JSON file, importing it again, an update payload, and bad input.
    func importBooks(_ dataStack: DataStack) async throws {
        print("9. Importing JSON with uniquing (\(DemoBooks.fileName))")
        let books = try DemoBooks.load()
        let imported = try await dataStack.async.importUniqueObjects(Into<DemoBook>(), sourceArray: books)
        print("   \(books.count) sources → \(imported.count) books (a repeated ISBN keeps its last source; a draft without ISBN is skipped)")
        for book in imported {
            print("     \(book.isbn)  \(book.title) (\(book.year))")
        }

        let again = try dataStack.perform(synchronous: { transaction -> (Int, Bool) in
            let objects = try transaction.importUniqueObjects(Into<DemoBook>(), sourceArray: try DemoBooks.load())
            return (objects.count, transaction.hasChanges)
        })
        print("   the same file again: \(again.0) books matched, changes to save: \(again.1 ? "yes" : "none")")

        let update: [[String: Any]] = [
            ["isbn": "978-1-4493-7332-0", "title": "Designing Data-Intensive Applications", "author": "Kleppmann, Riccomini", "year": 2026],
            ["isbn": "978-0-596-52068-7", "title": "Real World Haskell", "author": "O'Sullivan, Goerzen, Stewart", "year": 2008],
        ]
        let (inserted, updated) = try dataStack.perform(synchronous: { transaction -> (Int, Int) in
            _ = try transaction.importUniqueObjects(Into<DemoBook>(), sourceArray: update)
            return (transaction.insertedObjects().count, transaction.updatedObjects().count)
        })
        print("   an update payload: \(inserted) inserted, \(updated) updated; books now: \(try dataStack.fetchCount(From<DemoBook>()))")

        let bad: [[String: Any]] = [
            ["isbn": "978-0-00-000000-1", "title": "Fine", "author": "A", "year": 2000],
            ["isbn": "978-0-00-000000-2", "title": "Broken", "author": "B", "year": "two thousand"],
        ]
        do {
            try await dataStack.async.importUniqueObjects(Into<DemoBook>(), sourceArray: bad)
        } catch {
            print("   bad input → \(error)")
        }
        print("   books after the failed import: \(try dataStack.fetchCount(From<DemoBook>())) (nothing of it was saved)")
    }
}
