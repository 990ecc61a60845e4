//! Watching: the history window that bounds how far back a watch or a list
//! may reach (`window`), and the hub that fans committed events out to
//! watchers without ever letting a slow one stall a writer (`hub`).

pub mod hub;
pub mod window;

pub use hub::{Hub, Subscription};
pub use window::HistoryWindow;
