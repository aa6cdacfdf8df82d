import Foundation
import Testing
@testable import CoreStore

/// Reading virtual fields and setting stored and coded fields on an `ObjectSnapshot`.
@Suite("ObjectSnapshot fields")
struct ObjectSnapshotFieldTests {
    func inserted(_ stack: DataStack) throws -> AllTypes {
        try stack.perform(synchronous: { t in
            let o = t.create(Into<AllTypes>())
            o.string = "Ann"
            o.int = 7
            o.point = [1, 2]
        })
        return try #require(try stack.fetchOne(From<AllTypes>()))
    }

    @Test(arguments: StoreKind.allCases)
    func aVirtualFieldHoldsWhatItsGetterReturnedWhenTheSnapshotWasTaken(_ kind: StoreKind) throws {
        let stack = try FieldTests.makeAllTypesStack(kind)
        let object = try inserted(stack)
        var snapshot = try #require(object.asSnapshot(in: stack))
        #expect(snapshot.$summary == "Ann#7")
        // As in CoreStore: setting a stored field of the snapshot leaves the captured value.
        snapshot.$int = 9
        #expect(snapshot.$int == 9)
        #expect(snapshot.$summary == "Ann#7")
        // A later commit does not reach a snapshot taken before it; a new snapshot sees it.
        try stack.perform(synchronous: { t in t.edit(object)?.int = 8 })
        #expect(snapshot.$summary == "Ann#7")
        #expect(try #require(object.asSnapshot(in: stack)).$summary == "Ann#8")
        // The object and its store follow the commit only.
        #expect(object.summary == "Ann#8")
    }

    @Test(arguments: StoreKind.allCases)
    func settingFieldsChangesTheSnapshotOnly(_ kind: StoreKind) throws {
        let stack = try FieldTests.makeAllTypesStack(kind)
        let object = try inserted(stack)
        let original = try #require(object.asSnapshot(in: stack))
        var edited = original
        edited.$string = "Bob"
        edited.$optionalInt = 3
        edited.$point = [5, 6]
        edited.$reversed = "abc"
        #expect(edited.$string == "Bob" && edited.$optionalInt == 3 && edited.$point == [5, 6] && edited.$reversed == "abc")
        #expect(edited != original)
        #expect(original.$string == "Ann" && original.$optionalInt == nil && original.$point == [1, 2])
        #expect(object.string == "Ann")
        #expect(try stack.fetchOne(From<AllTypes>())?.string == "Ann")
        edited.$optionalInt = nil
        #expect(edited.$optionalInt == nil)
        // Setting back the original values gives an equal snapshot.
        edited.$string = "Ann"
        edited.$point = [1, 2]
        edited.$reversed = original.$reversed
        #expect(edited == original)
    }
}
