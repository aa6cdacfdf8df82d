import Foundation

/// A type a `Select` clause can return: a ``QueryableAttributeType`` for
/// `queryValue(_:_:_:)`, or `NSDictionary` for `queryAttributes(_:_:_:)`.
///
/// The type only tells the query what to produce; `NSDictionary` results arrive as
/// `[String: Any]`.
public protocol SelectResultType {}

/// `Select<O, NSDictionary>` asks `queryAttributes` for one dictionary per row.
extension NSDictionary: SelectResultType {}
