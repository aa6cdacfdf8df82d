import Foundation
import Testing
@testable import CoreStore

/// What the code blocks of the guides (docs/GETTING-STARTED.md, BACKENDS.md, TRANSACTIONS.md,
/// FETCHING.md, IMPORTING.md) use without declaring it: an in-memory stack of the test model
/// holding Ann and her dog Fido. The generated `…+Snippets.swift` files add one method per
/// block (or run of blocks of one name).
final class GuideSnippets: @unchecked Sendable {
    let dataStack: DataStack

    init() throws {
        dataStack = try makeStack(.inMemory)
        try insertAnnAndFido(dataStack)
    }
}

/// The guides' blocks marked `run`, each on a fresh stack.
@Suite("Guide code blocks")
struct GuideSnippetTests {
    @Test func gettingStartedRuns() async throws {
        try await GuideSnippets().gettingStarted()
    }

    @Test func theFourKindsOfTransactionRun() async throws {
        try await GuideSnippets().theFourKinds()
    }

    @Test func crossingContextsRuns() async throws {
        let snippets = try GuideSnippets()
        try await snippets.crossingContexts()
        let pip = try #require(try snippets.dataStack.fetchOne(From<Dog>().where(\.$name == "Pip")))
        #expect(pip.master?.nickname == "Annie")
    }

    @Test func cancellingSavesNothing() async throws {
        let snippets = try GuideSnippets()
        try await snippets.cancelling()
        #expect(try snippets.dataStack.fetchCount(From<Person>().where(\.$name == "Nobody")) == 0)
    }

    @Test func undoingChangesRuns() async throws {
        let snippets = try GuideSnippets()
        try await snippets.undoingChanges()
        #expect(try snippets.dataStack.fetchOne(From<Person>().where(\.$name == "Eva")) != nil)
    }

    @Test func deletingRuns() async throws {
        try await GuideSnippets().deleting()
    }

    @Test func fetchingRuns() async throws {
        let snippets = try GuideSnippets()
        try await snippets.fetchingObjects()
        try await snippets.filtering()
        try await snippets.badPredicates()
        try await snippets.queryingValues()
        try await snippets.fetchingInATransaction()
    }

    @Test func importingRuns() async throws {
        let snippets = try GuideSnippets()
        try await snippets.importingStructs()
        try await snippets.importingUnique()
    }
}
