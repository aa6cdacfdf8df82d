import CoreStore
import Foundation

/// The model of `corestore torture shared`: one entry per commit, naming the process that made
/// it, its place in that process's sequence, and when the commit began.
enum SharedTortureModel {
    final class Entry: CoreStoreObject {
        @Field.Stored("process") var process: Int = 0
        @Field.Stored("index") var index: Int = 0
        /// Seconds since 1970 when the commit began (the processes share one clock).
        @Field.Stored("stamp") var stamp: Double = 0
    }

    static let schema = CoreStoreSchema(
        modelVersion: "Shared1",
        entities: [Entity<Entry>("Entry", uniqueConstraints: [[\Entry.$process, \Entry.$index]])]
    )
}
