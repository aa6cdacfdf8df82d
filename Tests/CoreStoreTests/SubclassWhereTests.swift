import Foundation
import Testing
@testable import CoreStore

/// Filters that combine a field a class inherits with one it declares, as CoreStore writes them.
@Suite("Superclass and subclass fields in one filter")
struct SubclassWhereTests {
    @Test(arguments: StoreKind.allCases)
    func inheritedAndOwnFieldsCombine(_ kind: StoreKind) throws {
        let stack = try makeStack(kind)
        try stack.perform(synchronous: { t in
            for (name, lives) in [("Tom", 9), ("Kit", 3), ("Rex", 1)] {
                let cat = t.create(Into<Cat>())
                cat.name = name
                cat.lives = lives
            }
        })
        let both = try stack.fetchAll(From<Cat>().where(\.$name != "Tom" && \.$lives > 2))
        #expect(both.map(\.name) == ["Kit"])
        let either = try stack.fetchAll(From<Cat>().where(\.$name == "Tom" || \.$lives < 2).orderBy(.ascending(\.$name)))
        #expect(either.map(\.name) == ["Rex", "Tom"])
        let inherited: Where<Cat> = \Cat.$name == "Kit"
        let own: Where<Cat> = \Cat.$lives == 3
        let explicit = try stack.fetchAll(From<Cat>(), inherited && own)
        #expect(explicit.map(\.name) == ["Kit"])
        let closure = try stack.fetchAll(From<Cat>().where(Where<Cat>({ $0.$name == "Rex" && $0.$lives == 1 })))
        #expect(closure.map(\.name) == ["Rex"])
    }
}
