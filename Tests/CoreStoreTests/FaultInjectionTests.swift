import Foundation
import Testing
@testable import CoreStore
import CoreStoreKeyValue
import CoreStoreLMDB
import CoreStoreLevelDB

/// Disk faults during a commit, on the key-value engines: every read, write and sync of one
/// commit is made to fail in turn (``FaultInjectingKeyValueStore``). Each time, the commit throws
/// a `CoreStoreError` naming the fault, and nothing changes — not the store on disk (reopened
/// without the wrapper), not what the stack fetches, not what a list monitor shows; once the
/// fault clears the same commit succeeds.
@Suite("Injected disk faults", .serialized)
struct FaultInjectionTests {
    enum Engine: String, CaseIterable, Sendable {
        case lmdb, leveldb, memory

        /// An engine of this kind at `directory` (the memory engine keeps its data in `keep`).
        func make(at directory: URL, keep: MemoryKeyValueStore) -> any OrderedKeyValueStore {
            switch self {
            case .lmdb: LMDBEngine(directoryURL: directory)
            case .leveldb: LevelDBEngine(directoryURL: directory)
            case .memory: keep
            }
        }
    }

    /// The people as the stack fetches them, by name.
    static func people(_ stack: DataStack) throws -> [String] {
        try stack.fetchAll(From<Person>().orderBy(.ascending(\.$name))).map { person in
            "\(person.name) \(person.age) pets:\(person.pets.map(\.name).sorted())"
        }
    }

    static let seeded = ["Ann 30 pets:[\"Fido\"]", "Bob 40 pets:[]"]
    static let afterScenario = ["Ann 31 pets:[\"Fido\"]", "Cara 25 pets:[\"Rex\"]"]

    /// Ann with her dog Fido, and Bob.
    static func seed(_ stack: DataStack) throws {
        try stack.perform(synchronous: { t in
            let ann = t.create(Into<Person>())
            ann.name = "Ann"
            ann.age = 30
            let fido = t.create(Into<Dog>())
            fido.name = "Fido"
            fido.master = ann
            let bob = t.create(Into<Person>())
            bob.name = "Bob"
            bob.age = 40
        })
    }

    /// One commit that inserts, updates, deletes and relates: Cara and her dog Rex arrive, Ann
    /// has a birthday, Bob leaves.
    static func scenario(_ stack: DataStack) throws {
        try stack.perform(synchronous: { t in
            let cara = t.create(Into<Person>())
            cara.name = "Cara"
            cara.age = 25
            let rex = t.create(Into<Dog>())
            rex.name = "Rex"
            rex.master = cara
            try t.fetchOne(From<Person>().where(\.$name == "Ann"))?.age = 31
            t.delete(try t.fetchOne(From<Person>().where(\.$name == "Bob")))
        })
    }

    /// A stack on the engine at `directory`, wrapped to inject faults.
    static func open(_ engine: Engine, at directory: URL, keep: MemoryKeyValueStore) throws -> (DataStack, FaultInjectingKeyValueStore<AnyEngine>) {
        let faulty = FaultInjectingKeyValueStore(base: AnyEngine(engine.make(at: directory, keep: keep)))
        let stack = DataStack(makeSchema())
        try stack.addStorageAndWait(KeyValueStorage(engine: faulty))
        return (stack, faulty)
    }

    /// How many operations of each kind the scenario's commit runs.
    static func probe(_ engine: Engine) throws -> [FaultInjectingKeyValueStore<AnyEngine>.Operation: Int] {
        let directory = try TestStoreFiles.newFile(extension: engine.rawValue)
        let (stack, faulty) = try open(engine, at: directory, keep: MemoryKeyValueStore())
        try seed(stack)
        faulty.resetCounts()
        try scenario(stack)
        let counts = Dictionary(uniqueKeysWithValues: FaultInjectingKeyValueStore<AnyEngine>.Operation.allCases.map { ($0, faulty.count(of: $0)) })
        #expect(try people(stack) == afterScenario)
        return counts
    }

    @Test(arguments: Engine.allCases)
    func everyFaultOfACommitChangesNothing(engine: Engine) throws {
        let counts = try Self.probe(engine)
        #expect(counts[.write, default: 0] > 5 && counts[.commit] == 1 && counts[.read, default: 0] > 2, "\(counts)")
        var faultsInjected = 0
        for operation in FaultInjectingKeyValueStore<AnyEngine>.Operation.allCases {
            for n in 0..<counts[operation, default: 0] {
                let label = "\(engine) \(operation) #\(n + 1)"
                let directory = try TestStoreFiles.newFile(extension: engine.rawValue)
                let memory = MemoryKeyValueStore()
                do {
                    let (stack, faulty) = try Self.open(engine, at: directory, keep: memory)
                    try Self.seed(stack)
                    let queue = makeDeliveryQueue()
                    let monitor = try stack.monitorList(From<Person>().orderBy(.ascending(\.$name)), deliveryQueue: queue)
                    let recorder = ListRecorder<Person> { "\($0.name) \($0.age)" }
                    monitor.addObserver(recorder)
                    let fault: FaultInjectingKeyValueStore<AnyEngine>.Fault = n % 2 == 0 ? .ioError : .noSpace
                    faulty.failNext(operation, after: n, with: fault)
                    do {
                        try Self.scenario(stack)
                        Issue.record("\(label): the commit succeeded")
                    } catch {
                        #expect("\(error)".contains("injected fault"), "\(label): \(error)")
                    }
                    faultsInjected += 1
                    queue.sync {}
                    #expect(try Self.people(stack) == Self.seeded, "\(label)")
                    #expect(recorder.events.isEmpty, "\(label): \(recorder.events)")
                    #expect(monitor.objectsInAllSections().map { "\($0.name) \($0.age)" } == ["Ann 30", "Bob 40"], "\(label)")
                    // The fault is over: the same commit now succeeds, and the monitor hears of it.
                    faulty.clearFaults()
                    try Self.scenario(stack)
                    queue.sync {}
                    #expect(try Self.people(stack) == Self.afterScenario, "\(label)")
                    #expect(recorder.events.first == "willChange" && recorder.events.last == "didChange", "\(label): \(recorder.events)")
                    #expect(monitor.objectsInAllSections().map { "\($0.name) \($0.age)" } == ["Ann 31", "Cara 25"], "\(label)")
                }
                // Reopened without the wrapper, the store holds the retried commit exactly.
                let stack = DataStack(makeSchema())
                try stack.addStorageAndWait(KeyValueStorage(engine: AnyEngine(engine.make(at: directory, keep: memory))))
                #expect(try Self.people(stack) == Self.afterScenario, "\(label): reopened")
            }
        }
        #expect(faultsInjected == counts.values.reduce(0, +))
    }

    @Test(arguments: [Engine.lmdb, .leveldb])
    func aFailedCommitLeavesNothingOnDisk(engine: Engine) throws {
        let directory = try TestStoreFiles.newFile(extension: engine.rawValue)
        do {
            let (stack, faulty) = try Self.open(engine, at: directory, keep: MemoryKeyValueStore())
            try Self.seed(stack)
            faulty.failNext(.commit, with: .noSpace)
            #expect(throws: CoreStoreError.self) { try Self.scenario(stack) }
        }
        let stack = DataStack(makeSchema())
        try stack.addStorageAndWait(KeyValueStorage(engine: AnyEngine(engine.make(at: directory, keep: MemoryKeyValueStore()))))
        #expect(try Self.people(stack) == Self.seeded)
    }
}

extension FaultInjectionTests {
    /// An import of `count` people in one transaction.
    static func importPeople(_ stack: DataStack, count: Int, prefix: String) throws {
        try stack.perform(synchronous: { t in
            for i in 0..<count {
                let person = t.create(Into<Person>())
                person.name = "\(prefix)\(i)"
                person.age = i % 90
                person.nickname = String(repeating: "x", count: 200)
            }
        })
    }

    @Test("A large import that runs out of space, early, midway or at its last write, saves nothing", arguments: Engine.allCases)
    func aLargeImportRunningOutOfSpaceChangesNothing(engine: Engine) throws {
        let directory = try TestStoreFiles.newFile(extension: engine.rawValue)
        let (stack, faulty) = try Self.open(engine, at: directory, keep: MemoryKeyValueStore())
        try Self.seed(stack)
        faulty.resetCounts()
        try Self.importPeople(stack, count: 1_000, prefix: "Probe")
        let writes = faulty.count(of: .write)
        #expect(writes >= 2_000, "each person is a record and index entries: \(writes) writes")
        #expect(try stack.perform(synchronous: { t in try t.deleteAll(From<Person>().where(\.$name > "P")) }) == 1_000)
        for failing in [0, writes / 2, writes - 1] {
            faulty.failNext(.write, after: failing, with: .noSpace)
            #expect(throws: CoreStoreError.self, "write \(failing + 1) of \(writes)") { try Self.importPeople(stack, count: 1_000, prefix: "Import") }
            #expect(try Self.people(stack) == Self.seeded)
            #expect(try stack.fetchCount(From<Person>()) == 2)
        }
        faulty.clearFaults()
        try Self.importPeople(stack, count: 1_000, prefix: "Import")
        #expect(try stack.fetchCount(From<Person>()) == 1_002)
    }

    @Test func anLMDBStoreThatIsFullThrowsChangesNothingAndKeepsWorking() throws {
        let directory = try TestStoreFiles.newFile(extension: "lmdb")
        let stack = DataStack(makeSchema())
        let engine = LMDBEngine(directoryURL: directory, initialMapSize: 1 << 20, maximumMapSize: 2 << 20)
        try stack.addStorageAndWait(KeyValueStorage(engine: engine))
        try Self.seed(stack)
        do {
            try Self.importPeople(stack, count: 20_000, prefix: "Big")
            Issue.record("20,000 people of 200 bytes and more fit in a 2 MiB map")
        } catch {
            #expect("\(error)".contains("full"), "\(error)")
        }
        #expect(try Self.people(stack) == Self.seeded)
        // Smaller commits still fit.
        try Self.importPeople(stack, count: 100, prefix: "Small")
        #expect(try stack.fetchCount(From<Person>()) == 102)
    }
}

/// Any engine behind one concrete type, so that one wrapper type serves every engine.
final class AnyEngine: OrderedKeyValueStore, @unchecked Sendable {
    let base: any OrderedKeyValueStore
    init(_ base: any OrderedKeyValueStore) { self.base = base }
    var storeDescription: String { base.storeDescription }
    var isDurable: Bool { base.isDurable }
    func open() throws { try base.open() }
    func read<T>(_ body: (any KeyValueReader) throws -> T) throws -> T { try base.read(body) }
    func write<T>(_ body: (any KeyValueWriter) throws -> T) throws -> T { try base.write(body) }
    func close() { base.close() }
    func destroy() throws { try base.destroy() }
}
