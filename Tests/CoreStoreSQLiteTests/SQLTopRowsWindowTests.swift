import Foundation
import Testing
import CoreStoreSQL
import CoreStoreStorage

/// Limited sorted fetches whose ties the reader breaks (`SQLTopRowsWindow`): the window it
/// keeps from rows sorted without the key tie-break, and when it refuses one.
@Suite("SQL top rows without the key tie-break")
struct SQLTopRowsWindowTests {
    static let itemAttributes = [
        AttributeDescription(name: "rank", type: .integer, isOptional: true),
        AttributeDescription(name: "label", type: .string, isOptional: true),
    ]
    static let schema = StoreSchema(modelVersion: "T1", schemaHash: "T1", entities: [
        EntityDescription(name: "Item", attributes: itemAttributes),
        EntityDescription(name: "Special", parentName: "Item", attributes: itemAttributes + [
            AttributeDescription(name: "extra", type: .integer, isOptional: true),
        ]),
    ])

    /// A record of `entity` with `key`, ranked `rank`; a `Special` also holds `extra`.
    static func item(_ key: Int64, _ rank: Int64?, _ entity: String = "Item") -> Record {
        let rankValue = rank.map(Value.int) ?? .null
        let attributes: [Value] = entity == "Item" ? [rankValue, .string("k\(key)")] : [rankValue, .string("k\(key)"), .int(0)]
        return Record(id: RecordID(entity: entity, key: key), attributes: attributes, relationships: [])
    }

    static func request(limit: Int?, offset: Int = 0, ascending: Bool = true) -> FetchRequest {
        FetchRequest(entity: "Item", sortDescriptors: [RecordSortDescriptor(key: "rank", ascending: ascending)], limit: limit, offset: offset)
    }

    @Test("Widens the window by a row on each side and reads every row whole")
    func widening() throws {
        var asked = Self.request(limit: 3, offset: 5)
        asked.knownRecords.insert(1)
        let window = try #require(SQLTopRowsWindow(asked, memory: SQLSortTieMemory()))
        #expect(window.widened.offset == 4 && window.widened.limit == 5 && window.widened.knownRecords.isEmpty)
        let first = try #require(SQLTopRowsWindow(Self.request(limit: 3), memory: SQLSortTieMemory()))
        #expect(first.widened.offset == 0 && first.widened.limit == 4)
    }

    @Test("Not used without a memory, sort keys or limit, for limit 0 or a large limit, or for a sort that tied",
          arguments: [
            (Self.request(limit: nil), true),
            (FetchRequest(entity: "Item", limit: 3), true),
            (Self.request(limit: 0), true),
            (Self.request(limit: SQLTopRowsWindow.maximumLimit + 1), true),
            (Self.request(limit: SQLTopRowsWindow.maximumLimit), false),
          ])
    func applicability(request: FetchRequest, refused: Bool) {
        #expect((SQLTopRowsWindow(request, memory: SQLSortTieMemory()) == nil) == refused)
        #expect(SQLTopRowsWindow(request, memory: nil) == nil)
    }

    @Test("Keeps the window, with tied records inside it in key order")
    func tiesInside() throws {
        let window = try #require(SQLTopRowsWindow(Self.request(limit: 4, offset: 1), memory: SQLSortTieMemory()))
        // As the database may return them: sorted by rank, ties in any order.
        let rows = [Self.item(9, 1), Self.item(7, 2), Self.item(3, 2), Self.item(5, 2, "Special"), Self.item(1, 3), Self.item(2, 4)]
        let kept = try #require(try window.window(of: rows, schema: Self.schema))
        #expect(kept.map(\.id.key) == [3, 5, 7, 1])
    }

    @Test("Refuses a window whose first row ties with the row before it, or whose last ties with the row after it",
          arguments: [
            // (offset, ranks of the rows returned): the tie at an edge decides which keys are in.
            (1, [Int64?]([2, 2, 3, 4, 5])),
            (0, [1, 2, 3, 3]),
            (1, [1, 2, 3, 4, 4]),
            (2, [nil, nil, 1, 2, 3]),
          ])
    func tiesAtEdges(offset: Int, ranks: [Int64?]) throws {
        let window = try #require(SQLTopRowsWindow(Self.request(limit: 3, offset: offset), memory: SQLSortTieMemory()))
        let rows = ranks.enumerated().map { Self.item(Int64(10 - $0.offset), $0.element) }
        #expect(try window.window(of: rows, schema: Self.schema) == nil)
    }

    @Test("A short result: the rows there are, or none past the end")
    func shortResults() throws {
        let window = try #require(SQLTopRowsWindow(Self.request(limit: 3, offset: 2), memory: SQLSortTieMemory()))
        #expect(try window.window(of: [], schema: Self.schema)?.isEmpty == true)
        #expect(try window.window(of: [Self.item(1, 1)], schema: Self.schema)?.isEmpty == true)
        let two = try window.window(of: [Self.item(1, 1), Self.item(4, 2), Self.item(3, 2)], schema: Self.schema)
        #expect(two?.map(\.id.key) == [3, 4])
    }

    @Test("The memory remembers a sort by entity, keys and directions, and starts over when full")
    func memory() throws {
        let memory = SQLSortTieMemory()
        let ascending = Self.request(limit: 3)
        let window = try #require(SQLTopRowsWindow(ascending, memory: memory))
        window.noteTie(in: memory)
        #expect(SQLTopRowsWindow(ascending, memory: memory) == nil)
        #expect(SQLTopRowsWindow(Self.request(limit: 3, ascending: false), memory: memory) != nil)
        var other = ascending
        other.entity = "Special"
        #expect(SQLTopRowsWindow(other, memory: memory) != nil)
        for i in 0..<SQLSortTieMemory.capacity {
            memory.noteTie("E\(i)", ascending.sortDescriptors)
        }
        #expect(SQLTopRowsWindow(ascending, memory: memory) != nil, "the memory started over")
    }
}
