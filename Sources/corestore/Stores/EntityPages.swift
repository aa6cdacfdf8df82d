import CoreStoreStorage

/// Reads every object of one entity a page at a time (``StorageReader/forEachPage(of:pageSize:_:)``),
/// hands each page to `visit` and returns what the entity holds.
enum EntityPages {
    static func read(_ entity: EntityDescription, from reader: any StorageReader, pageSize: Int, _ visit: ([Record]) throws -> Void = { _ in }) throws -> EntityContent {
        var content = EntityContent()
        try reader.forEachPage(of: entity.name, pageSize: pageSize) { page in
            for record in page { content.digest.add(DumpCommand.json(record, entity)) }
            content.objects += page.count
            try visit(page)
        }
        return content
    }

    /// The number of objects of every concrete entity, for a progress bar.
    static func total(_ schema: StoreSchema, _ reader: any StorageReader) throws -> Int {
        try schema.entities.filter { !$0.isAbstract }.reduce(0) { sum, entity in
            sum + (try reader.count(FetchRequest(entity: entity.name, includesSubentities: false)))
        }
    }
}
