// Generated from docs/TRANSACTIONS.md by scripts/extract-doc-snippets.sh: edit the document, then run
// the script. Each method is one code block of the document (or a run of blocks of one name), verbatim.
import Foundation
import CoreStore

extension GuideSnippets {
    /// docs/TRANSACTIONS.md, the `theFourKinds` block.
    func theFourKinds() async throws {
        let count = try await dataStack.async.perform { transaction -> Int in
            transaction.create(Into<Person>()).name = "Bea"
            return try transaction.fetchCount(From<Person>())
        }

        dataStack.perform(
            asynchronous: { transaction in transaction.create(Into<Person>()).name = "Cy" },
            completion: { result in print(result) }                  // on the main queue
        )

        let name = try dataStack.perform(synchronous: { transaction -> String in
            let person = try transaction.fetchOne(From<Person>().where(\.$name == "Ann"))
            person?.age += 1
            return person?.name ?? ""
        })

        let unsafe = dataStack.beginUnsafe()
        unsafe.create(Into<Person>()).name = "Dee"
        try unsafe.commitAndWait()
        print(count, name)
    }

    /// docs/TRANSACTIONS.md, the `crossingContexts` block.
    func crossingContexts() async throws {
        let ann = try dataStack.fetchOne(From<Person>().where(\.$name == "Ann"))
        let newID = try dataStack.perform(synchronous: { transaction -> ObjectID? in
            transaction.edit(ann)?.nickname = "Annie"               // the transaction's copy of Ann
            let puppy = transaction.create(Into<Dog>())
            puppy.name = "Pip"
            puppy.master = transaction.edit(ann)
            return puppy.cs_id()
        })
        if let newID, let puppy: Dog = dataStack.fetchExisting(newID) {
            print(puppy.name, puppy.master?.nickname ?? "")         // Pip Annie
        }
    }

    /// docs/TRANSACTIONS.md, the `cancelling` block.
    func cancelling() async throws {
        do {
            try dataStack.perform(synchronous: { transaction in
                let person = transaction.create(Into<Person>())
                person.name = "Nobody"
                if person.age < 18 { try transaction.cancel() }
            })
        } catch CoreStoreError.userCancelled {
            print("nothing was saved")
        }
    }

    /// docs/TRANSACTIONS.md, the `undoingChanges` block.
    func undoingChanges() async throws {
        let editor = dataStack.beginUnsafe(supportsUndo: true)
        let draft = editor.create(Into<Person>())
        draft.name = "Eve"
        editor.flush()
        draft.name = "Eva"
        editor.undo()
        print(draft.name)                                             // Eve
        editor.redo()
        try editor.commitAndWait()                                    // saves "Eva"
    }

    /// docs/TRANSACTIONS.md, the `deleting` block.
    func deleting() async throws {
        let removed = try dataStack.perform(synchronous: { transaction in
            try transaction.deleteAll(From<Person>().where(\.$age > 100))
        })
        print(removed)
    }

}
