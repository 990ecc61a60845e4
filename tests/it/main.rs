//! The integration suite: one binary, a module per area.

mod storage;
