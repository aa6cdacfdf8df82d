import ArgumentParser
import CoreStore
import CoreStoreStorage
import Foundation

/// `corestore check PATH`: verifies a store and exits non-zero when anything is wrong.
struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Verify a store: records, relationships, unique constraints, indexes, files.",
        discussion: """
            Through the storage contract, on every backend: every object reads back with its \
            entity's shape; every relationship points to objects that exist, of its destination \
            entity, whose inverse points back; unique constraints hold; each entity's count is \
            the number of objects read. Then the backend's own check: on LMDB and LevelDB every \
            record has its index entries and every index entry belongs to a record with those \
            values (with their checksums; LMDB's pages are walked before opening); on SQLite, \
            PRAGMA integrity_check.

            Prints each problem on a line and a summary; exits with 1 when there is any problem, \
            2 when the store cannot be opened. Reads only.

            Examples:
              corestore check App.sqlite
              corestore check Library.lmdb --max-problems 10
            """
    )

    @Argument(help: "The store's file (SQLite) or directory (LMDB, LevelDB).")
    var path: String

    @Option(help: "The backend, when the files should not decide: \(StoreBackend.allCases.map(\.rawValue).joined(separator: ", ")).")
    var backend: StoreBackend?

    @Option(help: "Print at most this many problems (all are counted).")
    var maxProblems = 100

    @Flag(help: "Print only the problems and the summary line.")
    var quiet = false

    func run() throws {
        let store: OpenedStore
        let schema: StoreSchema
        do {
            store = try OpenedStore.open(path: path, backend: backend, verifying: true, toolAction: "check it")
            schema = try store.requireSchema()
        } catch {
            FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
            throw ExitCode(2)
        }
        var printed = 0
        var problems = 0
        func report(_ line: String) {
            problems += 1
            guard printed < maxProblems else { return }
            printed += 1
            print("problem: \(line)")
        }
        let summary: StoreIntegrityCheck.Summary
        do {
            let total = try store.read { try EntityPages.total(schema, $0) }
            let progress = ProgressReporter("check", total: total, quiet: quiet)
            defer { progress.finish() }
            summary = try StoreIntegrityCheck(schema: schema).run(on: store.storage, problem: report, progress: progress.update)
        } catch {
            throw StoreToolError("checking \(path) failed: \(error)")
        }
        var engineLooked = 0
        if let checking = store.storage as? any StorageIntegrityChecking {
            do {
                engineLooked = try checking.checkIntegrity(report)
            } catch {
                report("the \(store.backend.rawValue) check could not run: \(error)")
            }
        }
        if problems > printed { print("… \(problems - printed) more problems not shown (--max-problems)") }
        let objects = summary.objects.values.reduce(0, +)
        if !quiet {
            for entity in schema.entities where !entity.isAbstract {
                let count = summary.objects[entity.name] ?? 0
                print("\(entity.name): \(count.formatted) object\(count == 1 ? "" : "s")")
            }
        }
        print("\(problems == 0 ? "OK" : "FAILED"): \(path): \(objects.formatted) objects, \(summary.destinations.formatted) relationship destinations, \(engineLooked.formatted) \(store.backend == .sqlite ? "integrity_check lines" : "records and index entries") checked; \(problems) problem\(problems == 1 ? "" : "s")")
        if problems > 0 { throw ExitCode(1) }
    }
}
