/// The counts of a `torture power` run, and the details of everything that went wrong.
struct PowerCutTally {
    /// Cuts made and checked.
    var cuts = 0
    /// Cuts per fate of the unsynced writes.
    var cutsByUnsynced: [PowerCutFileSystem.Unsynced: Int] = [:]
    /// Cuts that landed before the process had opened the store.
    var cutsWhileOpening = 0
    /// Cuts where the commit in progress was found whole although not acknowledged: allowed.
    var inFlightKept = 0
    /// Cuts where acknowledged commits were missing (allowed only with `.normal` durability,
    /// and then only as a tail of the log).
    var tailLost = 0
    /// The most acknowledged commits one cut lost.
    var mostCommitsLost = 0
    /// Cuts that lost acknowledged commits where that is not allowed.
    var lost = 0
    /// Cuts that left a commit in part, or a store that does not open.
    var torn = 0
    /// Cuts with another failure (a read that failed).
    var errors = 0
    /// One line per failure.
    var failures: [String] = []

    /// Whether nothing was lost (where not allowed), torn or failed.
    var isClean: Bool { lost == 0 && torn == 0 && errors == 0 }

    /// Counts one inspected cut: `acknowledged` commits had been acknowledged when the power went.
    mutating func record(_ finding: CommitTortureInspector.Finding, cut: Int, unsynced: PowerCutFileSystem.Unsynced, acknowledged: Int) {
        cuts += 1
        cutsByUnsynced[unsynced, default: 0] += 1
        let place = "cut \(cut) (unsynced writes \(unsynced.rawValue), \(acknowledged) acknowledged)"
        switch finding {
        case .intact(let last):
            if last == acknowledged + 1 { inFlightKept += 1 }
            if last < acknowledged {
                tailLost += 1
                mostCommitsLost = max(mostCommitsLost, acknowledged - last)
            }
        case .lost(let reason):
            lost += 1
            failures.append("\(place): LOST — \(reason)")
        case .torn(let reason):
            torn += 1
            failures.append("\(place): TORN — \(reason)")
        case .error(let reason):
            errors += 1
            failures.append("\(place): ERROR — \(reason)")
        }
    }

    /// The one-line summary, `lmdb: 1000 cuts, 0 lost, 0 torn (…)`.
    func summary(backend: TortureBackend, durability: TortureDurability, commits: Int) -> String {
        let fates = PowerCutFileSystem.Unsynced.allCases.map { "\($0.rawValue) \(cutsByUnsynced[$0, default: 0])" }.joined(separator: ", ")
        return "\(backend.rawValue): \(cuts) cuts, \(lost) lost, \(torn) torn"
            + " (durability \(durability.rawValue), \(commits) commits recorded; unsynced writes \(fates);"
            + " \(cutsWhileOpening) cuts while opening, \(inFlightKept) unacknowledged commits kept,"
            + " \(tailLost) cuts lost a tail of at most \(mostCommitsLost) acknowledged commits, \(errors) errors)"
    }
}
