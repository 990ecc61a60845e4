//! The generated protobuf messages and tonic services of `proto/crdstore/v1`,
//! and the encoded descriptor set served by gRPC reflection.

#![allow(clippy::all, missing_docs)]

pub mod v1 {
    tonic::include_proto!("crdstore.v1");
}

/// The encoded `FileDescriptorSet` of every crdstore proto.
pub const FILE_DESCRIPTOR_SET: &[u8] = tonic::include_file_descriptor_set!("crdstore_descriptor");
