//! The static type of an expression, as the checker (`check.rs`) and the
//! overload resolution (`overloads.rs`) see it.

use crate::schema::Schema;

/// The static type of an expression, as far as this walk knows it.
#[derive(Clone, Copy, Debug)]
pub enum Ty<'s> {
    /// A value typed by a schema node.
    Node(&'s Schema),
    Bool,
    Int,
    Double,
    String,
    /// A list or map built by the expression, with at most this many entries.
    Collection(u64),
    /// Anything: unknown until run time.
    Dyn,
    /// A known type that is none of the above (null, bytes, timestamps, ...).
    Other,
}
