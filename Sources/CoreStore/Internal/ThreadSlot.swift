import Foundation

/// A reference each thread keeps for itself: what one thread sets, only that thread reads.
///
/// The slot does not retain its object: the scope that sets it keeps the object alive and puts
/// back the previous value before it ends.
final class ThreadSlot<Object: AnyObject>: @unchecked Sendable {
    private let key: pthread_key_t

    init() {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        self.key = key
    }

    /// The calling thread's object, if it set one.
    var value: Object? {
        get { pthread_getspecific(key).map { Unmanaged<Object>.fromOpaque($0).takeUnretainedValue() } }
        set { pthread_setspecific(key, newValue.map { Unmanaged.passUnretained($0).toOpaque() }) }
    }
}
