//! Compiles `proto/crdstore/v1/*.proto` with protox (no system `protoc`) into
//! tonic services and prost messages, and writes the encoded descriptor set
//! that the gRPC reflection service serves.

use prost::Message as _;
use std::path::PathBuf;

const PROTOS: &[&str] = &[
    "proto/crdstore/v1/common.proto",
    "proto/crdstore/v1/definitions.proto",
    "proto/crdstore/v1/resources.proto",
    "proto/crdstore/v1/maintenance.proto",
    "proto/crdstore/v1/migrations.proto",
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-changed=proto");
    let fds = protox::compile(PROTOS, ["proto"])?;
    let out_dir = PathBuf::from(std::env::var("OUT_DIR")?);
    std::fs::write(out_dir.join("crdstore_descriptor.bin"), fds.encode_to_vec())?;
    // A watch event's object is shared bytes: every watcher of a change sends
    // the same rendering, not a copy of it each.
    tonic_prost_build::configure()
        .build_client(true)
        .build_server(true)
        .bytes(".crdstore.v1.WatchEvent.object")
        .compile_fds(fds)?;
    Ok(())
}
