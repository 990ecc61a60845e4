//! Custom resources and the rules every stored object follows: metadata
//! (`meta`), names (`dns`), selectors, options, and listing.

pub mod cleanup;
mod decode;
pub mod dns;
pub mod list;
pub mod meta;
pub mod options;
pub mod patch;
pub mod scale;
pub mod selector;
pub mod served;
pub mod service;
pub mod strategy;
pub mod table;

pub use options::Written;
pub use service::{Deleted, Endpoint, Resources};
pub use strategy::Ref;
