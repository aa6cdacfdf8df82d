import CoreStore
import Foundation

/// Opens a store after a killed `commit-child` and checks every invariant of
/// ``CommitTortureModel`` against what the child acknowledged.
struct CommitTortureInspector {
    /// What the store was found to be.
    enum Finding {
        /// Every invariant holds; the log ends at `lastSerial`.
        case intact(lastSerial: Int)
        /// An acknowledged commit (or the store) is gone.
        case lost(String)
        /// A commit is there in part, or the store does not open.
        case torn(String)
        /// Something failed that says nothing about the store's state.
        case error(String)
    }

    let backend: TortureBackend
    let durability: TortureDurability
    let accountCount: Int

    /// Inspects the store at `url`; the child acknowledged every commit up to `acknowledged`
    /// (0: none ever) and may have been stopped inside the next one. With `tailMayBeLost` (a
    /// power cut under `.normal` durability), the log may end before `acknowledged`, but it must
    /// still be whole up to where it ends.
    func inspect(_ url: URL, acknowledged: Int, tailMayBeLost: Bool = false) -> Finding {
        guard FileManager.default.fileExists(atPath: url.path) else { return .lost("the store is gone") }
        // The stack closes the store when it goes away at the end of this call, before the next
        // child opens it.
        let stack = CommitTortureModel.stack()
        do {
            try stack.addStorageAndWait(backend.makeStore(at: url, durability: durability.value))
        } catch {
            return .torn("the store does not open: \(error)")
        }
        do {
            if let problem = try checkAccounts(stack) { return .torn(problem) }
            let serials = try stack.queryAttributes(
                From<CommitTortureModel.Commit>().select(NSDictionary.self, .attribute(\.$serial), .attribute(\.$noteCount)).orderBy(.ascending(\.$serial))
            )
            var noteCounts: [Int: Int] = [:]
            for (index, row) in serials.enumerated() {
                guard let serial = row["serial"] as? Int, let noteCount = row["noteCount"] as? Int else {
                    return .torn("commit row \(index) lacks its serial or note count: \(row)")
                }
                guard serial == index + 1 else {
                    return serial > index + 1
                        ? .torn("the commit log has a gap: commit \(index + 1) is missing, \(serial) follows")
                        : .torn("commit \(serial) is in the log twice")
                }
                noteCounts[serial] = noteCount
            }
            let last = serials.count
            if last < acknowledged && !tailMayBeLost {
                return .lost("commit \(acknowledged) was acknowledged, but the log ends at \(last)")
            }
            if last > acknowledged + 1 {
                return .error("the log ends at \(last), past the \(acknowledged + 1) commits the children made")
            }
            if let problem = try checkNotes(stack, noteCounts: noteCounts) { return .torn(problem) }
            return .intact(lastSerial: last)
        } catch {
            return .error("reading the store failed: \(error)")
        }
    }

    /// Every account is there once and the balances add up to the opening total.
    private func checkAccounts(_ stack: DataStack) throws -> String? {
        let accounts = try stack.fetchAll(From<CommitTortureModel.Account>().orderBy(.ascending(\.$number)))
        guard accounts.map(\.number) == Array(0..<accountCount) else {
            return "expected accounts 0..<\(accountCount), found \(accounts.count) with numbers \(accounts.prefix(5).map(\.number))…"
        }
        let total = accounts.reduce(0) { $0 + $1.balance }
        guard total == accountCount * CommitTortureModel.openingBalance else {
            return "the balances add up to \(total), not \(accountCount * CommitTortureModel.openingBalance): a transfer is half there"
        }
        return nil
    }

    /// Each commit keeps exactly its note count of notes, each pointing back to it.
    private func checkNotes(_ stack: DataStack, noteCounts: [Int: Int]) throws -> String? {
        var found: [Int: Int] = [:]
        for note in try stack.fetchAll(From<CommitTortureModel.Note>()) {
            guard let commit = note.commit else { return "a note of commit \(note.serial) has no commit" }
            guard commit.serial == note.serial else { return "a note of commit \(note.serial) points to commit \(commit.serial)" }
            found[note.serial, default: 0] += 1
        }
        for (serial, count) in noteCounts where found[serial, default: 0] != count {
            return "commit \(serial) should keep \(count) notes, \(found[serial, default: 0]) are there"
        }
        if let stray = found.keys.first(where: { noteCounts[$0] == nil }) {
            return "\(found[stray] ?? 0) notes belong to commit \(stray), which is not in the log"
        }
        for commit in try stack.fetchAll(From<CommitTortureModel.Commit>().where(\.$noteCount > 0)) where commit.notes.count != commit.noteCount {
            return "commit \(commit.serial) has \(commit.notes.count) notes through its relationship, not \(commit.noteCount)"
        }
        return nil
    }
}
