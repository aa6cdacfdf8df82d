import Foundation
import Testing

/// A store where the process may not write — a directory or files without write permission —
/// is refused with a clear `CoreStoreError` and left exactly as it was, on every durable
/// backend; never a crash. The store is opened by `corestore torture damage-child` in a child
/// process. Run as root, the child runs without the capabilities that let root ignore
/// permissions (`setpriv`, from util-linux), so that the permissions hold for it as for anyone.
@Suite("Stores in places the process cannot write", .serialized)
struct ReadOnlyStoreTests {
    static let backends = ["sqlite", "lmdb", "leveldb"]

    /// The exit status of `damage-child` for a store refused when opening.
    static let refusedStatus: Int32 = 3

    /// `damage-child` on `path`, without the right to write where the permissions say no.
    private static func openWithoutWriteAccess(_ backend: String, _ path: String) throws -> (status: Int32, output: String) {
        let arguments = ["torture", "damage-child", "--backend", backend, "--path", path]
        guard getuid() == 0 else { return try CorestoreExecutable.run(arguments) }
        let setpriv = try #require(["/usr/bin/setpriv", "/bin/setpriv"].first { FileManager.default.isExecutableFile(atPath: $0) }, "setpriv (util-linux) is missing")
        return try CorestoreExecutable.run(arguments, wrapper: [setpriv, "--bounding-set=-dac_override,-dac_read_search,-fowner"])
    }

    private static func storePath(_ backend: String, in directory: URL) -> String {
        directory.appendingPathComponent("store.\(backend)").path
    }

    /// Every file under `directory` with its bytes.
    private static func contents(_ directory: URL) throws -> [String: Data] {
        var result: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: [.isRegularFileKey])
        while let url = enumerator?.nextObject() as? URL {
            if try url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile == true {
                result[url.path] = try Data(contentsOf: url)
            }
        }
        return result
    }

    /// Sets `mode` on `directory` and every directory under it, `fileMode` on every file.
    private static func setPermissions(_ directory: URL, directories mode: Int, files fileMode: Int) throws {
        var items = [directory]
        let enumerator = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: [.isDirectoryKey])
        while let url = enumerator?.nextObject() as? URL { items.append(url) }
        for url in items {
            let isDirectory = try url.resourceValues(forKeys: [.isDirectoryKey]).isDirectory == true
            try FileManager.default.setAttributes([.posixPermissions: isDirectory ? mode : fileMode], ofItemAtPath: url.path)
        }
    }

    private static func workspace() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("corestore-readonly-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test("A new store in a directory without write permission is refused with a clear error", arguments: backends)
    func newStoreInReadOnlyDirectory(backend: String) throws {
        let directory = try Self.workspace()
        defer {
            try? FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory.path)
            try? FileManager.default.removeItem(at: directory)
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: directory.path)
        let (status, output) = try Self.openWithoutWriteAccess(backend, Self.storePath(backend, in: directory))
        #expect(status == Self.refusedStatus, "\(output)")
        #expect(output.contains("CoreStoreError") && output.contains("ermission"), "\(output)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test("An existing store without write permission is refused with a clear error and left as it was", arguments: backends)
    func existingReadOnlyStore(backend: String) throws {
        let directory = try Self.workspace()
        defer {
            try? Self.setPermissions(directory, directories: 0o700, files: 0o600)
            try? FileManager.default.removeItem(at: directory)
        }
        let path = Self.storePath(backend, in: directory)
        // Made with write access: an empty store of the torture model.
        let made = try CorestoreExecutable.run(["torture", "damage-child", "--backend", backend, "--path", path])
        #expect(made.status == 0 && made.output.contains("counts 0 0 0"), "\(made.output)")
        try Self.setPermissions(directory, directories: 0o555, files: 0o444)
        let before = try Self.contents(directory)
        #expect(!before.isEmpty)

        let (status, output) = try Self.openWithoutWriteAccess(backend, path)
        #expect(status == Self.refusedStatus, "\(output)")
        #expect(output.contains("CoreStoreError"), "\(output)")
        #expect(try Self.contents(directory) == before)
    }
}
