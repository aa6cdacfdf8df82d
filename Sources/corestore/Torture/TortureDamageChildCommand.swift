import ArgumentParser
import CoreStore
import Foundation

/// `corestore torture damage-child` (hidden): opens a (possibly damaged) store of
/// ``CommitTortureModel`` and prints everything in it, one line per object in a fixed order,
/// then `end`. A `CoreStoreError` is printed to standard error with exit status 3 when opening
/// the store fails and 4 when a read fails, so the parent tells a clear error from a crash, a
/// hang or wrong data, and a refused open from damage found while reading an open store.
struct TortureDamageChildCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "damage-child",
        abstract: "Print every object of a store (run by 'torture damage').",
        shouldDisplay: false
    )

    /// The exit status for a store whose opening failed with a `CoreStoreError`.
    static let refusedStatus: Int32 = 3
    /// The exit status for an open store whose reading failed with a `CoreStoreError`.
    static let refusedWhileReadingStatus: Int32 = 4

    @Option(help: "The store kind.")
    var backend: TortureBackend

    @Option(help: "The store's file or directory.")
    var path: String

    func run() async throws {
        CoreStoreDefaults.logger = DefaultLogger(minimumLevel: .fatal)
        let stack = CommitTortureModel.stack()
        do {
            try stack.addStorageAndWait(backend.makeStore(at: URL(fileURLWithPath: path), durability: .full, verifying: true))
        } catch {
            FileHandle.standardError.write(Data("\(error)\n".utf8))
            throw ExitCode(Self.refusedStatus)
        }
        do {
            for line in try Self.dump(stack) { print(line) }
            print("end")
        } catch {
            FileHandle.standardError.write(Data("\(error)\n".utf8))
            throw ExitCode(Self.refusedWhileReadingStatus)
        }
    }

    /// Every object of the store `stack` holds, as lines in a fixed order.
    static func dump(_ stack: DataStack) throws -> [String] {
        typealias Model = CommitTortureModel
        var lines: [String] = []
        for account in try stack.fetchAll(From<Model.Account>().orderBy(.ascending(\.$number))) {
            lines.append("account \(account.number) \(account.balance)")
        }
        for commit in try stack.fetchAll(From<Model.Commit>().orderBy(.ascending(\.$serial))) {
            lines.append("commit \(commit.serial) \(commit.noteCount) \(commit.notes.map(\.text).sorted())")
            // Through the indexes: the note index and the unique serial.
            let indexed = try stack.fetchCount(From<Model.Note>().where(\.$serial == commit.serial))
            let unique = try stack.fetchCount(From<Model.Commit>().where(\.$serial == commit.serial))
            lines.append("indexed \(commit.serial) \(indexed) \(unique)")
        }
        for note in try stack.fetchAll(From<Model.Note>().orderBy(.ascending(\.$serial), .ascending(\.$text))) {
            lines.append("note \(note.serial) \(note.text) \(note.commit?.serial ?? -1)")
        }
        lines.append("counts \(try stack.fetchCount(From<Model.Account>())) \(try stack.fetchCount(From<Model.Commit>())) \(try stack.fetchCount(From<Model.Note>()))")
        return lines
    }
}
