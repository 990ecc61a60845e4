//! `crdstore descriptors`: the protos' `FileDescriptorSet`, with every import
//! and the source info, as `protoc --include_imports --include_source_info`
//! writes it, for Envoy's `grpc_json_transcoder` (`proto_descriptor`) and
//! other proxies that transcode from the methods' `google.api.http` rules.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;

/// crdstore's files (`crdstore/v1/*.proto`, `google/api/annotations.proto`,
/// `http.proto`, `google/protobuf/descriptor.proto`) followed by the
/// `google.rpc` error details the server sends, so that a transcoder with
/// `convert_grpc_status` renders an error's `ErrorInfo` and `BadRequest`.
/// Two encoded sets laid end to end are one set holding both lists of files,
/// and the two share no file.
pub fn descriptors() -> ExitCode {
    let mut stdout = std::io::stdout().lock();
    if stdout.is_terminal() {
        eprintln!(
            "crdstore descriptors: the set is binary; redirect it to a file (crdstore descriptors > crdstore.pb)"
        );
        return ExitCode::FAILURE;
    }
    let written = stdout
        .write_all(crdstore::pb::FILE_DESCRIPTOR_SET)
        .and_then(|()| stdout.write_all(crdstore::pb::ERROR_DETAILS_DESCRIPTOR_SET))
        .and_then(|()| stdout.flush());
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("crdstore descriptors: {err}");
            ExitCode::FAILURE
        }
    }
}
