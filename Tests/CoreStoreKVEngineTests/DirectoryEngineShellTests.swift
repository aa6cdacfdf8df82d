import Dispatch
import Foundation
import Testing
import CoreStoreKeyValue
import CoreStoreStorage

/// A format whose signature file `data` must start with "TEST"; `lock` may come first.
private struct TestFormat: DirectoryStoreFormat {
    let storeKind = "test store"
    let signatureFileName = "data"
    let companionFileNames: Set<String> = ["lock"]

    func checkSignature(of file: URL) throws {
        guard try readPrefix(of: file, count: 4) == Array("TEST".utf8) else {
            throw StorageError.incompatibleStore(path: file.path, reason: "not a test store")
        }
    }
}

/// A connection that writes the signature on creation and counts its closes.
private final class TestConnection: KeyValueEngineConnection, @unchecked Sendable {
    let creating: Bool
    let closes = Locked(0)

    init(directory: URL, creating: Bool) throws {
        self.creating = creating
        if creating {
            try Data("TEST".utf8).write(to: directory.appendingPathComponent("data"))
            try Data().write(to: directory.appendingPathComponent("lock"))
        }
    }

    func close() { closes.withValue { $0 += 1 } }
}

@Suite("DirectoryEngineShell: the lifecycle of a directory engine")
struct DirectoryEngineShellTests {
    private func shell(_ url: URL) -> DirectoryEngineShell<TestConnection> {
        DirectoryEngineShell(directoryURL: url, engineName: "TestEngine", format: TestFormat())
    }

    private func open(_ shell: DirectoryEngineShell<TestConnection>) throws {
        try shell.open { creating in try TestConnection(directory: shell.directoryURL, creating: creating) }
    }

    @Test func aMissingDirectoryIsCreatedAndAnExistingStoreIsOpenedAsIs() throws {
        try withTemporaryStore { url in
            let shell = shell(url)
            try open(shell)
            #expect(try shell.transaction { $0.creating })
            try open(shell)
            let first = try shell.transaction { $0 }
            #expect(shell.storeDescription == "TestEngine(\(url.standardizedFileURL.path))")
            shell.close()
            #expect(first.closes.withValue { $0 } == 1)
            try open(shell)
            #expect(try shell.transaction { $0.creating } == false)
            shell.close()
        }
    }

    @Test func aDirectoryHoldingOnlyCompanionFilesIsAnInterruptedCreation() throws {
        try withTemporaryStore { url in
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            try Data().write(to: url.appendingPathComponent("lock"))
            #expect(try TestFormat().inspect(url) == .absent)
            let shell = shell(url)
            try open(shell)
            defer { shell.close() }
            #expect(try shell.transaction { $0.creating })
        }
    }

    @Test func aClosedShellThrowsNotOpen() throws {
        try withTemporaryStore { url in
            let shell = shell(url)
            #expect(throws: StorageError.notOpen(store: shell.storeDescription)) { try shell.transaction { _ in 0 } }
            try open(shell)
            shell.close()
            #expect(throws: StorageError.notOpen(store: shell.storeDescription)) { try shell.transaction { _ in 0 } }
            #expect(throws: StorageError.notOpen(store: shell.storeDescription)) { try shell.exclusive { _ in 0 } }
            shell.close()
        }
    }

    @Test func closeWaitsForTheTransactionInProgress() throws {
        try withTemporaryStore { url in
            let shell = shell(url)
            try open(shell)
            let connection = try shell.transaction { $0 }
            let entered = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            let closedInside = Locked<Int?>(nil)
            let group = DispatchGroup()
            DispatchQueue.global().async(group: group) {
                _ = try? shell.transaction { connection in
                    entered.signal()
                    release.wait()
                    closedInside.withValue { $0 = connection.closes.withValue { $0 } }
                }
            }
            entered.wait()
            DispatchQueue.global().async(group: group) { shell.close() }
            Thread.sleep(forTimeInterval: 0.05)
            release.signal()
            group.wait()
            #expect(closedInside.withValue { $0 } == 0)
            #expect(connection.closes.withValue { $0 } == 1)
        }
    }

    @Test func releasingAnOpenShellClosesItsConnection() throws {
        try withTemporaryStore { url in
            var shell: DirectoryEngineShell<TestConnection>? = shell(url)
            try open(try #require(shell))
            let connection = try #require(shell).transaction { $0 }
            shell = nil
            #expect(connection.closes.withValue { $0 } == 1)
        }
    }

    @Test func destroyDeletesTheStoreFilesAndTheEmptyDirectory() throws {
        try withTemporaryStore { url in
            let shell = shell(url)
            try open(shell)
            try shell.destroy()
            #expect(!FileManager.default.fileExists(atPath: url.path))
            try shell.destroy()
        }
    }

    @Test func destroyKeepsTheDirectoryWhenOtherFilesAreLeft() throws {
        try withTemporaryStore { url in
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            let shell = shell(url)
            try open(shell)
            shell.close()
            try FileManager.default.createDirectory(at: url.appendingPathComponent("backups"), withIntermediateDirectories: false)
            try shell.destroy()
            #expect(try FileManager.default.contentsOfDirectory(atPath: url.path) == ["backups"])
        }
    }

    @Test func aForeignDirectoryIsRefusedAndUntouchedByOpenAndDestroy() throws {
        try withTemporaryStore { url in
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            try Data("notes".utf8).write(to: url.appendingPathComponent("notes.txt"))
            try Data().write(to: url.appendingPathComponent("lock"))
            try expectShellRefuses(shell(url), at: url)
        }
    }

    @Test func aSignatureFileThatFailsTheCheckIsRefusedAndUntouched() throws {
        try withTemporaryStore { url in
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            try Data("NOPE, something else".utf8).write(to: url.appendingPathComponent("data"))
            try expectShellRefuses(shell(url), at: url)
        }
    }

    @Test func aSignatureThatIsADirectoryIsRefusedAndUntouched() throws {
        try withTemporaryStore { url in
            try FileManager.default.createDirectory(at: url.appendingPathComponent("data"), withIntermediateDirectories: true)
            try expectShellRefuses(shell(url), at: url)
        }
    }

    @Test func aFileInPlaceOfTheDirectoryIsRefusedAndUntouched() throws {
        try withTemporaryStore { url in
            try Data("TEST".utf8).write(to: url)
            try expectShellRefuses(shell(url), at: url)
        }
    }

    /// `open` and `destroy` both throw `incompatibleStore`, `connect` is never called, and the
    /// files are byte-for-byte what they were.
    private func expectShellRefuses(_ shell: DirectoryEngineShell<TestConnection>, at url: URL, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let before = try snapshotOfFiles(at: url)
        do {
            try shell.open { _ in
                Issue.record("connected to a directory that is not a test store", sourceLocation: sourceLocation)
                throw StorageError.invalidRequest("unreachable")
            }
            Issue.record("opened a directory that is not a test store", sourceLocation: sourceLocation)
        } catch {
            #expect(isIncompatibleStore(error), "\(error)", sourceLocation: sourceLocation)
        }
        do {
            try shell.destroy()
            Issue.record("destroyed a directory that is not a test store", sourceLocation: sourceLocation)
        } catch {
            #expect(isIncompatibleStore(error), "\(error)", sourceLocation: sourceLocation)
        }
        #expect(try snapshotOfFiles(at: url) == before, sourceLocation: sourceLocation)
    }
}
