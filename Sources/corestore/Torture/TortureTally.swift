/// The counts of a torture run, and the details of everything that went wrong.
struct TortureTally {
    /// Children killed by SIGKILL.
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
    /// Runs that were not meant to be killed (they time an uninterrupted migration), at V2.
    var uninterrupted = 0
    /// Runs whose child finished the migration before it was to be killed, at V2.
    var finishedBeforeKill = 0
    /// One line per failure.
    var failures: [String] = []

    /// Whether nothing was lost, torn or failed.
    var isClean: Bool { lost == 0 && torn == 0 && errors == 0 }

    /// Counts `finding` for a run that ended as `termination` (`meantToKill`: unless it finished
    /// first); `label` names the run in failures, which quote the end of `childLog` (the child's
    /// standard error) when the child failed.
    mutating func record(_ finding: TortureFinding, termination: TortureChildProcess.Termination, meantToKill: Bool, label: String, childLog: String) {
        let log = childLog.split(separator: "\n").suffix(5).map { "    " + $0 }.joined(separator: "\n")
        let killed = termination == .killed
        if killed { kills += 1 }
        switch (finding, termination) {
        case (_, .hung):
            errors += 1
            failures.append("\(label): the child hung and was killed\n\(log)")
        case (_, .signaled(let signal)):
            errors += 1
            failures.append("\(label): the child died of signal \(signal)\n\(log)")
        case (_, .exited(let status)) where status != 0:
            errors += 1
            failures.append("\(label): the child exited with status \(status)\n\(log)")
        case (.atV1, _) where !killed:
            torn += 1
            failures.append("\(label): the child reported success but the store is at V1")
        case (.atV1, _):
            atV1 += 1
        case (.atV2, _):
            if killed { atV2 += 1 } else if meantToKill { finishedBeforeKill += 1 } else { uninterrupted += 1 }
        case (.lost(let reason), _):
            lost += 1
            failures.append("\(label): LOST — \(reason)")
        case (.torn(let reason), _):
            torn += 1
            failures.append("\(label): TORN — \(reason)")
        case (.error(let reason), _):
            errors += 1
            failures.append("\(label): ERROR — \(reason)")
        }
    }

    /// The one-line summary, `sqlite: 40 kills, 23 at V1, 17 at V2, 0 lost, 0 torn (…)`.
    func summary(backend: TortureBackend) -> String {
        "\(backend.rawValue): \(kills) kills, \(atV1) at V1, \(atV2) at V2, \(lost) lost, \(torn) torn"
            + " (\(uninterrupted) uninterrupted runs, \(finishedBeforeKill) finished before their kill, \(errors) errors)"
    }
}
