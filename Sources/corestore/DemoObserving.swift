import CoreStore
import Foundation

/// Prints what a commit did to a monitored list.
final class DemoListWatcher: ListObjectObserver {
    typealias ListEntityType = DemoPerson

    func listMonitor(_ monitor: ListMonitor<DemoPerson>, didInsertObject object: DemoPerson, toIndexPath indexPath: IndexPath) {
        print("   monitor: inserted \(object.name) at row \(indexPath.item)")
    }

    func listMonitor(_ monitor: ListMonitor<DemoPerson>, didDeleteObject object: DemoPerson, fromIndexPath indexPath: IndexPath) {
        print("   monitor: deleted \(object.name) from row \(indexPath.item)")
    }

    func listMonitor(_ monitor: ListMonitor<DemoPerson>, didUpdateObject object: DemoPerson, atIndexPath indexPath: IndexPath) {
        print("   monitor: updated \(object.name) at row \(indexPath.item)")
    }

    func listMonitor(_ monitor: ListMonitor<DemoPerson>, didMoveObject object: DemoPerson, fromIndexPath: IndexPath, toIndexPath: IndexPath) {
        print("   monitor: moved \(object.name) from row \(fromIndexPath.item) to row \(toIndexPath.item)")
    }
}

extension DemoCommand {
    /// Section 9: a list monitor and a publisher on the main queue of this async program.
    func watchChanges(_ dataStack: DataStack) async throws {
        print("10. Watching changes (delivered on the main queue)")
        let monitor = try dataStack.monitorList(From<DemoPerson>().where(\.$age >= 30).orderBy(.descending(\.$age)))
        let watcher = DemoListWatcher()
        monitor.addObserver(watcher)
        print("   people 30 or older, oldest first: \(monitor.objectsInAllSections().map(\.name).joined(separator: ", "))")
        let publisher = try dataStack.publishList(From<DemoPerson>().orderBy(.ascending(\.$name)))
        var snapshots = publisher.snapshots.makeAsyncIterator()
        _ = await snapshots.next()

        // A synchronous transaction waits until the main queue's observers were told.
        try dataStack.perform(synchronous: { transaction in
            let hedy = transaction.create(Into<DemoPerson>())
            hedy.name = "Hedy"
            hedy.age = 85
        })
        // An asynchronous one does not; the publisher's next snapshot shows when it arrived.
        try await dataStack.async.perform { transaction in
            for person in try transaction.fetchAll(From<DemoPerson>().where(\.$name == "Hedy")) {
                person.age = 29
            }
        }
        if let afterInsert = await snapshots.next(), let afterUpdate = await snapshots.next() {
            print("   publisher: \(afterInsert.count) people after the insert, \(afterUpdate.count) after the update (one snapshot per commit)")
        }
        print("   people 30 or older now: \(monitor.objectsInAllSections().map(\.name).joined(separator: ", "))")
    }
}
