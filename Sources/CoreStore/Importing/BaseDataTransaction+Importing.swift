import CoreStoreStorage

/// Importing: turning outside sources into objects with the mapping the model type declares
/// (``ImportableObject``, ``ImportableUniqueObject``).
///
/// Each import call is all or nothing within the transaction: when a mapper throws, every object
/// the call inserted is dropped, every object it changed gets its previous values back, and the
/// error reaches the caller unchanged (``CoreStoreError/invalidImportSource(entity:sourceIndex:message:)``
/// gains the entity and the source's index). Uncaught, it ends the transaction, which then saves
/// nothing.
extension BaseDataTransaction {
    /// Inserts one object from `source`, unless `O.shouldInsert(from:in:)` declines it.
    ///
    /// Returns the new object, or `nil` when the source was skipped.
    @discardableResult
    public func importObject<O: CoreStoreObject & ImportableObject>(_ into: Into<O>, source: O.ImportSource) throws -> O? {
        try importing(O.self) { () throws -> O? in
            guard O.shouldInsert(from: source, in: self) else { return nil }
            let object = try insertObject(into)
            try atSource(0, of: O.self) { try object.didInsert(from: source, in: self) }
            return object
        }
    }

    /// Fills in an existing object from `source` with its `didInsert(from:in:)` (for an
    /// ``ImportableUniqueObject``, by default its `update(from:in:)`).
    ///
    /// `object` may come from any context of this stack; this transaction's instance is the one
    /// changed. Throws ``CoreStoreError/invalidObject(message:)`` if it does not exist here.
    public func importObject<O: CoreStoreObject & ImportableObject>(_ object: O, source: O.ImportSource) throws {
        try importing(O.self) {
            guard let local = fetchExisting(object) else {
                throw CoreStoreError.invalidObject(message: "importObject(_:source:) was given a \(O.self) that does not exist in this transaction (deleted, or from another DataStack)")
            }
            try atSource(0, of: O.self) { try local.didInsert(from: source, in: self) }
        }
    }

    /// Inserts one object per source, in order, skipping those `O.shouldInsert(from:in:)`
    /// declines. Returns the new objects in the order of their sources.
    @discardableResult
    public func importObjects<O: CoreStoreObject & ImportableObject, S: Sequence>(
        _ into: Into<O>, sourceArray: S
    ) throws -> [O] where S.Element == O.ImportSource {
        try importing(O.self) {
            let (entity, store) = try insertionStore(into)
            var objects: [O] = []
            for (index, source) in sourceArray.enumerated() {
                guard O.shouldInsert(from: source, in: self) else { continue }
                let object = try insertObject(O.self, entity: entity, into: store)
                try atSource(index, of: O.self) { try object.didInsert(from: source, in: self) }
                objects.append(object)
            }
            return objects
        }
    }

    /// Updates the object whose unique ID `source` carries, or inserts it if there is none.
    ///
    /// Returns the object, or `nil` when the source has no ID (`uniqueID(from:in:)` returned
    /// `nil`) or `shouldInsert`/`shouldUpdate` declined it. Uses the same rules as
    /// ``importUniqueObjects(_:sourceArray:preProcess:)``; prefer that one for many sources,
    /// since it looks all of them up at once.
    @discardableResult
    public func importUniqueObject<O: CoreStoreObject & ImportableUniqueObject>(_ into: Into<O>, source: O.ImportSource) throws -> O? {
        try importing(O.self) {
            try UniqueImport(transaction: self, into: into).run([source], preProcess: { $0 }).first
        }
    }

    /// Updates or inserts one object per distinct unique ID among the sources, finding every
    /// existing object with a single lookup.
    ///
    /// The rules, in order:
    /// 1. `O.uniqueID(from:in:)` is asked for every source in order; a `nil` ID skips the
    ///    source. When several sources carry the same ID, the last one is imported, at the
    ///    position where the ID first appeared.
    /// 2. `preProcess` receives the ID → source mapping and returns the one to import: it may
    ///    drop entries or replace sources. IDs it adds come after the payload's, in the order
    ///    of their stored values.
    /// 3. One fetch (`uniqueIDKeyPath IN ids`, an indexed lookup when the field is unique or
    ///    indexed) finds the stored objects; objects inserted or changed earlier in this
    ///    transaction are found too, deleted ones are not. If several objects share an ID, the
    ///    first stored one (then the first inserted) is used.
    /// 4. An existing object is updated with `update(from:in:)` unless `O.shouldUpdate(from:in:)`
    ///    declines; otherwise, unless `O.shouldInsert(from:in:)` declines, a new object gets
    ///    the ID in `uniqueIDValue` and then `didInsert(from:in:)`.
    ///
    /// Returns the imported objects in the order of their IDs, skipped ones left out.
    @discardableResult
    public func importUniqueObjects<O: CoreStoreObject & ImportableUniqueObject, S: Sequence>(
        _ into: Into<O>,
        sourceArray: S,
        preProcess: (_ mapping: [O.UniqueIDType: O.ImportSource]) throws -> [O.UniqueIDType: O.ImportSource] = { $0 }
    ) throws -> [O] where S.Element == O.ImportSource {
        try importing(O.self) {
            try UniqueImport(transaction: self, into: into).run(sourceArray, preProcess: preProcess)
        }
    }

    // MARK: Running an import

    /// Runs one import call all or nothing (see the extension's overview).
    private func importing<O, T>(_ type: O.Type, _ body: () throws -> T) throws -> T {
        guard context.isActive else {
            throw CoreStoreError.transactionMisuse(message: "an import into \(O.self) was started after its transaction ended")
        }
        return try context.allOrNothing(body)
    }

    /// Runs a mapper for the source at `index`, naming the entity and the source in the
    /// framework's own ``CoreStoreError/invalidImportSource(entity:sourceIndex:message:)``.
    func atSource<O: CoreStoreObject, T>(_ index: Int?, of type: O.Type, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch CoreStoreError.invalidImportSource(let entity, let sourceIndex, let message) {
            let name = entity ?? (try? dataStack.entity(for: O.self).name) ?? "\(O.self)"
            throw CoreStoreError.invalidImportSource(entity: name, sourceIndex: sourceIndex ?? index, message: message)
        }
    }
}
