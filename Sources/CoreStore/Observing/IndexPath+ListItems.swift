import Foundation

#if !canImport(UIKit) && !canImport(AppKit)
extension IndexPath {
    /// An index path `[section, item]` for a position in a sectioned list.
    public init(item: Int, section: Int) {
        self.init(indexes: [section, item])
    }

    /// The section of a `[section, item]` index path.
    public var section: Int {
        get { self[0] }
        set { self[0] = newValue }
    }

    /// The item of a `[section, item]` index path.
    public var item: Int {
        get { self[1] }
        set { self[1] = newValue }
    }
}
#endif
