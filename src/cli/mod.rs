//! The one-shot commands of the `crdstore` binary beside `serve`: backup,
//! restore, the feature-gates listing (the kubectl plugin), migrate, and the
//! descriptor set for transcoding proxies.

pub mod backup;
pub mod descriptors;
pub mod feature_gates;
pub mod migrate;
