/// The counts of a torture run, and the details of everything that went wrong.
struct TortureTally {
    /// Runs whose child was killed by SIGKILL.
    var kills = 0
    /// Killed runs whose store was at V1 (and migrated fine afterwards).
    var atV1 = 0
    /// Killed runs whose store was at V2.
    var atV2 = 0
    /// Runs that lost objects or the store.
    var lost = 0
    /// Runs whose store was neither an intact V1 nor an intact V2.
    var torn = 0
    /// Runs with another failure (the child failed by itself, a second migration failed, …).
    var errors = 0
    /// Killed runs whose store got a second child, killed too.
    var killedTwice = 0
    /// Runs that were not meant to be killed (they time an uninterrupted migration), at V2.
    var uninterrupted = 0
    /// Runs whose child finished the migration before it was to be killed, at V2.
    var finishedBeforeKill = 0
    /// One line per failure.
    var failures: [String] = []

    /// Whether nothing was lost, torn or failed.
    var isClean: Bool { lost == 0 && torn == 0 && errors == 0 }

    /// Counts a run (`meantToKill`: its child was to be killed, unless it finished first);
    /// failures quote the end of `childLog` (the children's standard error) when a child failed.
    mutating func record(_ outcome: TortureRunner.Outcome, meantToKill: Bool, childLog: String) {
        let label = outcome.label
        if outcome.killed { kills += 1 }
        if outcome.killedTwice { killedTwice += 1 }
        if let failure = outcome.childFailure {
            errors += 1
            let log = childLog.split(separator: "\n").suffix(5).map { "    " + $0 }.joined(separator: "\n")
            failures.append("\(label): \(failure)\n\(log)")
            return
        }
        switch outcome.finding {
        case .atV1 where outcome.finished:
            torn += 1
            failures.append("\(label): the child reported success but the store is at V1")
        case .atV1:
            atV1 += 1
        case .atV2:
            if outcome.killed { atV2 += 1 } else if meantToKill { finishedBeforeKill += 1 } else { uninterrupted += 1 }
        case .lost(let reason):
            lost += 1
            failures.append("\(label): LOST — \(reason)")
        case .torn(let reason):
            torn += 1
            failures.append("\(label): TORN — \(reason)")
        case .error(let reason):
            errors += 1
            failures.append("\(label): ERROR — \(reason)")
        }
    }

    /// The one-line summary, `sqlite: 40 kills, 23 at V1, 17 at V2, 0 lost, 0 torn (…)`.
    func summary(backend: TortureBackend) -> String {
        "\(backend.rawValue): \(kills) kills, \(atV1) at V1, \(atV2) at V2, \(lost) lost, \(torn) torn"
            + " (\(killedTwice) killed twice, \(uninterrupted) uninterrupted runs, \(finishedBeforeKill) finished before their kill, \(errors) errors)"
    }
}
