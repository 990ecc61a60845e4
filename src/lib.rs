//! crdstore: a standalone store for Kubernetes-style custom resources.
//!
//! The domain (`storage`, `watch`, `registry`, `resource`) knows nothing of
//! transports; `grpc` and `gateway` are thin faces over it. See
//! ARCHITECTURE.md for the map.

pub mod error;
pub mod pb;
pub mod resource;
pub mod storage;
pub mod watch;

pub use error::{Error, Result};
