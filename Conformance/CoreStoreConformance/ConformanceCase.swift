import Foundation
import CoreStoreStorage

/// Whether a case talks to a store directly or through the user API.
public enum ConformanceLevel: String, Sendable, Hashable {
    /// The case calls `StorageInterface` requirements directly.
    case contract
    /// The case goes through `DataStack` and `CoreStoreObject` models.
    case api
}

/// One executable requirement of the storage contract, run against any ``StorageFactory``.
///
/// With Swift Testing a backend author gets one result per case that applies to the store, and
/// one test that lists the others with their reasons:
/// ```swift
/// @Test(arguments: ConformanceSuite.cases(applicableTo: MyBackendFactory()))
/// func conformance(_ c: ConformanceCase) throws { try c.run(with: MyBackendFactory()) }
///
/// @Test func skippedCases() {
///     for skip in ConformanceSuite.skips(for: MyBackendFactory()) { print("SKIPPED \(skip)") }
/// }
/// ```
public struct ConformanceCase: Sendable, Hashable, CustomStringConvertible {
    /// The case's name inside its group, such as `"Int64.max round-trips"`.
    public let name: String
    /// The group, such as `"values"` or `"predicates"`.
    public let group: String
    /// Contract or API level.
    public let level: ConformanceLevel
    /// The capabilities a store must declare for the case to apply; otherwise it is skipped.
    public let requires: StorageCapabilities
    /// The optional protocols a store must adopt for the case to apply; otherwise it is skipped.
    public let adopts: Set<OptionalStorageProtocol>
    let body: @Sendable (ConformanceContext) throws -> Void

    /// Creates a case.
    public init(
        _ name: String, group: String, level: ConformanceLevel = .contract, requires: StorageCapabilities = [],
        adopts: Set<OptionalStorageProtocol> = [], body: @escaping @Sendable (ConformanceContext) throws -> Void
    ) {
        self.name = name
        self.group = group
        self.level = level
        self.requires = requires
        self.adopts = adopts
        self.body = body
    }

    /// `group/name`, unique in ``ConformanceSuite/cases``.
    public var id: String { "\(group)/\(name)" }

    /// `group/name`.
    public var description: String { id }

    /// Cases are identified by ``id``.
    public static func == (lhs: ConformanceCase, rhs: ConformanceCase) -> Bool { lhs.id == rhs.id }

    /// Hashes ``id``.
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }

    /// Runs the case against stores made by `factory`.
    ///
    /// Throws ``ConformanceFailure`` when the store does not behave as the contract says. When
    /// the store lacks a capability in ``requires``, the case is reported as skipped with the
    /// reason: inside a Swift Testing test the test is cancelled (`Test.cancel`, recorded as
    /// cancelled with the reason in the event stream, though the console of Swift 6.3 counts a
    /// cancelled parameterized case as passed — so parameterize over
    /// `ConformanceSuite/cases(applicableTo:)` and list
    /// ``ConformanceSuite/skips(for:)`` instead); elsewhere ``ConformanceSkip`` is thrown.
    public func run(with factory: some StorageFactory) throws {
        switch outcome(with: factory) {
        case .passed:
            return
        case .failed(let failure):
            throw failure
        case .skipped(let reason):
            try reportSkip(ConformanceSkip(caseID: id, reason: reason))
        }
    }

    /// Whether a store declaring `capabilities` may run this case (it declares every capability
    /// in ``requires``; whether it adopts ``adopts`` is known only from a store).
    public func applies(to capabilities: StorageCapabilities) -> Bool {
        requires.isSubset(of: capabilities)
    }

    /// Why a store declaring `capabilities` and adopting `adopted` skips this case, or `nil`
    /// when it runs it.
    func skipReason(for capabilities: StorageCapabilities, adopted: Set<OptionalStorageProtocol>, backend: String) -> String? {
        var reasons: [String] = []
        let missing = requires.subtracting(capabilities)
        if !missing.isEmpty { reasons.append("does not declare \(missing.names.joined(separator: ", "))") }
        let unadopted = adopts.subtracting(adopted).map(\.name).sorted()
        if !unadopted.isEmpty { reasons.append("does not adopt \(unadopted.joined(separator: ", "))") }
        return reasons.isEmpty ? nil : "\(backend) " + reasons.joined(separator: " and ")
    }

    /// What running the case gave, without throwing.
    public func outcome(with factory: some StorageFactory) -> ConformanceOutcome {
        let capabilities: StorageCapabilities
        let adopted: Set<OptionalStorageProtocol>
        do {
            let probe = try factory.makeStorage(configuration: nil)
            capabilities = probe.capabilities
            adopted = OptionalStorageProtocol.adopted(by: probe)
        } catch {
            return .failed(ConformanceFailure(caseID: id, message: "the factory could not make a store: \(error)"))
        }
        if let reason = skipReason(for: capabilities, adopted: adopted, backend: factory.name) {
            return .skipped(reason)
        }
        let context = ConformanceContext(caseID: id, factory: factory, capabilities: capabilities)
        defer {
            context.finish()
            factory.cleanUp()
        }
        do {
            try body(context)
            return .passed
        } catch let failure as ConformanceFailure {
            return .failed(failure)
        } catch {
            return .failed(ConformanceFailure(caseID: id, message: "unexpected error: \(error)"))
        }
    }
}

/// The result of one case.
public enum ConformanceOutcome: Sendable {
    /// The store behaved as the contract says.
    case passed
    /// The store did not; the failure says how.
    case failed(ConformanceFailure)
    /// The case does not apply to the store; the reason names the missing capability.
    case skipped(String)
}

/// A store that does not behave as the contract says.
public struct ConformanceFailure: Error, Sendable, CustomStringConvertible {
    /// `group/name` of the failing case.
    public let caseID: String
    /// What differed.
    public let message: String

    /// Creates a failure.
    public init(caseID: String, message: String) {
        self.caseID = caseID
        self.message = message
    }

    /// `group/name: message`.
    public var description: String { "\(caseID): \(message)" }
}

/// A case that does not apply to a store, thrown by ``ConformanceCase/run(with:)`` outside a
/// Swift Testing test.
public struct ConformanceSkip: Error, Sendable, CustomStringConvertible {
    /// `group/name` of the skipped case.
    public let caseID: String
    /// Why it was skipped.
    public let reason: String

    /// `group/name skipped: reason`.
    public var description: String { "\(caseID) skipped: \(reason)" }
}

extension StorageCapabilities {
    /// The names of the capabilities in this set.
    var names: [String] {
        var names: [String] = []
        if contains(.persistent) { names.append("persistent") }
        if contains(.durableCommits) { names.append("durableCommits") }
        if contains(.concurrentReaders) { names.append("concurrentReaders") }
        if contains(.nativePredicates) { names.append("nativePredicates") }
        if contains(.nativeSorting) { names.append("nativeSorting") }
        if contains(.localFiles) { names.append("localFiles") }
        return names
    }
}
