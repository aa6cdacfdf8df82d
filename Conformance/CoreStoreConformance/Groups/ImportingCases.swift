import Foundation
import CoreStore
import CoreStoreStorage

/// Importing through `ImportableObject` and `ImportableUniqueObject` behaves the same over every
/// store: uniquing finds stored and pending objects, results follow the input, skips and throws
/// follow the documented rules, and a failed import call changes nothing.
enum ImportingCases {
    static func c(_ name: String, _ body: @escaping @Sendable (ConformanceContext) throws -> Void) -> ConformanceCase {
        ConformanceCase(name, group: "importing", level: .api, body: body)
    }

    static func schema() -> CoreStoreSchema {
        CoreStoreSchema(modelVersion: "V1", entities: [
            Entity<ImportedPerson>("ImportedPerson", uniqueConstraints: [[\ImportedPerson.$remoteID]]),
            Entity<ImportedNote>("ImportedNote"),
            Entity<ImportedMisnamed>("ImportedMisnamed"),
            Entity<ImportedMistyped>("ImportedMistyped"),
        ])
    }

    /// A stack whose store holds people 1 (Ann, 30) and 2 (Bob, 40).
    static func seeded(_ ctx: ConformanceContext) throws -> (DataStack, any StorageInterface) {
        let (stack, store) = try APICases.makeStack(ctx, schema())
        try stack.perform(synchronous: { t in
            _ = try t.importUniqueObjects(Into<ImportedPerson>(), sourceArray: [["id": 1, "name": "Ann", "age": 30], ["id": 2, "name": "Bob", "age": 40]])
        })
        return (stack, store)
    }

    static func describe(_ people: [ImportedPerson]) -> [String] {
        people.map { "\($0.remoteID):\($0.name):\($0.age)" }
    }

    /// Fails unless the stack holds exactly `expected` (`id:name:age`, by ID) and the store
    /// itself holds as many people.
    static func expectPeople(_ ctx: ConformanceContext, _ stack: DataStack, _ store: any StorageInterface, _ expected: [String], _ what: String) throws {
        let people = try stack.fetchAll(From<ImportedPerson>().orderBy(.ascending(\.$remoteID)))
        try ctx.expectEqual(describe(people), expected, "people \(what)")
        let stored = try store.read { try $0.count(FetchRequest(entity: "ImportedPerson")) }
        try ctx.expectEqual(stored, expected.count, "people the store holds \(what)")
    }

    static func isMapperError(_ stage: String) -> (CoreStoreError) -> Bool {
        { error in
            if case .userError(let inner) = error { return (inner as? ImportMapperError)?.stage == stage }
            return false
        }
    }

    static let all: [ConformanceCase] = objectCases + uniqueCases + failureCases

    static let objectCases: [ConformanceCase] = [
        c("importObject inserts one object, or none when shouldInsert declines") { ctx in
            let (stack, _) = try APICases.makeStack(ctx, schema())
            let results = try stack.perform(synchronous: { t -> [String?] in
                let kept = try t.importObject(Into<ImportedNote>(), source: .init(text: "kept"))
                let skipped = try t.importObject(Into<ImportedNote>(), source: .init(text: nil))
                return [kept?.text, skipped?.text]
            })
            try ctx.expectEqual(results, ["kept", nil], "returned objects")
            try ctx.expectEqual(try stack.fetchAll(From<ImportedNote>()).map(\.text), ["kept"], "stored notes")
        },
        c("importObjects inserts in source order and skips declined sources") { ctx in
            let (stack, _) = try APICases.makeStack(ctx, schema())
            let returned = try stack.perform(synchronous: { t in
                try t.importObjects(Into<ImportedNote>(), sourceArray: [.init(text: "b"), .init(text: nil), .init(text: "a"), .init(text: "b")]).map(\.text)
            })
            try ctx.expectEqual(returned, ["b", "a", "b"], "returned objects")
            try ctx.expectEqual(try stack.fetchAll(From<ImportedNote>().orderBy(.ascending(\.$text))).map(\.text), ["a", "b", "b"], "stored notes")
        },
        c("importObject(_:source:) fills in an existing object") { ctx in
            let (stack, store) = try seeded(ctx)
            let ann = try stack.fetchOne(From<ImportedPerson>().where(\.$remoteID == 1))
            try stack.perform(synchronous: { t in
                guard let ann else { return }
                try t.importObject(ann, source: ["id": 1, "name": "Annie", "age": 31])
            })
            try expectPeople(ctx, stack, store, ["1:Annie:31", "2:Bob:40"], "after importing into an existing object")
        },
    ]

    static let uniqueCases: [ConformanceCase] = [
        c("importUniqueObjects updates stored objects and inserts new ones, in input order") { ctx in
            let (stack, store) = try seeded(ctx)
            let returned = try stack.perform(synchronous: { t in
                describe(try t.importUniqueObjects(Into<ImportedPerson>(), sourceArray: [
                    ["id": 3, "name": "Cy", "age": 20], ["id": 1, "name": "Ann", "age": 31], ["id": 4, "name": "Dee"],
                ]))
            })
            try ctx.expectEqual(returned, ["3:Cy:20", "1:Ann:31", "4:Dee:0"], "returned objects")
            try expectPeople(ctx, stack, store, ["1:Ann:31", "2:Bob:40", "3:Cy:20", "4:Dee:0"], "after the import")
        },
        c("a later source with the same ID replaces the earlier one at its position") { ctx in
            let (stack, store) = try seeded(ctx)
            let returned = try stack.perform(synchronous: { t in
                describe(try t.importUniqueObjects(Into<ImportedPerson>(), sourceArray: [
                    ["id": 5, "name": "Eve"], ["id": 2, "name": "Bob", "age": 41], ["id": 5, "name": "Eva", "age": 22], ["id": 2, "name": "Rob", "age": 42],
                ]))
            })
            try ctx.expectEqual(returned, ["5:Eva:22", "2:Rob:42"], "returned objects")
            try expectPeople(ctx, stack, store, ["1:Ann:30", "2:Rob:42", "5:Eva:22"], "after the import")
        },
        c("a source without an ID is skipped") { ctx in
            let (stack, store) = try seeded(ctx)
            let returned = try stack.perform(synchronous: { t in
                describe(try t.importUniqueObjects(Into<ImportedPerson>(), sourceArray: [["name": "Nobody"], ["id": NSNull(), "name": "Null"], ["id": 6, "name": "Fay"]]))
            })
            try ctx.expectEqual(returned, ["6:Fay:0"], "returned objects")
            try expectPeople(ctx, stack, store, ["1:Ann:30", "2:Bob:40", "6:Fay:0"], "after the import")
        },
        c("shouldInsert and shouldUpdate can skip sources") { ctx in
            let (stack, store) = try seeded(ctx)
            let returned = try stack.perform(synchronous: { t in
                describe(try t.importUniqueObjects(Into<ImportedPerson>(), sourceArray: [
                    ["id": 1, "name": "Skipped", "skipUpdate": true], ["id": 2, "name": "Bobby"],
                    ["id": 7, "name": "Skipped", "skipInsert": true], ["id": 8, "name": "Gus"],
                ]))
            })
            try ctx.expectEqual(returned, ["2:Bobby:0", "8:Gus:0"], "returned objects")
            try expectPeople(ctx, stack, store, ["1:Ann:30", "2:Bobby:0", "8:Gus:0"], "after the import")
        },
        c("preProcess can drop, replace and add sources") { ctx in
            let (stack, store) = try seeded(ctx)
            let returned = try stack.perform(synchronous: { t in
                describe(try t.importUniqueObjects(Into<ImportedPerson>(), sourceArray: [["id": 9, "name": "Dropped"], ["id": 1, "name": "Ann"]]) { mapping in
                    var edited = mapping
                    edited[9] = nil
                    edited[1] = ["id": 1, "name": "Replaced"]
                    edited[12] = ["id": 12, "name": "Twelve"]
                    edited[11] = ["id": 11, "name": "Eleven"]
                    return edited
                })
            })
            try ctx.expectEqual(returned, ["1:Replaced:0", "11:Eleven:0", "12:Twelve:0"], "returned objects")
            try expectPeople(ctx, stack, store, ["1:Replaced:0", "2:Bob:40", "11:Eleven:0", "12:Twelve:0"], "after the import")
        },
        c("objects inserted or changed earlier in the transaction are found, deleted ones are not") { ctx in
            let (stack, store) = try seeded(ctx)
            try stack.perform(synchronous: { t in
                let made = t.create(Into<ImportedPerson>())
                made.remoteID = 20
                made.name = "Made"
                _ = try t.importUniqueObjects(Into<ImportedPerson>(), sourceArray: [["id": 21, "name": "First"]])
                // Bob's ID changes to 22 in this transaction; Ann is deleted.
                for person in try t.fetchAll(From<ImportedPerson>()) where person.remoteID == 2 { person.remoteID = 22 }
                t.delete(try t.fetchAll(From<ImportedPerson>().where(\.$remoteID == 1)))
                let returned = try t.importUniqueObjects(Into<ImportedPerson>(), sourceArray: [
                    ["id": 20, "name": "Made2"], ["id": 21, "name": "Second"], ["id": 22, "name": "Bob22"], ["id": 2, "name": "NewTwo"],
                ])
                try ctx.expectEqual(describe(returned), ["20:Made2:0", "21:Second:0", "22:Bob22:0", "2:NewTwo:0"], "returned objects")
                try ctx.expectEqual(t.insertedObjects(ImportedPerson.self).count, 3, "objects inserted in the transaction")
            })
            try expectPeople(ctx, stack, store, ["2:NewTwo:0", "20:Made2:0", "21:Second:0", "22:Bob22:0"], "after the transaction")
        },
        c("uniqueIDValue is set before didInsert") { ctx in
            let (stack, _) = try APICases.makeStack(ctx, schema())
            try stack.perform(synchronous: { t in
                _ = try t.importUniqueObject(Into<ImportedPerson>(), source: ["id": 31, "name": "Ida"])
            })
            try ctx.expectEqual(try stack.fetchOne(From<ImportedPerson>())?.idAtInsert, 31, "the unique ID seen by didInsert")
        },
        c("importUniqueObject inserts, updates and skips like the batch") { ctx in
            let (stack, store) = try seeded(ctx)
            let returned = try stack.perform(synchronous: { t -> [String] in
                let inserted = try t.importUniqueObject(Into<ImportedPerson>(), source: ["id": 40, "name": "Jo"])
                let updated = try t.importUniqueObject(Into<ImportedPerson>(), source: ["id": 1, "name": "Ann", "age": 33])
                let again = try t.importUniqueObject(Into<ImportedPerson>(), source: ["id": 40, "name": "Joe"])
                let skipped = try t.importUniqueObject(Into<ImportedPerson>(), source: ["name": "No ID"])
                try ctx.expect(inserted === again, "a second import of ID 40 in the same transaction returned another object")
                return [inserted, updated, again, skipped].map { $0.map { "\($0.remoteID):\($0.name)" } ?? "nil" }
            })
            try ctx.expectEqual(returned, ["40:Joe", "1:Ann", "40:Joe", "nil"], "returned objects")
            try expectPeople(ctx, stack, store, ["1:Ann:33", "2:Bob:40", "40:Joe:0"], "after the imports")
        },
        c("importing the same payload again changes nothing and notifies nothing") { ctx in
            let (stack, store) = try seeded(ctx)
            let payload: [[String: Any]] = (1...30).map { ["id": $0, "name": "P\($0)", "age": $0 * 2] }
            try stack.perform(synchronous: { t in _ = try t.importUniqueObjects(Into<ImportedPerson>(), sourceArray: payload) })
            let monitor = try stack.monitorList(From<ImportedPerson>().orderBy(.ascending(\.$remoteID)), deliveryQueue: ObservationCases.queue())
            let recorder = ImportListRecorder()
            monitor.addObserver(recorder)
            let hadChanges = try stack.perform(synchronous: { t -> Bool in
                let returned = try t.importUniqueObjects(Into<ImportedPerson>(), sourceArray: payload)
                try ctx.expectEqual(returned.count, 30, "objects returned by the second import")
                return t.hasChanges
            })
            try ctx.expect(!hadChanges, "the second import left changes in its transaction")
            try ctx.expectEqual(recorder.events, [], "monitor callbacks after the second import")
            try expectPeople(ctx, stack, store, (1...30).map { "\($0):P\($0):\($0 * 2)" }, "after importing twice")
            _ = monitor
        },
        c("a large import finds every existing object with one lookup") { ctx in
            let (stack, store) = try APICases.makeStack(ctx, schema())
            let existing: [[String: Any]] = (0..<1_500).map { ["id": $0 * 2, "name": "Old\($0 * 2)"] }
            try stack.perform(synchronous: { t in _ = try t.importUniqueObjects(Into<ImportedPerson>(), sourceArray: existing) })
            let payload: [[String: Any]] = (0..<3_000).map { ["id": $0, "name": "New\($0)"] }
            let returned = try stack.perform(synchronous: { t -> [Int] in
                let objects = try t.importUniqueObjects(Into<ImportedPerson>(), sourceArray: payload)
                try ctx.expectEqual(t.insertedObjects(ImportedPerson.self).count, 1_500, "objects inserted by the import")
                try ctx.expectEqual(t.updatedObjects(ImportedPerson.self).count, 1_500, "objects updated by the import")
                return objects.map(\.remoteID)
            })
            try ctx.expectEqual(returned, Array(0..<3_000), "IDs of the returned objects")
            try ctx.expectEqual(try stack.fetchCount(From<ImportedPerson>()), 3_000, "people afterwards")
            try ctx.expectEqual(try stack.fetchCount(From<ImportedPerson>().where(Where<ImportedPerson>("name BEGINSWITH %@", "New"))), 3_000, "people with the new names")
            try ctx.expectEqual(try store.read { try $0.count(FetchRequest(entity: "ImportedPerson")) }, 3_000, "people the store holds")
        },
    ]
}
