import Foundation
import CoreStoreStorage

/// What makes a directory one key-value engine's store, for ``DirectoryEngineShell``: the file
/// whose presence says "this is my store" and whose first bytes prove it, the files the engine
/// may write before it, and how the engine deletes its files.
///
/// From this description the shell decides, without writing anything, whether a directory may
/// be opened (``inspect(_:)``). That must come first: LMDB and LevelDB create lock and log
/// files as soon as they open a directory, before they notice it is not theirs.
///
/// ```swift
/// struct MyFormat: DirectoryStoreFormat {
///     let storeKind = "MyEngine store"
///     let signatureFileName = "data"
///     let companionFileNames: Set<String> = ["lock"]
///     func checkSignature(of file: URL) throws {
///         guard try readPrefix(of: file, count: 4) == Array("MINE".utf8) else {
///             throw StorageError.incompatibleStore(path: file.path, reason: "it is not a MyEngine data file")
///         }
///     }
/// }
/// ```
///
/// ## Implementation requirements
/// 1. ``checkSignature(of:)`` only reads. It throws `StorageError/incompatibleStore(path:reason:)`
///    for a file the engine cannot open safely (foreign, damaged, truncated, of a newer format)
///    and returns for anything the engine opens or repairs itself (for example the empty file an
///    interrupted creation leaves).
/// 2. ``companionFileNames`` names only files the engine itself writes: a directory holding
///    anything else and no signature file is not the engine's.
/// 3. ``deleteStoreFiles(in:)`` deletes the engine's files and nothing else, and throws a
///    `StorageError` when it cannot.
public protocol DirectoryStoreFormat: Sendable {
    /// What a store is called in messages, such as "LMDB environment".
    var storeKind: String { get }

    /// The file every store of this format holds, and that proves it: `data.mdb`, `CURRENT`.
    var signatureFileName: String { get }

    /// The other files the engine writes, possibly before the signature file (a lock, a log): a
    /// directory holding only these is an interrupted creation, opened as a new store.
    var companionFileNames: Set<String> { get }

    /// Throws `StorageError/incompatibleStore(path:reason:)` unless the engine can open the
    /// signature file `file` (a regular file). Reads only.
    func checkSignature(of file: URL) throws

    /// Deletes the store's files in `directory`; by default the signature and companion files.
    /// The shell then removes the directory when it is left empty.
    func deleteStoreFiles(in directory: URL) throws
}

/// What ``DirectoryStoreFormat/inspect(_:)`` found.
public enum DirectoryStoreContents: Sendable, Equatable {
    /// Nothing there yet: no directory, an empty one, or only companion files. The engine
    /// creates its store there.
    case absent
    /// A store of this format, as far as the signature check can tell.
    case store
}

extension DirectoryStoreFormat {
    /// Decides, without writing anything, what `directory` holds. Throws
    /// `StorageError/incompatibleStore(path:reason:)` when it is a file, cannot be listed,
    /// holds other files and no signature file, or holds a signature file that is not a regular
    /// file or fails ``checkSignature(of:)``.
    public func inspect(_ directory: URL) throws -> DirectoryStoreContents {
        let path = directory.path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return .absent }
        guard isDirectory.boolValue else {
            throw StorageError.incompatibleStore(path: path, reason: "it is a file where the \(storeKind) directory should be")
        }
        let entries: [String]
        do {
            entries = try FileManager.default.contentsOfDirectory(atPath: path)
        } catch {
            throw StorageError.incompatibleStore(path: path, reason: "the directory cannot be listed (\(error.localizedDescription))")
        }
        guard entries.contains(signatureFileName) else {
            guard entries.allSatisfy(companionFileNames.contains) else {
                throw StorageError.incompatibleStore(path: path, reason: "the directory holds other files and no \(storeKind) file (\(signatureFileName))")
            }
            return .absent
        }
        let signature = directory.appendingPathComponent(signatureFileName, isDirectory: false)
        let type = (try? FileManager.default.attributesOfItem(atPath: signature.path))?[.type] as? FileAttributeType
        guard type == .typeRegular else {
            throw StorageError.incompatibleStore(path: signature.path, reason: "\(signatureFileName) is not a regular file")
        }
        try checkSignature(of: signature)
        return .store
    }

    /// Deletes the signature file and the companion files that exist in `directory`.
    public func deleteStoreFiles(in directory: URL) throws {
        try deleteFiles(named: [signatureFileName] + companionFileNames.sorted(), in: directory)
    }

    /// Deletes the files `names` that exist in `directory`, for ``deleteStoreFiles(in:)``;
    /// throws `StorageError/engine(code:message:)` when one cannot be deleted.
    public func deleteFiles(named names: [String], in directory: URL) throws {
        for name in names {
            let url = directory.appendingPathComponent(name, isDirectory: false)
            guard FileManager.default.fileExists(atPath: url.path) else { continue }
            do {
                try FileManager.default.removeItem(at: url)
            } catch {
                throw StorageError.engine(code: Int(EIO), message: "cannot delete \(url.path): \(error.localizedDescription)")
            }
        }
    }

    /// The first `count` bytes of `file` (fewer when it is shorter), for
    /// ``checkSignature(of:)``. An unreadable file throws
    /// `StorageError/incompatibleStore(path:reason:)`.
    public func readPrefix(of file: URL, count: Int) throws -> [UInt8] {
        do {
            let handle = try FileHandle(forReadingFrom: file)
            defer { try? handle.close() }
            return [UInt8](try handle.read(upToCount: count) ?? Data())
        } catch {
            throw StorageError.incompatibleStore(path: file.path, reason: "\(file.lastPathComponent) cannot be read (\(error.localizedDescription))")
        }
    }
}
