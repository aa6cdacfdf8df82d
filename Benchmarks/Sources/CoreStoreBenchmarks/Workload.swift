/// The workloads: W1–W9 of the benchmark issue, W10–W11 of the importing issue, W12–W13 of the
/// migrations issue, W14 of the object-layer issue (one reader alone, then two readers beside a
/// writer), W15 of the key-value tier's index-only reads.
enum Workload: String, CaseIterable, Sendable, Codable {
    case w1, w2, w3, w4, w5, w15, w6, w7, w8, w9, w10, w11, w14alone, w14, w12, w13

    /// The order a subject runs them in: W8 needs the full list, before W6 and W7 change it.
    /// The migrations (W12, W13) run last, after the final read is checked.
    static let runOrder: [Workload] = [.w1, .w2, .w3, .w4, .w5, .w15, .w8, .w6, .w7, .w9, .w10, .w11]

    /// The concurrency workloads, after the final read is checked and before the migrations.
    static let concurrency: [Workload] = [.w14alone, .w14]

    /// The migration workloads, in the order they run on a subject's final store.
    static let migrations: [Workload] = [.w12, .w13]

    /// What the workload does, for the table.
    func title(_ size: WorkloadSize) -> String {
        switch self {
        case .w1: "W1 insert \(size.rows.formatted()) (1 txn)"
        case .w2: "W2 fetch all \(size.rows.formatted()), read fields"
        case .w3: "W3 indexed equality (~1%)"
        case .w4: "W4 unindexed range, sort, limit \(size.limit)"
        case .w5: "W5 count + sum + group by"
        case .w15: "W15 count per indexed value + indexed maximum"
        case .w6: "W6 update \(size.batch.formatted()) (1 txn)"
        case .w7: "W7 delete \(size.batch.formatted()) (1 txn)"
        case .w8: "W8 1 update → list observer (per update)"
        case .w9: "W9 \(size.batch.formatted()) single-object txns"
        case .w10: "W10 insert \(size.batch.formatted()) new (1 txn)"
        case .w11: "W11 import \(size.batch.formatted()) unique, half existing"
        case .w14alone: "W14 1 reader: \(size.concurrentFetches) fetches of ~\(size.concurrentRows.formatted()) indexed rows"
        case .w14: "W14 2 readers × \(size.concurrentFetches) fetches, 1 writer committing single updates (~1/ms)"
        case .w12: "W12 migrate ~\(size.rows.formatted()): add 1 attribute (lightweight)"
        case .w13: "W13 migrate ~\(size.rows.formatted()): custom transform of every row"
        }
    }

    /// Whether the workload produces a checksum that every subject must agree on.
    var isRead: Bool { [.w2, .w3, .w4, .w5, .w15].contains(self) }
}
