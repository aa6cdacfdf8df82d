import Foundation

/// Catches SIGINT and SIGTERM so that a torture run stops after the run in progress and removes
/// its temporary directory, instead of dying with a child still writing into it.
final class TortureInterruption: @unchecked Sendable {
    private let lock = NSLock()
    private var received: Int32?
    private var sources: [any DispatchSourceSignal] = []

    /// Starts catching the signals (until deinitialized).
    init() {
        sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [weak self] in self?.receive(number) }
            source.resume()
            return source
        }
    }

    deinit {
        sources.forEach { $0.cancel() }
    }

    /// The signal received, `nil` if none.
    var receivedSignal: Int32? { lock.withLock { received } }

    /// Whether a signal was received.
    var happened: Bool { receivedSignal != nil }

    private func receive(_ number: Int32) {
        lock.withLock { received = number }
    }
}
