import Foundation
import Testing
@testable import CoreStore

/// A model whose fields use CoreStore's custom accessors (`ObjectProxy`, `FieldProxy`) and
/// `affectedByKeyPaths`.
final class ProxiedAccount: CoreStoreObject {
    @Field.Stored("title", customGetter: ProxiedAccount.title(_:_:), customSetter: ProxiedAccount.setTitle(_:_:_:))
    var title: String = ""

    @Field.Stored("first") var first: String = ""
    @Field.Stored("last") var last: String = ""

    @Field.Virtual("fullName", customGetter: { (object: ObjectProxy<ProxiedAccount>, _) in
        "\(object.$first.value) \(object.$last.value)"
    }, affectedByKeyPaths: ["first", "last"])
    var fullName: String

    @Field.Virtual("memo", customGetter: { (_: ObjectProxy<ProxiedAccount>, field) in
        field.primitiveValue ?? "none"
    }, customSetter: { (_: ObjectProxy<ProxiedAccount>, field, newValue) in
        field.primitiveValue = newValue
    })
    var memo: String

    @Field.Coded("tags", coder: FieldCoders.Json.self, customSetter: { (_: ObjectProxy<ProxiedAccount>, field, newValue: [String]) in
        field.primitiveValue = newValue.sorted()
    })
    var tags: [String] = []

    @Field.Coded("token", coder: FieldCoders.Json.self, customGetter: { (_: ObjectProxy<ProxiedAccount>, field) in
        (field.primitiveValue ?? "").lowercased()
    }, dynamicInitialValue: { "NEW-TOKEN" })
    var token: String

    @Field.Coded("limits", coder: FieldCoders.Json.self, customSetter: { (_: ObjectProxy<ProxiedAccount>, field, newValue: [String: Int]?) in
        field.primitiveValue = newValue?.filter { $0.value > 0 }
    })
    var limits: [String: Int]?

    @Field.Stored("initials", versionHashModifier: "ignored", affectedByKeyPaths: ["first"])
    var initials: String = ""

    /// Shows the stored title in capitals.
    static func title(_ object: ObjectProxy<ProxiedAccount>, _ field: ObjectProxy<ProxiedAccount>.FieldProxy<String>) -> String {
        (field.primitiveValue ?? "").uppercased()
    }

    /// Stores the title trimmed.
    static func setTitle(_ object: ObjectProxy<ProxiedAccount>, _ field: ObjectProxy<ProxiedAccount>.FieldProxy<String>, _ newValue: String) {
        field.primitiveValue = newValue.trimmingCharacters(in: .whitespaces)
    }
}

@Suite("Custom accessors and affectedByKeyPaths")
struct CustomAccessorTests {
    static func stack(_ kind: StoreKind) throws -> DataStack {
        let stack = DataStack(CoreStoreSchema(modelVersion: "V1", entities: [Entity<ProxiedAccount>("Account")]))
        try stack.addStorageAndWait(kind.makeStore())
        return stack
    }

    static func insertAnn(_ stack: DataStack) throws {
        try stack.perform(synchronous: { t in
            let account = t.create(Into<ProxiedAccount>())
            account.title = "  mrs  "
            account.first = "Ann"
            account.last = "Lee"
            account.tags = ["b", "c", "a"]
        })
    }

    @Test(arguments: StoreKind.allCases)
    func accessorsShapeWhatIsStoredAndWhatIsRead(_ kind: StoreKind) throws {
        let stack = try Self.stack(kind)
        try Self.insertAnn(stack)
        let account = try #require(try stack.fetchOne(From<ProxiedAccount>()))
        #expect(account.title == "MRS")
        #expect(account.tags == ["a", "b", "c"])
        #expect(account.fullName == "Ann Lee")
        // What is stored is what the setter wrote: filters and queries see it.
        #expect(try stack.fetchCount(From<ProxiedAccount>().where(\.$title == "mrs")) == 1)
        #expect(try stack.queryValue(From<ProxiedAccount>().select(String.self, .attribute(\.$title))) == "mrs")
        // A snapshot computes the virtual field from its values.
        #expect(account.asSnapshot(in: stack)?.$fullName == "Ann Lee")
    }

    @Test(arguments: StoreKind.allCases)
    func aVirtualPrimitiveValueStaysInMemoryWithTheObject(_ kind: StoreKind) throws {
        let stack = try Self.stack(kind)
        try Self.insertAnn(stack)
        let transaction = stack.beginUnsafe()
        let account = try #require(try transaction.fetchOne(From<ProxiedAccount>()))
        #expect(account.memo == "none")
        account.memo = "call back"
        #expect(account.memo == "call back")
        #expect(!transaction.hasChanges)
        #expect(try stack.fetchOne(From<ProxiedAccount>())?.memo == "none")
    }

    @Test(arguments: StoreKind.allCases)
    func observersHearAboutTheFieldsAChangeAffects(_ kind: StoreKind) throws {
        let stack = try Self.stack(kind)
        try Self.insertAnn(stack)
        let account = try #require(try stack.fetchOne(From<ProxiedAccount>()))
        let monitor = try stack.monitorObject(account, deliveryQueue: makeDeliveryQueue())
        let recorder = ObjectRecorder<ProxiedAccount> { $0.fullName }
        monitor.addObserver(recorder)
        try stack.perform(synchronous: { t in t.edit(account)?.first = "Anna" })
        try stack.perform(synchronous: { t in t.edit(account)?.last = "Li" })
        try stack.perform(synchronous: { t in t.edit(account)?.tags = ["z"] })
        #expect(recorder.events == [
            "willUpdate Anna Lee", "didUpdate Anna Lee [\"first\", \"fullName\", \"initials\"]",
            "willUpdate Anna Li", "didUpdate Anna Li [\"fullName\", \"last\"]",
            "willUpdate Anna Li", "didUpdate Anna Li [\"tags\"]",
        ])
    }

    @Test(arguments: StoreKind.allCases)
    func dynamicAndOptionalCodedFieldsTakeAccessorsToo(_ kind: StoreKind) throws {
        let stack = try Self.stack(kind)
        try stack.perform(synchronous: { t in
            let account = t.create(Into<ProxiedAccount>())
            account.limits = ["a": 1, "b": 0]
        })
        let account = try #require(try stack.fetchOne(From<ProxiedAccount>()))
        #expect(account.token == "new-token")
        #expect(account.limits == ["a": 1])
        try stack.perform(synchronous: { t in t.edit(account)?.limits = nil })
        #expect(account.limits == nil)
    }

    @Test func aMetaInstanceReadsInitialValues() {
        let meta = ProxiedAccount(asMeta: ())
        #expect(meta.title == "")
        #expect(meta.tags == [])
    }
}
