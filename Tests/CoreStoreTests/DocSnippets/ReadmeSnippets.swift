import Foundation
import Testing
@testable import CoreStore
import CoreStoreInMemory

/// What the README's code blocks use without declaring it: a stack of the test model with
/// people and dogs, one person, import input, three schema versions, and `self` as a list
/// observer. `README+Snippets.swift` adds one method per block.
final class ReadmeSnippets: ListObserver, @unchecked Sendable {
    typealias ListEntityType = Person
    let dataStack: DataStack
    let person: Person
    let json: [[String: Any]] = [["id": 1, "name": "Ann"]]
    let schemaV1 = CoreStoreSchema(modelVersion: "V1", entities: [Entity<Person>("Person"), Entity<Dog>("Dog"), Entity<Cat>("Cat")])
    let schemaV2 = CoreStoreSchema(modelVersion: "V2", entities: [Entity<Person>("Person"), Entity<Dog>("Dog"), Entity<Cat>("Cat")])
    let schemaV3 = CoreStoreSchema(modelVersion: "V3", entities: [Entity<Person>("Person"), Entity<Dog>("Dog"), Entity<Cat>("Cat")])

    init() throws {
        dataStack = try makeStack(.inMemory)
        try insertAnnAndFido(dataStack)
        person = try #require(try dataStack.fetchOne(From<Person>().where(\.$name == "Ann")))
    }
}

/// The README's blocks marked `run`.
@Suite("README code blocks")
struct ReadmeSnippetTests {
    @Test func theQuickStartRuns() async throws {
        try await ReadmeSnippets().quickStart()
    }

    @Test func fetchingAndQueryingRuns() async throws {
        try await ReadmeSnippets().fetchingAndQuerying()
    }

    @Test func observingChangesRunsUntilCancelled() async throws {
        let snippets = try ReadmeSnippets()
        let task = Task { try await snippets.observingChanges() }
        task.cancel()
        try await task.value
    }
}
