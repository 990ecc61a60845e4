//! The server as a whole: the standard health service, reflection, the HTTP
//! health endpoints, and an orderly shutdown that ends open watches.

use crdstore::pb::v1 as pb;
use tokio_stream::StreamExt;

use crate::support::{Crd, TestServer, WAIT};

#[tokio::test]
async fn grpc_health_reports_serving() {
    let t = TestServer::start().await;
    let mut health = tonic_health::pb::health_client::HealthClient::new(t.channel().await);
    let reply =
        health.check(tonic_health::pb::HealthCheckRequest { service: String::new() }).await.unwrap().into_inner();
    assert_eq!(reply.status(), tonic_health::pb::health_check_response::ServingStatus::Serving);
    let named = health
        .check(tonic_health::pb::HealthCheckRequest { service: "crdstore.v1.CustomResourceDefinitions".into() })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(named.status(), tonic_health::pb::health_check_response::ServingStatus::Serving);
}

#[tokio::test]
async fn reflection_lists_the_crdstore_services() {
    use tonic_reflection::pb::v1::{
        server_reflection_client::ServerReflectionClient, server_reflection_request::MessageRequest,
        server_reflection_response::MessageResponse, ServerReflectionRequest,
    };
    let t = TestServer::start().await;
    let mut reflection = ServerReflectionClient::new(t.channel().await);
    let request = ServerReflectionRequest {
        host: String::new(),
        message_request: Some(MessageRequest::ListServices(String::new())),
    };
    let mut replies = reflection.server_reflection_info(tokio_stream::iter([request])).await.unwrap().into_inner();
    let reply = replies.next().await.unwrap().unwrap();
    let Some(MessageResponse::ListServicesResponse(list)) = reply.message_response else { panic!("no service list") };
    let names: Vec<String> = list.service.into_iter().map(|s| s.name).collect();
    assert!(names.iter().any(|n| n == "crdstore.v1.CustomResourceDefinitions"), "{names:?}");
    assert!(names.iter().any(|n| n == "grpc.health.v1.Health"), "{names:?}");
}

/// grpcurl decodes an error's details only when reflection serves the file
/// that declares them, `google/rpc/error_details.proto`, by name and by
/// symbol, and each file it imports.
#[tokio::test]
async fn reflection_serves_the_error_details() {
    use prost::Message as _;
    use tonic_reflection::pb::v1::{
        server_reflection_client::ServerReflectionClient, server_reflection_request::MessageRequest,
        server_reflection_response::MessageResponse, ServerReflectionRequest,
    };
    let t = TestServer::start().await;
    let mut reflection = ServerReflectionClient::new(t.channel().await);
    let mut ask = async |ask: MessageRequest| -> Vec<prost_types::FileDescriptorProto> {
        let request = ServerReflectionRequest { host: String::new(), message_request: Some(ask.clone()) };
        let mut replies = reflection.server_reflection_info(tokio_stream::iter([request])).await.unwrap().into_inner();
        let reply = replies.next().await.unwrap().unwrap();
        let Some(MessageResponse::FileDescriptorResponse(files)) = reply.message_response else {
            panic!("{ask:?}: {:?}", reply.message_response)
        };
        files.file_descriptor_proto.iter().map(|f| prost_types::FileDescriptorProto::decode(&f[..]).unwrap()).collect()
    };
    let by_name = ask(MessageRequest::FileByFilename("google/rpc/error_details.proto".into())).await;
    let details = &by_name[0];
    assert_eq!(details.name(), "google/rpc/error_details.proto");
    let messages: Vec<&str> = details.message_type.iter().map(|m| m.name()).collect();
    for message in ["ErrorInfo", "BadRequest"] {
        assert!(messages.contains(&message), "{messages:?}");
    }
    for symbol in ["google.rpc.ErrorInfo", "google.rpc.BadRequest"] {
        let files = ask(MessageRequest::FileContainingSymbol(symbol.into())).await;
        assert_eq!(files[0].name(), "google/rpc/error_details.proto", "{symbol}");
    }
    let status = ask(MessageRequest::FileContainingSymbol("google.rpc.Status".into())).await;
    assert_eq!(status[0].name(), "google/rpc/status.proto");
    // Every import is served too, so a client can build the files.
    for dependency in details.dependency.iter().chain(&status[0].dependency) {
        let files = ask(MessageRequest::FileByFilename(dependency.clone())).await;
        assert_eq!(files[0].name(), dependency);
    }
    // The server still serves.
    let mut health = tonic_health::pb::health_client::HealthClient::new(t.channel().await);
    health.check(tonic_health::pb::HealthCheckRequest { service: String::new() }).await.unwrap();
}

#[tokio::test]
async fn http_health_endpoints_answer() {
    let t = TestServer::start().await;
    for path in ["/healthz", "/readyz", "/livez"] {
        let body = reqwest::get(format!("http://{}{path}", t.server().http_addr)).await.unwrap();
        assert!(body.status().is_success(), "{path}");
        assert_eq!(body.text().await.unwrap(), "ok");
    }
}

#[tokio::test]
async fn shutdown_ends_watches_and_keeps_acknowledged_writes() {
    let mut t = TestServer::start().await;
    let mut c = t.definitions().await;
    let mut w = c.watch(pb::WatchDefinitionsRequest { options: None }).await.unwrap().into_inner();
    crate::support::create(&mut c, &Crd::new("example.com", "Alpha")).await;
    tokio::time::timeout(WAIT, w.message()).await.unwrap().unwrap().unwrap();
    let shutdown = tokio::time::timeout(WAIT, t.server.take().unwrap().shutdown()).await;
    assert!(shutdown.expect("shutdown does not wait on open watches").is_ok());
    let ended = tokio::time::timeout(WAIT, w.message()).await.unwrap();
    assert!(!matches!(ended, Ok(Some(_))), "the watch ended");
    t.server = Some(
        crdstore::server::Server::start(crdstore::server::Config::ephemeral(t.dir.path().to_path_buf())).await.unwrap(),
    );
    let mut c = t.definitions().await;
    crate::support::get(&mut c, "alphas.example.com").await;
}
