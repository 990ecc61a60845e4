//! Compiles `proto/crdstore/v1/*.proto` with protox (no system `protoc`) into
//! tonic services and prost messages, and writes the encoded descriptor sets
//! that the gRPC reflection service serves: crdstore's, and that of the
//! `google.rpc` error types (tonic-types' own, under their canonical file
//! names, so grpcurl finds `google/rpc/error_details.proto`). crdstore's set
//! is encoded by protox itself, with every import and the source info, so
//! that it keeps the methods' `google.api.http` rules (prost's descriptor
//! types drop extension options): it is also what `crdstore descriptors`
//! prints for Envoy's transcoder.

use prost::Message as _;
use std::path::PathBuf;

const PROTOS: &[&str] = &[
    "proto/crdstore/v1/common.proto",
    "proto/crdstore/v1/definitions.proto",
    "proto/crdstore/v1/resources.proto",
    "proto/crdstore/v1/maintenance.proto",
    "proto/crdstore/v1/migrations.proto",
];

/// googleapis' `google/api/annotations.proto` and `http.proto`, which the
/// protos import for their HTTP rules (proto/third_party/googleapis).
const GOOGLEAPIS: &str = "proto/third_party/googleapis";

const GNOSTIC: &str = "proto/third_party/gnostic/openapiv2/OpenAPIv2.proto";

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-changed=proto");
    let mut compiler = protox::Compiler::new(["proto", GOOGLEAPIS])?;
    compiler.include_imports(true).include_source_info(true).open_files(PROTOS)?;
    let out_dir = PathBuf::from(std::env::var("OUT_DIR")?);
    std::fs::write(out_dir.join("crdstore_descriptor.bin"), compiler.encode_file_descriptor_set())?;
    let fds = compiler.file_descriptor_set();
    std::fs::write(out_dir.join("error_details_descriptor.bin"), error_details()?.encode_to_vec())?;
    // A watch event's object is shared bytes: every watcher of a change sends
    // the same rendering, not a copy of it each. So is a list's item: a page
    // converted once is sent from the converted-object cache as it is kept.
    tonic_prost_build::configure()
        .build_client(true)
        .build_server(true)
        .bytes(".crdstore.v1.WatchEvent.object")
        .bytes(".crdstore.v1.ListResourcesResponse.items")
        // prost's codec with buffers sized per message (src/pb/codec.rs).
        .codec_path("crate::pb::codec::Codec")
        .compile_fds(fds)?;
    // gnostic's OpenAPI v2 messages (proto/third_party/gnostic), in which
    // /openapi/v2 answers protobuf (src/gateway/openapi_pb.rs).
    let gnostic = protox::compile([GNOSTIC], ["proto/third_party/gnostic"])?;
    tonic_prost_build::configure().build_client(false).build_server(false).compile_fds(gnostic)?;
    Ok(())
}

/// tonic-types' descriptor set of `google.rpc.Status` and the error details,
/// with `status.proto` and `error_details.proto` (as it was compiled) named
/// as everyone else names them, `google/rpc/...`, in the files and in their
/// imports.
fn error_details() -> Result<prost_types::FileDescriptorSet, prost::DecodeError> {
    let mut set = prost_types::FileDescriptorSet::decode(tonic_types::pb::FILE_DESCRIPTOR_SET)?;
    let canonical = |name: &mut String| {
        if !name.contains('/') {
            *name = format!("google/rpc/{name}");
        }
    };
    for file in &mut set.file {
        if let Some(name) = file.name.as_mut() {
            canonical(name);
        }
        file.dependency.iter_mut().for_each(canonical);
    }
    Ok(set)
}
