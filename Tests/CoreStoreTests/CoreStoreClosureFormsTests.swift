import Foundation
import Testing
@testable import CoreStore

/// Conditions and sort keys written as CoreStore's closures over a meta instance, and a
/// publisher's fields read through it: the same results as the key-path forms.
@Suite("CoreStore's closure forms and publisher fields")
struct CoreStoreClosureFormsTests {
    private static func seeded(_ kind: StoreKind) throws -> DataStack {
        let stack = try makeStack(kind)
        try stack.perform(synchronous: { t in
            for (name, age) in [("Ann", 30), ("Bob", 25), ("Cid", 41), ("Dee", 30)] {
                let person = t.create(Into<Person>())
                person.name = name
                person.age = age
            }
        })
        return stack
    }

    @Test("Where({ $0.$field … }) selects what the key-path form selects", arguments: StoreKind.allCases)
    func whereClosures(kind: StoreKind) throws {
        let stack = try Self.seeded(kind)
        let names = { (clause: Where<Person>) in
            try stack.fetchAll(From<Person>().where(clause).orderBy(.ascending(\.$name))).map(\.name)
        }
        #expect(try names(Where<Person>({ $0.$age == 30 })) == ["Ann", "Dee"])
        #expect(try names(Where<Person>({ $0.$age != 30 })) == ["Bob", "Cid"])
        #expect(try names(Where<Person>({ $0.$age > 30 })) == ["Cid"])
        #expect(try names(Where<Person>({ $0.$age >= 30 && $0.$name < "Dee" })) == ["Ann", "Cid"])
        #expect(try names(Where<Person>({ $0.$age <= 25 || $0.$name == "Cid" })) == ["Bob", "Cid"])
        #expect(try names(Where<Person>({ $0.$name ~= ["Bob", "Dee", "Zed"] })) == ["Bob", "Dee"])
        #expect(try names(Where<Person>({ $0.$age == 30 })) == names(\.$age == 30))
    }

    @Test("OrderBy's .ascending({ $0.$field }) and .descending sort as the key-path forms do", arguments: StoreKind.allCases)
    func orderByClosures(kind: StoreKind) throws {
        let stack = try Self.seeded(kind)
        let byClosures = try stack.fetchAll(From<Person>().orderBy(.descending({ $0.$age }), .ascending({ $0.$name }))).map(\.name)
        #expect(byClosures == ["Cid", "Ann", "Dee", "Bob"])
        #expect(byClosures == (try stack.fetchAll(From<Person>().orderBy(.descending(\.$age), .ascending(\.$name))).map(\.name)))
    }

    @Test("publisher.$field reads the object's current values; nil once deleted", arguments: StoreKind.allCases)
    func publisherFields(kind: StoreKind) throws {
        let stack = try Self.seeded(kind)
        let ann = try #require(try stack.fetchOne(From<Person>().where(\.$name == "Ann")))
        let publisher = ann.asPublisher(in: stack)
        #expect(publisher.$name == "Ann" && publisher.$age == 30 && publisher.$nickname == .some(nil))
        #expect(publisher.$displayName == "Ann (30)")
        #expect(publisher.$friends?.isEmpty == true)
        try stack.perform(synchronous: { t in
            let editable = try #require(t.edit(ann))
            editable.age = 31
            editable.friends = [try #require(try t.fetchOne(From<Person>().where(\.$name == "Bob")))]
        })
        #expect(publisher.$age == 31)
        #expect(publisher.$friends?.compactMap(\.$name) == ["Bob"])
        try stack.perform(synchronous: { t in t.delete(ann) })
        #expect(publisher.$name == nil && publisher.$displayName == nil && publisher.$friends == nil)
    }
}
