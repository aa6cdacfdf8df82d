import Foundation
import Logging
import Testing
@testable import CoreStore

/// A swift-log handler that keeps every message.
final class RecordingLogHandler: LogHandler, @unchecked Sendable {
    final class Storage: @unchecked Sendable {
        let lock = NSLock()
        var entries: [(Logger.Level, String)] = []
    }
    let storage: Storage
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    init(storage: Storage) { self.storage = storage }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        storage.lock.withLock { storage.entries.append((event.level, event.message.description)) }
    }
}

@Suite("Logging", .serialized)
struct LoggingTests {
    @Test func swiftLogBridgeMapsLevelsErrorsAndAssertions() {
        let storage = RecordingLogHandler.Storage()
        let bridge = SwiftLogCoreStoreLogger(Logger(label: "test") { _ in RecordingLogHandler(storage: storage) })
        bridge.log(level: .notice, message: "hello", fileName: #fileID, lineNumber: #line, functionName: #function)
        bridge.log(level: .fatal, message: "bad", fileName: #fileID, lineNumber: #line, functionName: #function)
        bridge.log(error: .userCancelled, message: "oops", fileName: #fileID, lineNumber: #line, functionName: #function)
        bridge.assert(true, message: "never", fileName: #fileID, lineNumber: #line, functionName: #function)
        bridge.assert(false, message: "broken", fileName: #fileID, lineNumber: #line, functionName: #function)
        let entries = storage.lock.withLock { storage.entries }
        #expect(entries.map(\.0) == [.notice, .critical, .error, .critical])
        #expect(entries.map(\.1) == ["hello", "bad", "oops", "Assertion failure: broken"])
    }

    @Test func aSchemaWithoutVersionLockLogsTheLiteralToPaste() throws {
        let logger = CapturingLogger.installed()
        defer { logger.uninstall() }
        let schema = CoreStoreSchema(modelVersion: "Unlocked", entities: [Entity<Renamed>("Renamed")])
        let lock = try schema.computedVersionLock()
        let message = try #require(logger.messages.first { $0.contains("'Unlocked' has no VersionLock") })
        #expect(message.contains(lock.description))
    }

    @Test func misuseIsReportedAsAnAssertion() throws {
        let logger = CapturingLogger.installed()
        defer { logger.uninstall() }
        let stack = try makeStack(.inMemory)
        try insertPeople(stack, [("Ann", 1)])
        let ann = try #require(try stack.fetchOne(From<Person>()))
        ann.age = 2
        #expect(logger.messages.contains { $0.hasPrefix("[assert]") && $0.contains("read-only context") && $0.contains("'Person.age'") })
        #expect(ann.age == 1)
    }

    /// A property set where the object cannot change is ignored and reported, naming the
    /// attribute: on a deleted object (the commit then fails with the misuse), and on an object
    /// of a transaction that has ended.
    @Test func aSetterReportsTheAttributeItCouldNotChange() throws {
        let logger = CapturingLogger.installed()
        defer { logger.uninstall() }
        let stack = try makeStack(.inMemory)
        try insertPeople(stack, [("Ann", 1)])
        #expect {
            try stack.perform(synchronous: { t in
                let ann = try #require(try t.fetchOne(From<Person>()))
                t.delete(ann)
                ann.name = "Bea"
            })
        } throws: { error in
            guard case CoreStoreError.invalidObject(let message) = error else { return false }
            return message.contains("'Person.name' was set on a deleted object")
        }
        var kept: Person?
        try stack.perform(synchronous: { t in kept = try t.fetchOne(From<Person>()) })
        let person = try #require(kept)
        person.age = 5
        #expect(logger.messages.contains { $0.contains("'Person.age' was set after its transaction ended") })
        #expect(try stack.fetchOne(From<Person>())?.age == 1)
    }

    @Test func defaultLoggerFiltersByLevel() {
        let logger = DefaultLogger(minimumLevel: .warning)
        #expect(logger.minimumLevel == .warning)
        #expect(LogLevel.trace < LogLevel.notice && LogLevel.warning < LogLevel.fatal)
    }
}
