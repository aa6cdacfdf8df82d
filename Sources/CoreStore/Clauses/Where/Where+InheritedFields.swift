import CoreStoreStorage

// A filter on a superclass's field combined with one on a subclass's field, as CoreStore writes
// it: `From<Dog>().where(\Animal.$species == "Dog" && \Dog.$age == 10)`. The result is a filter
// on the class of the side the fetch names (the context picks it). Filters name fields by their
// stored keys, so combining them is exact when one class inherits from the other; a key the
// fetched entity does not have makes the fetch throw `invalidPredicate`.

extension Where {
    /// Both filters, as a filter on `O`: `\Animal.$species == "Dog" && \Dog.$age == 10`.
    public static func && <Other: CoreStoreObject>(lhs: Where<Other>, rhs: Where<O>) -> Where<O> {
        Where(lhs.predicate && rhs.predicate, error: lhs.error ?? rhs.error)
    }

    /// Both filters, as a filter on `O`: `\Dog.$age == 10 && \Animal.$species == "Dog"`.
    public static func && <Other: CoreStoreObject>(lhs: Where<O>, rhs: Where<Other>) -> Where<O> {
        Where(lhs.predicate && rhs.predicate, error: lhs.error ?? rhs.error)
    }

    /// Either filter, as a filter on `O`.
    public static func || <Other: CoreStoreObject>(lhs: Where<Other>, rhs: Where<O>) -> Where<O> {
        Where(lhs.predicate || rhs.predicate, error: lhs.error ?? rhs.error)
    }

    /// Either filter, as a filter on `O`.
    public static func || <Other: CoreStoreObject>(lhs: Where<O>, rhs: Where<Other>) -> Where<O> {
        Where(lhs.predicate || rhs.predicate, error: lhs.error ?? rhs.error)
    }
}
