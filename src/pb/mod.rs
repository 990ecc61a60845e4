//! The generated protobuf messages and tonic services of `proto/crdstore/v1`,
//! and the encoded descriptor sets served by gRPC reflection.

#![allow(clippy::all, missing_docs)]

pub mod codec;

pub mod v1 {
    tonic::include_proto!("crdstore.v1");
}

/// The encoded `FileDescriptorSet` of every crdstore proto.
pub const FILE_DESCRIPTOR_SET: &[u8] = tonic::include_file_descriptor_set!("crdstore_descriptor");

/// The encoded `FileDescriptorSet` of `google/rpc/status.proto` and
/// `google/rpc/error_details.proto` (tonic-types' own, the types the errors
/// are built from, renamed by build.rs), so reflection clients such as
/// grpcurl decode an error's `ErrorInfo` and `BadRequest` details.
pub const ERROR_DETAILS_DESCRIPTOR_SET: &[u8] = tonic::include_file_descriptor_set!("error_details_descriptor");
