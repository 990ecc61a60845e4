//! The generic Kubernetes object machinery every kind shares, below the
//! registry and the resource service: object metadata (`meta`), names
//! (`dns`), field paths, request bodies (`decode`), options, label and field
//! selectors, owner references (`owner`), merge and JSON patches, listing with resourceVersion semantics
//! and continue tokens (`list`), bookmark objects, and the pool heavy
//! writes run on (`heavy`).

pub mod bookmark;
pub mod compact;
pub mod decode;
pub mod dns;
pub mod field_path;
pub mod heavy;
pub mod list;
pub mod meta;
pub mod options;
pub mod owner;
pub mod patch;
pub mod selector;
pub mod strategic;
pub mod strategy;

pub use field_path::Path;
pub use options::Written;
