import CoreStoreFirstPartyFactories

/// What the code blocks of docs/CONFORMANCE.md use without declaring it: a factory named as the
/// document names the reader's own. `CONFORMANCE+Snippets.swift` adds one method per block
/// (compiled, not run: the conformance tests run the suite).
final class ConformanceSnippets {
    typealias MyBackendFactory = InMemoryFactory
}
