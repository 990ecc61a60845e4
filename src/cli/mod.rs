//! The one-shot commands of the `crdstore` binary beside `serve`: backup,
//! restore, the feature-gates listing (the kubectl plugin), and migrate.

pub mod backup;
pub mod feature_gates;
pub mod migrate;
