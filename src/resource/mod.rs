//! Custom resources: the service that serves every accepted definition at
//! each served version (`service`), its strategy (`strategy`), the served
//! catalog (`served`), the stored form (`stored`), scale, tables, the
//! definitions themselves as a kind of the store (`definitions`), and the
//! cleanup of a terminating definition's instances.

pub mod cleanup;
pub mod definitions;
pub mod scale;
pub mod served;
pub mod service;
pub mod stored;
pub mod strategy;
pub mod table;
#[cfg(test)]
pub mod testing;

pub use service::{Deleted, Endpoint, JsonItems, JsonPage, Resources};
pub use strategy::Ref;
