//! Watching: the history window that bounds how far back a watch or a list
//! may reach (`window`), the hub that fans committed events out to watchers
//! without ever letting a slow one stall a writer (`hub`), and watch streams
//! in Kubernetes terms (`stream`).

pub mod hub;
pub mod stream;
pub mod window;

pub use hub::{Hub, Subscription};
pub use window::HistoryWindow;
