import Foundation
import Testing
@testable import CoreStore

struct CodedSettings: Codable, Equatable {
    var theme: String
    var fontSize: Double
    var flags: [String: Bool]
}

/// An `NSCoding` class of the app's own, as CoreStore users archive them.
final class CodedBadge: NSObject, NSCoding {
    let title: String
    let level: Int

    init(title: String, level: Int) {
        self.title = title
        self.level = level
    }

    required init?(coder: NSCoder) {
        guard let title = coder.decodeObject(forKey: "title") as? String else { return nil }
        self.title = title
        self.level = coder.decodeInteger(forKey: "level")
    }

    func encode(with coder: NSCoder) {
        coder.encode(title as NSString, forKey: "title")
        coder.encode(level, forKey: "level")
    }
}

enum CodedCounter {
    nonisolated(unsafe) static var made = 0
}

final class CodedThing: CoreStoreObject {
    @Field.Stored("name") var name: String = ""
    @Field.Coded("settings", coder: FieldCoders.Plist.self) var settings: CodedSettings = CodedSettings(theme: "light", fontSize: 12, flags: [:])
    @Field.Coded("optionalSettings", coder: FieldCoders.Json.self) var optionalSettings: CodedSettings?
    @Field.Coded("badge", coder: FieldCoders.NSCoding.self) var badge: CodedBadge?
    @Field.Coded("list", coder: FieldCoders.DefaultNSSecureCoding.self) var list: NSArray = NSArray()
    @Field.Coded("shout", coder: (encode: { Data($0.uppercased().utf8) }, decode: { $0.map { String(decoding: $0, as: UTF8.self) } ?? "(none)" })) var shout: String = "hi"
    @Field.Coded("token", coder: FieldCoders.Json.self, dynamicInitialValue: { CodedCounter.made += 1; return "token-\(CodedCounter.made)" }) var token: String
}

/// ``FieldCoders`` and the `Field.Coded` forms CoreStore declares, stored and read back on
/// every backend.
@Suite("Coded fields", .serialized)
struct FieldCodersTests {
    static let schema = CoreStoreSchema(modelVersion: "V1", entities: [Entity<CodedThing>("Thing")])

    @Test("Plist, JSON, NSCoding and NSSecureCoding values and closure coders round-trip; nil stays nil", arguments: StoreKind.allCases)
    func roundTrips(kind: StoreKind) throws {
        let stack = DataStack(Self.schema)
        try stack.addStorageAndWait(kind.makeStore())
        try stack.perform(synchronous: { t in
            let fresh = t.create(Into<CodedThing>())
            fresh.name = "fresh"
            let full = t.create(Into<CodedThing>())
            full.name = "full"
            full.settings = CodedSettings(theme: "dark", fontSize: 14.5, flags: ["beta": true])
            full.optionalSettings = CodedSettings(theme: "x", fontSize: 1, flags: [:])
            full.badge = CodedBadge(title: "Gold", level: 3)
            full.list = ["a", 1, 2.5] as NSArray
            full.shout = "hey"
        })
        let things = try stack.fetchAll(From<CodedThing>().orderBy(.ascending(\.$name)))
        let (fresh, full) = (things[0], things[1])
        #expect(fresh.settings == CodedSettings(theme: "light", fontSize: 12, flags: [:]))
        #expect(fresh.optionalSettings == nil && fresh.badge == nil)
        #expect(fresh.list.count == 0)
        #expect(fresh.shout == "HI", "the initial value goes through the encoder")
        #expect(full.settings == CodedSettings(theme: "dark", fontSize: 14.5, flags: ["beta": true]))
        #expect(full.optionalSettings?.theme == "x")
        #expect(full.badge?.title == "Gold" && full.badge?.level == 3)
        #expect(full.list == (["a", 1, 2.5] as NSArray))
        #expect(full.shout == "HEY")
        #expect(fresh.token.hasPrefix("token-") && full.token.hasPrefix("token-") && fresh.token != full.token)

        try stack.perform(synchronous: { t in
            let editable = try #require(t.edit(full))
            editable.optionalSettings = nil
            editable.badge = nil
        })
        #expect(full.optionalSettings == nil && full.badge == nil, "nil is stored as nothing")
    }

    @Test("The coders' own contract: nil encodes to nothing, nothing and garbage decode to nil")
    func coderContract() {
        #expect(FieldCoders.Plist<CodedSettings>.encodeToStoredData(nil) == nil)
        #expect(FieldCoders.Plist<CodedSettings>.decodeFromStoredData(nil) == nil)
        #expect(FieldCoders.Plist<CodedSettings>.decodeFromStoredData(Data("not a plist".utf8)) == nil)
        #expect(FieldCoders.Json<[Int]>.decodeFromStoredData(Data("{".utf8)) == nil)
        #expect(FieldCoders.NSCoding<CodedBadge>.decodeFromStoredData(Data([1, 2, 3])) == nil)
        #expect(FieldCoders.DefaultNSSecureCoding<NSString>.decodeFromStoredData(FieldCoders.DefaultNSSecureCoding<NSNumber>.encodeToStoredData(7)) == nil,
                "a secure decoder refuses another class")
        let plist = FieldCoders.Plist<[String]>.encodeToStoredData(["a"])
        #expect(plist.map { Array($0.prefix(6)) } == Array("bplist".utf8), "binary property lists")
    }
}
