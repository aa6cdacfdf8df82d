import Foundation
import Testing
@testable import CoreStore

@Suite("Concurrency stress")
struct ConcurrencyStressTests {
    @Test(arguments: StoreKind.allCases)
    func writersAndReadersRunTogetherWithoutLosingCommits(_ kind: StoreKind) async throws {
        let stack = try makeStack(kind)
        let writers = 4, commitsPerWriter = 25
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<writers {
                group.addTask {
                    for i in 0..<commitsPerWriter {
                        try await stack.async.perform { transaction in
                            let person = transaction.create(Into<Person>())
                            person.name = "w\(writer)-\(i)"
                            person.age = i
                            if let someone = try transaction.fetchOne(From<Person>().where(\.$age == i - 1)) {
                                someone.nickname = "seen by \(writer)"
                            }
                        }
                    }
                }
            }
            for _ in 0..<4 {
                group.addTask {
                    for _ in 0..<50 {
                        let people = try stack.fetchAll(From<Person>().where(\.$age >= 0).orderBy(.ascending(\.$age)))
                        let ages = people.map(\.age)
                        #expect(ages == ages.sorted())
                        _ = people.map { ($0.name, $0.nickname) }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try stack.fetchCount(From<Person>()) == writers * commitsPerWriter)
        let names = Set(try stack.fetchAll(From<Person>()).map(\.name))
        #expect(names.count == writers * commitsPerWriter)
    }
}
