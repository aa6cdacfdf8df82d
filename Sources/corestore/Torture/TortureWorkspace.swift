import Foundation

/// The temporary directory of a torture run: the seeded template store and one copy per run.
struct TortureWorkspace {
    let backend: TortureBackend
    /// The directory holding everything.
    let root: URL

    /// The directory of the seeded V1 store every run copies.
    var template: URL { root.appendingPathComponent("template", isDirectory: true) }

    /// Makes a new directory inside `parent`.
    init(backend: TortureBackend, parent: URL) throws {
        self.backend = backend
        self.root = parent.appendingPathComponent("corestore-torture-\(backend.rawValue)-\(UUID().uuidString.prefix(8))", isDirectory: true)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    /// Seeds the template store with `ledger` at V1 and closes it.
    func seedTemplate(with ledger: TortureLedger) throws {
        try FileManager.default.createDirectory(at: template, withIntermediateDirectories: true)
        let stack = TortureStacks.v1()
        try stack.addStorageAndWait(backend.makeStore(at: backend.storeURL(in: template), migration: nil))
        try ledger.seed(into: stack)
    }

    /// A fresh copy of the template in the directory `name`.
    func copyOfTemplate(named name: String) throws -> URL {
        let directory = root.appendingPathComponent(name, isDirectory: true)
        try FileManager.default.copyItem(at: template, to: directory)
        return directory
    }

    /// Deletes `directory` (a copy), ignoring errors.
    func remove(_ directory: URL) {
        try? FileManager.default.removeItem(at: directory)
    }

    /// Deletes everything.
    func remove() {
        try? FileManager.default.removeItem(at: root)
    }
}
