import Foundation
import Testing
@testable import CoreStore

@Test(arguments: StoreKind.allCases)
func smoke(_ kind: StoreKind) throws {
    let stack = try makeStack(kind)
    try stack.perform(synchronous: { t in
        let p = t.create(Into<Person>())
        p.name = "Jane"
        p.age = 30
        let d = t.create(Into<Dog>())
        d.name = "Rex"
        d.master = p
        #expect(p.pets.count == 1)
    })
    let people = try stack.fetchAll(From<Person>().where(\.$age > 20))
    #expect(people.count == 1)
    #expect(people.first?.name == "Jane")
    #expect(people.first?.pets.first?.name == "Rex")
    #expect(people.first?.displayName == "Jane (30)")
    let animals = try stack.fetchAll(From<Animal>())
    #expect(animals.count == 1)
    #expect(animals.first is Dog)
}
