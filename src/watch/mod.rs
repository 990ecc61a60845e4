//! Watch streams in Kubernetes terms over a storage watch (`stream`), and
//! the cache that renders each changed object once for every watcher that
//! delivers it (`render`). The storage fan-out they read from is the
//! store's (`storage::hub`). `metered` counts watchers and their events;
//! `convert` converts the events of a watch at a version that converts;
//! `pool` produces the clients' watches on threads of lower priority than
//! requests' (`priority`); `batch` bounds what is handed on at once.

pub mod batch;
pub mod convert;
pub mod metered;
pub mod pool;
pub mod priority;
pub mod render;
pub mod stream;
