import Foundation
import Testing
@testable import CoreStore

/// The "Observing changes" snippet of our README, with a delivery queue of the test's own
/// (the test runner does not service the main queue).
@Suite("README: observing changes")
struct ReadmeObservingTests {
    @Test func observingSnippet() async throws {
        let dataStack = try makeStack(.sqlite)
        try insertPeople(dataStack, [("Ann", 35), ("Bob", 40), ("Cid", 20)])
        let queue = makeDeliveryQueue()
        let monitor = try dataStack.monitorSectionedList(
            From<Person>().sectionBy(\.$age).where(\.$age > 30).orderBy(.ascending(\.$age), .ascending(\.$name)),
            deliveryQueue: queue
        )
        let recorder = ListRecorder<Person> { $0.name }
        monitor.addObserver(recorder)
        let first = monitor[0]
        #expect(first?.name == "Ann")

        let publisher = try dataStack.publishList(From<Person>().orderBy(.ascending(\.$name)), deliveryQueue: queue)
        var names: [[String?]] = []
        for await snapshot in publisher.snapshots {
            names.append(snapshot.map { $0.snapshot?.$name })
            if names.count == 2 { break }
            try insertPeople(dataStack, [("Dan", 50)])
        }
        #expect(names == [["Ann", "Bob", "Cid"], ["Ann", "Bob", "Cid", "Dan"]])
        #expect(recorder.events == ["willChange", "insertSection 50 2", "insert Dan [2,0]", "didChange"])
    }
}
