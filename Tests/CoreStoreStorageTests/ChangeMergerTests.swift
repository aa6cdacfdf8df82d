import Testing
import CoreStoreStorage

/// The merge every store runs inside its write, over a dictionary of stored records.
@Suite("Change merger")
struct ChangeMergerTests {
    /// Person: name; `friends` (ordered, no inverse), `partner` (to-one, its own inverse),
    /// `pets` (unordered, inverse `owner`, at most 2). Pet: name; `owner`.
    static let schema = StoreSchema(modelVersion: "V1", schemaHash: "merger", entities: [
        EntityDescription(name: "Person", attributes: [AttributeDescription(name: "name", type: .string, isOptional: false)], relationships: [
            RelationshipDescription(name: "friends", kind: .toManyOrdered, destinationEntity: "Person", inverseName: nil),
            RelationshipDescription(name: "partner", kind: .toOne, destinationEntity: "Person", inverseName: "partner"),
            RelationshipDescription(name: "pets", kind: .toManyUnordered, destinationEntity: "Pet", inverseName: "owner", maxCount: 2),
        ]),
        EntityDescription(name: "Pet", attributes: [AttributeDescription(name: "name", type: .string, isOptional: false)], relationships: [
            RelationshipDescription(name: "owner", kind: .toOne, destinationEntity: "Person", inverseName: "pets"),
        ]),
    ])

    static func id(_ key: Int64, _ entity: String = "Person") -> RecordID { RecordID(entity: entity, key: key) }

    static func person(_ key: Int64, _ name: String, friends: [Int64] = [], partner: Int64? = nil, pets: [Int64] = []) -> Record {
        Record(id: id(key), attributes: [.string(name)],
               relationships: [friends.map { id($0) }, partner.map { [id($0)] } ?? [], pets.map { id($0, "Pet") }])
    }

    static func pet(_ key: Int64, _ name: String, owner: Int64? = nil) -> Record {
        Record(id: id(key, "Pet"), attributes: [.string(name)], relationships: [owner.map { [id($0)] } ?? []])
    }

    static func merge(_ changes: ChangeSet, stored: [Record]) throws -> MergedChanges {
        let byKey = Dictionary(uniqueKeysWithValues: stored.map { ($0.id.key, $0) })
        return try ChangeMerger.merge(changes, schema: schema) { ids in ids.map { byKey[$0.key] } }
    }

    static func result(_ merged: MergedChanges, _ key: Int64) -> Record? {
        merged.updates.first { $0.new.id.key == key }?.new ?? merged.inserts.first { $0.id.key == key }
    }

    /// While the writer's bases are what is stored, a deleted record's base stands in for it:
    /// the merge reads only the records the delete touches through inverses, and reports the
    /// base as the deleted record's last values. Otherwise every deleted record is read.
    @Test(arguments: [true, false])
    func deleteBasesSpareReadingTheDeletedRecords(basesAreStored: Bool) throws {
        let stored = [Self.person(1, "Ann", pets: [10]), Self.pet(10, "Rex", owner: 1), Self.pet(11, "Tom")]
        let byKey = Dictionary(uniqueKeysWithValues: stored.map { ($0.id.key, $0) })
        var read: [Int64] = []
        let changes = ChangeSet(deletes: [Self.id(10, "Pet"), Self.id(11, "Pet")], deleteBases: [stored[1], stored[2]])
        let merged = try ChangeMerger.merge(changes, schema: Self.schema, basesAreStored: basesAreStored) { ids in
            read += ids.map(\.key)
            return ids.map { byKey[$0.key] }
        }
        #expect(merged.deletes.map(\.id.key) == [10, 11])
        #expect(merged.deletes.map { $0.attributes[0] } == [.string("Rex"), .string("Tom")])
        #expect(Self.result(merged, 1)?.relationships[2].isEmpty == true)
        #expect(Set(read) == (basesAreStored ? [1] : [1, 10, 11]))
    }

    /// With the bases stored, an update applies only its changed keys: a writer's record that
    /// agrees with its base elsewhere is taken as it is, and one that differs from its base on
    /// a key it did not change keeps the stored value of that key (the same as without bases).
    @Test(arguments: [true, false])
    func basesStoredApplyOnlyTheChangedKeys(basesAreStored: Bool) throws {
        let base = Self.person(1, "Ann", friends: [2], pets: [10])
        let stored = [base, Self.person(2, "Bob"), Self.person(3, "Cid"), Self.pet(10, "Rex", owner: 1)]
        let byKey = Dictionary(uniqueKeysWithValues: stored.map { ($0.id.key, $0) })
        func merge(_ update: RecordUpdate) throws -> Record? {
            let merged = try ChangeMerger.merge(ChangeSet(updates: [update]), schema: Self.schema, basesAreStored: basesAreStored) { ids in
                ids.map { byKey[$0.key] }
            }
            return Self.result(merged, 1)
        }
        // The writer renamed Ann and kept the rest: its record is the merged one.
        let renamed = Self.person(1, "Anne", friends: [2], pets: [10])
        #expect(try merge(RecordUpdate(record: renamed, changedKeys: ["name"], base: base)) == renamed)
        // The writer's friends differ from the base without being a changed key: they stay stored.
        let stray = Self.person(1, "Anne", friends: [3], pets: [10])
        #expect(try merge(RecordUpdate(record: stray, changedKeys: ["name"], base: base)) == renamed)
        // A changed relationship and an unchanged attribute that differs: only the relationship applies.
        let refriended = Self.person(1, "Zed", friends: [3], pets: [10])
        #expect(try merge(RecordUpdate(record: refriended, changedKeys: ["friends"], base: base)) == Self.person(1, "Ann", friends: [3], pets: [10]))
        // A key the entity does not have is ignored.
        #expect(try merge(RecordUpdate(record: renamed, changedKeys: ["name", "nickname"], base: base)) == renamed)
    }

    /// A change set made by hand whose bases lack their entity's fields: the merge reads the
    /// stored records instead of trusting them, and neither crashes nor writes their shape.
    @Test func basesWithoutTheirEntitysShapeAreReadInstead() throws {
        let stored = [Self.person(1, "Ann", pets: [10]), Self.pet(10, "Rex", owner: 1), Self.pet(11, "Tom")]
        let byKey = Dictionary(uniqueKeysWithValues: stored.map { ($0.id.key, $0) })
        var read: [Int64] = []
        let shortBase = Record(id: Self.id(1), attributes: [], relationships: [])
        let shortPet = Record(id: Self.id(11, "Pet"), attributes: [], relationships: [])
        let changes = ChangeSet(
            updates: [RecordUpdate(record: Self.person(1, "Anne", pets: [10]), changedKeys: ["name"], base: shortBase)],
            deletes: [Self.id(11, "Pet")], deleteBases: [shortPet]
        )
        let merged = try ChangeMerger.merge(changes, schema: Self.schema, basesAreStored: true) { ids in
            read += ids.map(\.key)
            return ids.map { byKey[$0.key] }
        }
        #expect(Set(read) == [1, 11])
        #expect(Self.result(merged, 1) == Self.person(1, "Anne", pets: [10]))
        #expect(merged.deletes.map { $0.attributes } == [[.string("Tom")]])
    }

    /// An insert whose bounded relationship has no inverse (so no inverse touches it) is held
    /// to its bounds like any other record: a change set made by hand gets no other check.
    @Test func insertsAreHeldToTheirBoundsWithoutInverses() throws {
        let schema = StoreSchema(modelVersion: "V1", schemaHash: "teams", entities: [
            EntityDescription(name: "Person", attributes: [AttributeDescription(name: "name", type: .string, isOptional: false)]),
            EntityDescription(name: "Team", attributes: [], relationships: [
                RelationshipDescription(name: "members", kind: .toManyOrdered, destinationEntity: "Person", inverseName: nil, minCount: 1, maxCount: 2),
            ]),
        ])
        let people = (1...3).map { Record(id: Self.id($0), attributes: [.string("P\($0)")], relationships: []) }
        func team(_ members: [Int64]) -> Record {
            Record(id: RecordID(entity: "Team", key: 10), attributes: [], relationships: [members.map { Self.id($0) }])
        }
        func merge(_ members: [Int64]) throws -> MergedChanges {
            try ChangeMerger.merge(ChangeSet(inserts: people + [team(members)]), schema: schema) { ids in ids.map { _ in nil } }
        }
        #expect(try merge([1, 2]).inserts.count == 4)
        #expect(throws: StorageError.self) { try merge([1, 2, 3]) }
        #expect(throws: StorageError.self) { try merge([]) }
    }

    /// Notes have no relationships; people have a one-way `friends`.
    static let notesSchema = StoreSchema(modelVersion: "V1", schemaHash: "notes", entities: [
        EntityDescription(name: "Note", attributes: [AttributeDescription(name: "text", type: .string, isOptional: false)]),
        EntityDescription(name: "Person", attributes: [AttributeDescription(name: "name", type: .string, isOptional: false)], relationships: [
            RelationshipDescription(name: "friends", kind: .toManyOrdered, destinationEntity: "Person", inverseName: nil),
        ]),
    ])

    /// Deletes of entities without relationships are left unread only when the store accepts
    /// that, nothing was committed since the writer read, and the writer wants no deleted
    /// record back; any other delete is read and reported with its values.
    @Test(arguments: [false, true], [false, true])
    func deletesNobodyNeedsAreLeftUnread(acceptsUnreadDeletes: Bool, returnsDeletedRecords: Bool) throws {
        let stored = [
            Record(id: Self.id(1, "Note"), attributes: [.string("a")], relationships: []),
            Record(id: Self.id(2, "Note"), attributes: [.string("b")], relationships: []),
            Record(id: Self.id(3), attributes: [.string("Ann")], relationships: [[]]),
        ]
        let byKey = Dictionary(uniqueKeysWithValues: stored.map { ($0.id.key, $0) })
        for basesAreStored in [false, true] {
            var changes = ChangeSet(deletes: stored.map(\.id))
            changes.returnsDeletedRecords = returnsDeletedRecords
            var read: [Int64] = []
            let merged = try ChangeMerger.merge(
                changes, schema: Self.notesSchema, basesAreStored: basesAreStored, acceptsUnreadDeletes: acceptsUnreadDeletes
            ) { ids in
                read += ids.map(\.key)
                return ids.map { byKey[$0.key] }
            }
            let unread = acceptsUnreadDeletes && basesAreStored && !returnsDeletedRecords
            #expect(merged.unreadDeletes.map(\.key) == (unread ? [1, 2] : []))
            #expect(merged.deletes == (unread ? [stored[2]] : stored))
            #expect(merged.deletedIDs.map(\.key).sorted() == [1, 2, 3])
            #expect(read.sorted() == (unread ? [3] : [1, 2, 3]))
        }
        // A note deleted twice is refused whether it was read or not.
        var twice = ChangeSet(deletes: [Self.id(1, "Note"), Self.id(1, "Note")])
        twice.returnsDeletedRecords = returnsDeletedRecords
        #expect(throws: StorageError.recordNotFound(Self.id(1, "Note"))) {
            _ = try ChangeMerger.merge(twice, schema: Self.notesSchema, basesAreStored: true, acceptsUnreadDeletes: acceptsUnreadDeletes) { ids in
                ids.map { byKey[$0.key] }
            }
        }
    }

    @Test func anOrderedListNobodyElseChangedIsWrittenAsTheWriterOrderedIt() {
        let merged = ChangeMerger.mergeToMany(stored: [Self.id(1), Self.id(2)], base: [Self.id(1), Self.id(2)], mine: [Self.id(2), Self.id(3), Self.id(1)])
        #expect(merged.map(\.key) == [2, 3, 1])
    }

    @Test func anOrderedListChangedMeanwhileKeepsTheStoredOrderWithTheWritersAdditionsAppended() {
        // Stored [1, 2, 3, 9] (9 added by another commit); the writer saw [1, 2, 3], removed 2, added 4, reordered.
        let merged = ChangeMerger.mergeToMany(
            stored: [1, 2, 3, 9].map { Self.id($0) }, base: [1, 2, 3].map { Self.id($0) }, mine: [3, 4, 1].map { Self.id($0) }
        )
        #expect(merged.map(\.key) == [1, 3, 9, 4])
    }

    @Test func withoutABaseTheWritersListReplacesTheStoredOne() throws {
        let ann = Self.person(1, "Ann", friends: [2, 3])
        var mine = ann
        mine.relationships[0] = [Self.id(3)]
        let merged = try Self.merge(ChangeSet(updates: [RecordUpdate(record: mine, changedKeys: ["friends"])]),
                                    stored: [Self.person(1, "Ann", friends: [2, 3, 4]), Self.person(2, "B"), Self.person(3, "C"), Self.person(4, "D")])
        #expect(Self.result(merged, 1)?.relationships[0].map(\.key) == [3])
    }

    @Test func aSelfInverseToOneMovesBothSidesAndReleasesThePreviousPartner() throws {
        // Stored: Ann ↔ Bob. A writer that saw Ann single and Cy single pairs Ann with Cy.
        let stored = [Self.person(1, "Ann", partner: 2), Self.person(2, "Bob", partner: 1), Self.person(3, "Cy")]
        let annBase = Self.person(1, "Ann"), cyBase = Self.person(3, "Cy")
        var ann = annBase, cy = cyBase
        ann.relationships[1] = [Self.id(3)]
        cy.relationships[1] = [Self.id(1)]
        let merged = try Self.merge(ChangeSet(updates: [
            RecordUpdate(record: ann, changedKeys: ["partner"], base: annBase),
            RecordUpdate(record: cy, changedKeys: ["partner"], base: cyBase),
        ]), stored: stored)
        #expect(Self.result(merged, 1)?.relationships[1].map(\.key) == [3])
        #expect(Self.result(merged, 3)?.relationships[1].map(\.key) == [1])
        #expect(Self.result(merged, 2)?.relationships[1] == [])
        #expect(merged.updates.map(\.new.id.key).sorted() == [1, 2, 3])
        #expect(merged.updates.first { $0.new.id.key == 2 }?.changedKeys == ["partner"])
    }

    @Test func updatingARecordDeletedInTheSameChangeSetIsNotFound() {
        let ann = Self.person(1, "Ann")
        #expect(throws: StorageError.recordNotFound(Self.id(1))) {
            try Self.merge(ChangeSet(updates: [RecordUpdate(record: ann, changedKeys: ["name"])], deletes: [Self.id(1)]), stored: [ann])
        }
    }

    @Test func aRepeatedDeleteIsNotFound() {
        #expect(throws: StorageError.recordNotFound(Self.id(1))) {
            try Self.merge(ChangeSet(deletes: [Self.id(1), Self.id(1)]), stored: [Self.person(1, "Ann")])
        }
    }

    @Test func anIdentifierWithAnotherEntityThanTheStoredRecordIsNotFound() {
        let wrong = Record(id: Self.id(1, "Pet"), attributes: [.string("Ann")], relationships: [[]])
        #expect(throws: StorageError.recordNotFound(Self.id(1, "Pet"))) {
            try Self.merge(ChangeSet(updates: [RecordUpdate(record: wrong, changedKeys: ["name"])]), stored: [Self.person(1, "Ann")])
        }
    }

    @Test func unknownChangedKeysChangeNothing() throws {
        let ann = Self.person(1, "Ann")
        let merged = try Self.merge(ChangeSet(updates: [RecordUpdate(record: ann, changedKeys: ["nickname"])]), stored: [ann])
        #expect(merged.isEmpty)
    }

    @Test func aMergedListOverItsBoundIsRejected() throws {
        // Stored: Ann has pets 10 and 11 (the bound); a writer that saw one pet adds pet 12.
        let stored = [Self.person(1, "Ann", pets: [10, 11]), Self.pet(10, "A", owner: 1), Self.pet(11, "B", owner: 1), Self.pet(12, "C")]
        let base = Self.person(1, "Ann", pets: [10])
        var ann = base
        ann.relationships[2] = [Self.id(10, "Pet"), Self.id(12, "Pet")]
        #expect(throws: StorageError.self) {
            try Self.merge(ChangeSet(updates: [RecordUpdate(record: ann, changedKeys: ["pets"], base: base)]), stored: stored)
        }
    }

    @Test func badShapesAndAbstractOrUnknownEntitiesAreRejected() {
        #expect(throws: StorageError.unknownEntity("Robot")) {
            try Self.merge(ChangeSet(inserts: [Record(id: Self.id(-1, "Robot"), attributes: [], relationships: [])]), stored: [])
        }
        #expect(throws: StorageError.self) {
            try Self.merge(ChangeSet(inserts: [Record(id: Self.id(5), attributes: [], relationships: [])]), stored: [])
        }
    }

    /// Inserts of one entity are validated once while they have its shape: one of another shape
    /// after valid ones of the same entity is still refused, whichever count differs.
    @Test func aBadShapeAfterValidInsertsOfTheSameEntityIsRejected() {
        let valid = (1...3).map { Self.person(Int64($0), "P\($0)") }
        let badShapes = [
            Record(id: Self.id(9), attributes: [], relationships: [[], [], []]),
            Record(id: Self.id(9), attributes: [.string("x")], relationships: [[], []]),
        ]
        for bad in badShapes {
            #expect(throws: StorageError.self) { try Self.merge(ChangeSet(inserts: valid + [bad]), stored: []) }
        }
        #expect(throws: Never.self) { try Self.merge(ChangeSet(inserts: valid + [Self.pet(4, "Rex"), Self.person(5, "Q")]), stored: []) }
    }
}
