import Foundation

extension DataStack.AsyncNamespace {
    /// Imports one new object in a transaction of its own and commits it.
    ///
    /// Returns the stack's instance of the object (usable like any object fetched from the
    /// stack), or `nil` when `shouldInsert(from:in:)` skipped the source. A mapper's error, or
    /// the commit's, is thrown as ``CoreStoreError/userError(error:)`` or the commit's
    /// ``CoreStoreError``; nothing is saved then.
    @discardableResult
    public func importObject<O: CoreStoreObject & ImportableObject>(
        _ into: Into<O>, source: O.ImportSource
    ) async throws -> sending O? {
        let source = UncheckedBox(source)
        let objects: [O] = try await importInTransaction { transaction in
            let object: O? = try transaction.importObject(into, source: source.value)
            return object.map { [$0] } ?? []
        }
        return objects.first
    }

    /// Updates or inserts the object of `source`'s unique ID in a transaction of its own (see
    /// ``BaseDataTransaction/importUniqueObject(_:source:)``) and commits it.
    ///
    /// Returns the stack's instance of the object, or `nil` when the source was skipped.
    @discardableResult
    public func importUniqueObject<O: CoreStoreObject & ImportableUniqueObject>(
        _ into: Into<O>, source: O.ImportSource
    ) async throws -> sending O? {
        let source = UncheckedBox(source)
        let objects: [O] = try await importInTransaction { transaction in
            let object: O? = try transaction.importUniqueObject(into, source: source.value)
            return object.map { [$0] } ?? []
        }
        return objects.first
    }

    /// Updates or inserts one object per unique ID in a transaction of its own (see
    /// ``BaseDataTransaction/importUniqueObjects(_:sourceArray:preProcess:)``) and commits it.
    ///
    /// Returns the stack's instances of the imported objects, in the order of their IDs.
    @discardableResult
    public func importUniqueObjects<O: CoreStoreObject & ImportableUniqueObject>(
        _ into: Into<O>,
        sourceArray: [O.ImportSource],
        preProcess: @escaping (_ mapping: [O.UniqueIDType: O.ImportSource]) throws -> [O.UniqueIDType: O.ImportSource] = { $0 }
    ) async throws -> sending [O] {
        let sources = UncheckedBox(sourceArray)
        let preProcess = UncheckedBox(preProcess)
        return try await importInTransaction { transaction in
            try transaction.importUniqueObjects(into, sourceArray: sources.value, preProcess: preProcess.value)
        }
    }

    /// Runs `body` in a committed transaction and returns the stack's instances of the objects
    /// it returned (their identifiers are permanent once the commit is done).
    private func importInTransaction<O: CoreStoreObject>(
        _ body: @escaping (AsynchronousDataTransaction) throws -> [O]
    ) async throws -> sending [O] {
        let imported = try await perform { transaction in UncheckedBox(try body(transaction)) }
        let ids = imported.value.compactMap { $0.cs_id() }
        return ids.compactMap { dataStack.fetchExisting($0) as O? }
    }
}
