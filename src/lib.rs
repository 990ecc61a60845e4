//! crdstore: a standalone store for Kubernetes-style custom resources.
//!
//! The domain (`storage`, `watch`, `registry`, `resource`) knows nothing of
//! transports; `grpc` and `gateway` are thin faces over it. See
//! ARCHITECTURE.md for the map.

pub mod apimachinery;
pub mod apply;
pub mod builtin;
pub mod conversion;
pub mod error;
pub mod gates;
pub mod gateway;
pub mod gc;
pub mod grpc;
pub mod metrics;
pub mod migration;
pub mod pb;
pub mod registry;
pub mod resource;
pub mod schema;
pub mod server;
pub mod storage;
pub mod telemetry;
pub mod watch;

pub use error::{Error, Result};
