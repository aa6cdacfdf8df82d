/// The counts of a `torture commits` run, and the details of everything that went wrong.
struct CommitTortureTally {
    /// Children killed by SIGKILL.
    var kills = 0
    /// Of those, killed before they had opened the store.
    var killedWhileOpening = 0
    /// Commits the children acknowledged.
    var acknowledged = 0
    /// Killed commits found in the store although not acknowledged (killed after the commit
    /// was durable and before the child printed it): allowed, counted to show it happens.
    var inFlightKept = 0
    /// Runs that lost an acknowledged commit or the store.
    var lost = 0
    /// Runs that found a commit in part, or a store that does not open.
    var torn = 0
    /// Runs with another failure (a child that failed by itself, a read that failed).
    var errors = 0
    /// One line per failure.
    var failures: [String] = []

    /// Whether nothing was lost, torn or failed.
    var isClean: Bool { lost == 0 && torn == 0 && errors == 0 }

    /// Counts one inspected store.
    mutating func record(_ finding: CommitTortureInspector.Finding, run: Int, acknowledged: Int) {
        switch finding {
        case .intact(let last):
            if last == acknowledged + 1 { inFlightKept += 1 }
        case .lost(let reason):
            lost += 1
            failures.append("run \(run): LOST — \(reason)")
        case .torn(let reason):
            torn += 1
            failures.append("run \(run): TORN — \(reason)")
        case .error(let reason):
            errors += 1
            failures.append("run \(run): ERROR — \(reason)")
        }
    }

    /// Counts a child that failed by itself.
    mutating func recordChildFailure(_ reason: String, run: Int) {
        errors += 1
        failures.append("run \(run): CHILD — \(reason)")
    }

    /// The one-line summary, `lmdb: 40 kills, 812 commits acknowledged, 0 lost, 0 torn (…)`.
    func summary(backend: TortureBackend, durability: TortureDurability) -> String {
        "\(backend.rawValue): \(kills) kills, \(acknowledged) commits acknowledged, \(lost) lost, \(torn) torn"
            + " (durability \(durability.rawValue), \(killedWhileOpening) killed while opening, \(inFlightKept) unacknowledged commits kept, \(errors) errors)"
    }
}
