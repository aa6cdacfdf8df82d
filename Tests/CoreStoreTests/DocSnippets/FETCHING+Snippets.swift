// Generated from docs/FETCHING.md by scripts/extract-doc-snippets.sh: edit the document, then run
// the script. Each method is one code block of the document (or a run of blocks of one name), verbatim.
import Foundation
import CoreStore

extension GuideSnippets {
    /// docs/FETCHING.md, the `fetchingObjects` block.
    func fetchingObjects() async throws {
        let adults = try dataStack.fetchAll(
            From<Person>()
                .where(\.$age >= 18 && \.$nickname != nil)
                .orderBy(.descending(\.$age), .ascending(\.$name))
                .tweak { $0.fetchLimit = 20 }
        )
        let ann = try dataStack.fetchOne(From<Person>().where(\.$name == "Ann"))
        let howMany = try dataStack.fetchCount(From<Person>().where(\.$age ~= [30, 40, 50]))
        let ids = try dataStack.fetchObjectIDs(From<Dog>().orderBy(.ascending(\.$name)))
        print(adults.count, ann?.name ?? "-", howMany, ids.count)
    }

    /// docs/FETCHING.md, the `filtering` block.
    func filtering() async throws {
        let fidoOwners = try dataStack.fetchAll(From<Person>().where((\.$pets ~ \.$name).any() == "Fido"))
        let withoutPets = try dataStack.fetchAll(From<Person>().where((\Person.$pets).count() == 0))
        let named = try dataStack.fetchAll(From<Dog>().where(Where(\.$name, hasPrefix: "fi", options: [.caseInsensitive])))
        let closure = try dataStack.fetchAll(From<Person>().where { $0.$age > 20 })
        let format = try dataStack.fetchAll(From<Person>().where(format: "name LIKE[c] %@ AND age < %d", "a*", 90))
        print(fidoOwners.count, withoutPets.count, named.count, closure.count, format.count)
    }

    /// docs/FETCHING.md, the `badPredicates` block.
    func badPredicates() async throws {
        do {
            _ = try dataStack.fetchAll(From<Person>().where(format: "agee > %d", 3))
        } catch {
            print(error)                        // names the unknown key "agee" and the entity
        }
    }

    /// docs/FETCHING.md, the `queryingValues` block.
    func queryingValues() async throws {
        let oldest = try dataStack.queryValue(From<Person>().select(Int.self, .maximum(\.$age)))
        let names = try dataStack.queryAttributes(
            From<Person>().select(NSDictionary.self, .attribute(\.$name), .attribute(\.$age)).orderBy(.ascending(\.$name))
        )
        let perAge = try dataStack.queryAttributes(
            From<Person>()
                .select(NSDictionary.self, .attribute(\.$age), .count(\.$name, as: "people"))
                .groupBy(\.$age)
        )
        print(oldest ?? 0, names.count, perAge)
    }

    /// docs/FETCHING.md, the `fetchingInATransaction` block.
    func fetchingInATransaction() async throws {
        try dataStack.perform(synchronous: { transaction in
            transaction.create(Into<Person>()).name = "Zed"
            let seen = try transaction.fetchCount(From<Person>().where(\.$name == "Zed"))                  // 1
            let stored = try transaction.fetchCount(
                From<Person>().where(\.$name == "Zed").tweak { $0.includesPendingChanges = false }   // 0
            )
            print(seen, stored)
        })
    }

}
