import Foundation
import CoreStore
import CoreStoreStorage

extension ImportingCases {
    /// An import call whose mapper throws at `stage`, inside a transaction that changed
    /// something before: the call's own changes are undone, the earlier ones stay.
    static func failingStage(_ stage: String) -> ConformanceCase {
        c("a throw from \(stage) undoes the whole import call and, uncaught, saves nothing") { ctx in
            let (stack, store) = try seeded(ctx)
            let payload: [[String: Any]] = [
                ["id": 3, "name": "Cy"], ["id": 1, "name": "Changed"], ["id": 2, "name": "Changed", "failIn": stage == "didInsert" ? "" : stage],
                ["id": 4, "name": "Dee", "failIn": stage == "didInsert" ? stage : ""],
            ]
            try stack.perform(synchronous: { t in
                let bob = try t.fetchOne(From<ImportedPerson>().where(\.$remoteID == 2))
                bob?.age = 41
                do {
                    _ = try t.importUniqueObjects(Into<ImportedPerson>(), sourceArray: payload)
                    try ctx.fail("the import did not throw")
                } catch let error as ImportMapperError {
                    try ctx.expectEqual(error.stage, stage, "the mapper's error")
                }
                try ctx.expectEqual(t.insertedObjects().count, 0, "objects inserted after the failed import")
                let people = try t.fetchAll(From<ImportedPerson>().orderBy(.ascending(\.$remoteID)))
                try ctx.expectEqual(describe(people), ["1:Ann:30", "2:Bob:41"], "people in the transaction after the failed import")
            })
            try expectPeople(ctx, stack, store, ["1:Ann:30", "2:Bob:41"], "after a transaction that caught the failure")
            try APICases.expectCoreStoreError(ctx, "a transaction that does not catch the failure", matching: isMapperError(stage)) {
                try stack.perform(synchronous: { t in
                    _ = try t.importUniqueObjects(Into<ImportedPerson>(), sourceArray: payload)
                })
            }
            try expectPeople(ctx, stack, store, ["1:Ann:30", "2:Bob:41"], "after a transaction that did not catch the failure")
        }
    }

    static func isInvalidSource(index: Int, mentioning text: String) -> (CoreStoreError) -> Bool {
        { error in
            guard case .invalidImportSource(let entity, let sourceIndex, _) = error else { return false }
            return entity == "ImportedPerson" && sourceIndex == index && error.description.contains(text)
        }
    }

    static let failureCases: [ConformanceCase] = [
        failingStage("uniqueID"),
        failingStage("didInsert"),
        failingStage("update"),
        c("a throw from importObjects' didInsert undoes every insert of the call") { ctx in
            let (stack, _) = try APICases.makeStack(ctx, schema())
            try APICases.expectCoreStoreError(ctx, "importObjects with a failing source", matching: isMapperError("didInsert")) {
                try stack.perform(synchronous: { t in
                    _ = try t.importObjects(Into<ImportedNote>(), sourceArray: [.init(text: "a"), .init(text: "b", fails: true)])
                })
            }
            try ctx.expectEqual(try stack.fetchCount(From<ImportedNote>()), 0, "notes after the failed import")
        },
        c("a source missing a required value fails with a clear error and changes nothing") { ctx in
            let (stack, store) = try seeded(ctx)
            let error = try APICases.expectCoreStoreError(ctx, "a source without a name", matching: isInvalidSource(index: 1, mentioning: "'name' is missing")) {
                try stack.perform(synchronous: { t in
                    _ = try t.importUniqueObjects(Into<ImportedPerson>(), sourceArray: [["id": 5, "name": "Eve"], ["id": 6]])
                })
            }
            try ctx.expect(error.description.contains("index 1"), "the error does not name the source: \(error)")
            try expectPeople(ctx, stack, store, ["1:Ann:30", "2:Bob:40"], "after the failed import")
        },
        c("an ID of the wrong type fails with a clear error and changes nothing") { ctx in
            let (stack, store) = try seeded(ctx)
            let error = try APICases.expectCoreStoreError(ctx, "a string ID", matching: isInvalidSource(index: 2, mentioning: "'id' holds the string \"abc\"")) {
                try stack.perform(synchronous: { t in
                    _ = try t.importUniqueObjects(Into<ImportedPerson>(), sourceArray: [["id": 5, "name": "Eve"], ["id": 1, "name": "X"], ["id": "abc", "name": "Y"]])
                })
            }
            try ctx.expect(error.description.contains("Int"), "the error does not name the expected type: \(error)")
            try expectPeople(ctx, stack, store, ["1:Ann:30", "2:Bob:40"], "after the failed import")
        },
        c("a value of the wrong shape fails with a clear error and changes nothing") { ctx in
            let (stack, store) = try seeded(ctx)
            try APICases.expectCoreStoreError(ctx, "an array where a name belongs", matching: isInvalidSource(index: 0, mentioning: "'name' holds an array")) {
                try stack.perform(synchronous: { t in
                    _ = try t.importUniqueObjects(Into<ImportedPerson>(), sourceArray: [["id": 1, "name": ["Ann"]]])
                })
            }
            try APICases.expectCoreStoreError(ctx, "a fractional ID", matching: isInvalidSource(index: 0, mentioning: "'id' holds the number 2.5")) {
                try stack.perform(synchronous: { t in
                    _ = try t.importUniqueObjects(Into<ImportedPerson>(), sourceArray: [["id": 2.5, "name": "Half"]])
                })
            }
            try expectPeople(ctx, stack, store, ["1:Ann:30", "2:Bob:40"], "after the failed imports")
        },
        c("a uniqueIDKeyPath naming no attribute, or of another type, is an invalidSchema error") { ctx in
            let (stack, _) = try APICases.makeStack(ctx, schema())
            let misnamed = try APICases.expectCoreStoreError(ctx, "an import into ImportedMisnamed", matching: {
                if case .invalidSchema = $0 { return true }
                return false
            }) {
                try stack.perform(synchronous: { t in _ = try t.importUniqueObjects(Into<ImportedMisnamed>(), sourceArray: ["a"]) })
            }
            try ctx.expect(misnamed.description.contains("'kode'"), "the error does not name the key: \(misnamed)")
            let mistyped = try APICases.expectCoreStoreError(ctx, "an import into ImportedMistyped", matching: {
                if case .invalidSchema = $0 { return true }
                return false
            }) {
                try stack.perform(synchronous: { t in _ = try t.importUniqueObjects(Into<ImportedMistyped>(), sourceArray: [1]) })
            }
            try ctx.expect(mistyped.description.contains("Int"), "the error does not name the ID type: \(mistyped)")
            try ctx.expectEqual(try stack.fetchCount(From<ImportedMisnamed>()) + (try stack.fetchCount(From<ImportedMistyped>())), 0, "objects after the failed imports")
        },
    ]
}
