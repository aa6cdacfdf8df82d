import Testing
import CoreStoreStorage
@testable import CoreStoreKeyValue

/// A fetch told which records the asker holds (``FetchRequest/knownRecords``) answers those by
/// identifier alone (their values are not decoded) and every other record whole, in the same
/// order as without the hint, on every kind of plan.
@Suite("Fetches that skip known records")
struct KnownRecordsFetchTests {
    private static let people = (1...60).map { key in
        KV.person(-Int64(key), "p\(key)", age: Int64(key % 5), email: "p\(key)@x", score: Double(key))
    }

    @Test("Known records come back by identifier, the others whole", arguments: [
        FetchRequest(entity: "Person"),
        FetchRequest(entity: "Person", predicate: .comparison(Comparison("age", .equal, .int(2)))),
        FetchRequest(entity: "Person", predicate: .comparison(Comparison("age", .equal, .int(2))), limit: 5, offset: 2),
        FetchRequest(entity: "Person", sortDescriptors: [RecordSortDescriptor(key: "name", ascending: false)], limit: 7),
        FetchRequest(entity: "Person", sortDescriptors: [RecordSortDescriptor(key: "score", ascending: false)]),
        FetchRequest(entity: "Pet"),
        FetchRequest(entity: "Pet", sortDescriptors: [RecordSortDescriptor(key: "name", ascending: true)]),
    ])
    func knownRecordsByIdentifier(_ request: FetchRequest) throws {
        let storage = try KV.openStore()
        let info = try storage.write(ChangeSet(inserts: Self.people + [KV.pet(-100, "rex", tag: 1), KV.dog(-101, "fido", tag: 2, breed: "collie")]))
        let whole = try storage.read { try $0.fetch(request) }
        #expect(whole.pending.isEmpty)
        #expect(!whole.records.isEmpty)
        var known = KnownRecordKeys()
        for key in info.permanentIDs.values.map(\.key) where key % 2 == 0 { known.insert(key) }
        var hinted = request
        hinted.knownRecords = known
        let answer = try storage.read { try $0.fetch(hinted) }
        #expect(answer.pending.isEmpty)
        #expect(answer.records.map(\.id) == whole.records.map(\.id))
        for (record, expected) in zip(answer.records, whole.records) {
            if known.contains(record.id.key) {
                #expect(record.holdsNoValues, "\(record.id) was decoded")
            } else {
                #expect(record == expected)
            }
        }
        #expect(answer.records.contains { known.contains($0.id.key) })
    }

    /// Requests whose plan is exact (the index ranges are the whole predicate): the held records
    /// are named from the index alone, without reading them.
    static let exactRequests = [
        FetchRequest(entity: "Person", predicate: .comparison(Comparison("age", .equal, .int(3)))),
        FetchRequest(entity: "Person", predicate: .comparison(Comparison(["age"], .in, .list([.int(4), .int(1)]))), limit: 6, offset: 1),
        FetchRequest(entity: "Person", predicate: .and([.comparison(Comparison("age", .greaterOrEqual, .int(1))), .comparison(Comparison("age", .less, .int(4)))]),
                     sortDescriptors: [RecordSortDescriptor(key: "age", ascending: true)], limit: 9, offset: 2),
        FetchRequest(entity: "Person", predicate: .comparison(Comparison("name", .equal, .string("p17")))),
    ]

    @Test("Exact plans name held records from the index and read the others, in the same order", arguments: exactRequests)
    func exactPlansReadOnlyWhatIsNotHeld(_ request: FetchRequest) throws {
        let storage = try KV.openStore()
        let info = try storage.write(ChangeSet(inserts: Self.people))
        #expect(try FetchPlanner(layout: KeyValueLayout(schema: KV.schema)).plan(request).isExact)
        let whole = try storage.read { try $0.fetch(request) }
        #expect(!whole.records.isEmpty)
        // None held, some held, all held.
        let keys = info.permanentIDs.values.map(\.key)
        for holds in [{ (_: Int64) in false }, { (key: Int64) in key % 3 != 0 }, { (_: Int64) in true }] {
            var known = KnownRecordKeys()
            for key in keys where holds(key) { known.insert(key) }
            var hinted = request
            hinted.knownRecords = known
            let answer = try storage.read { try $0.fetch(hinted) }
            #expect(answer.records.map(\.id) == whole.records.map(\.id))
            for (record, expected) in zip(answer.records, whole.records) {
                #expect(known.contains(record.id.key) ? record.holdsNoValues : record == expected, "\(record.id)")
            }
        }
    }
}
