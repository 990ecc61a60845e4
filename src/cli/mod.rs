//! The one-shot commands of the `crdstore` binary beside `serve`: backup,
//! restore, and the feature-gates listing (the kubectl plugin).

pub mod backup;
pub mod feature_gates;
