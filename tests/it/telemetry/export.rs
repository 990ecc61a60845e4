//! How spans travel to the collector: gzipped when
//! `OTEL_EXPORTER_OTLP_COMPRESSION` (or the traces' variable) says so, over
//! gRPC and over HTTP/protobuf, and over TLS to an `https://` endpoint whose
//! certificate chains to the CA that `OTEL_EXPORTER_OTLP_CERTIFICATE` names.

use std::net::SocketAddr;
use std::sync::Arc;

use tokio_rustls::rustls;

use super::{traceparent, Receiver, Traced};

/// Makes one traced create through `traced` and waits for its server span.
async fn one_traced_request(receiver: &Receiver, traced: &Traced, seed: u8) {
    let group = format!("exported{seed}.example.com");
    crate::support::create(&mut traced.definitions().await, &super::meters(&group)).await;
    let (header, trace, parent) = traceparent(seed);
    super::create_traced(traced, &group, "m", 1, &header).await;
    receiver
        .wait_for("server span", |r| {
            r.spans.iter().find(|s| s.trace_id == trace && s.parent_span_id == parent).cloned()
        })
        .await;
}

#[tokio::test]
async fn gzip_reaches_the_collector_over_grpc_and_http() {
    let receiver = Receiver::default();
    let (grpc, http) = receiver.start().await;
    let traced =
        Traced::start_with(&format!("http://{grpc}"), "grpc", &[("OTEL_EXPORTER_OTLP_COMPRESSION", "gzip")]).await;
    one_traced_request(&receiver, &traced, 21).await;
    drop(traced);
    let traced = Traced::start_with(
        &format!("http://{http}"),
        "http/protobuf",
        &[("OTEL_EXPORTER_OTLP_TRACES_COMPRESSION", "gzip")],
    )
    .await;
    one_traced_request(&receiver, &traced, 22).await;
    let encodings = receiver.0.lock().unwrap().encodings.clone();
    assert!(!encodings.is_empty());
    assert!(encodings.iter().all(|e| e == "gzip"), "every export gzipped: {encodings:?}");
}

/// A CA (its PEM) and a server configuration for `localhost` and
/// `127.0.0.1` signed by it.
fn certificates() -> (String, rustls::ServerConfig) {
    let ca_key = rcgen::KeyPair::generate().unwrap();
    let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    ca_params.distinguished_name.push(rcgen::DnType::CommonName, "crdstore test collector CA");
    let ca = ca_params.self_signed(&ca_key).unwrap();
    let key = rcgen::KeyPair::generate().unwrap();
    let params = rcgen::CertificateParams::new(vec!["localhost".to_string(), "127.0.0.1".to_string()]).unwrap();
    let cert = params.signed_by(&key, &ca, &ca_key).unwrap();
    let mut config = rustls::ServerConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(vec![cert.der().clone()], rustls::pki_types::PrivateKeyDer::Pkcs8(key.serialize_der().into()))
        .unwrap();
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    (ca.pem(), config)
}

/// Serves `receiver`'s OTLP over TLS: gRPC or HTTP/protobuf.
async fn serve_tls(receiver: &Receiver, config: rustls::ServerConfig, grpc: bool) -> SocketAddr {
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let service = match grpc {
        true => receiver.grpc().into_axum_router(),
        false => receiver.http(),
    };
    tokio::spawn(async move {
        loop {
            let Ok((tcp, _)) = listener.accept().await else { return };
            let (acceptor, service) = (acceptor.clone(), service.clone());
            tokio::spawn(async move {
                let Ok(tls) = acceptor.accept(tcp).await else { return };
                let service = hyper_util::service::TowerToHyperService::new(service);
                let builder = hyper_util::server::conn::auto::Builder::new(hyper_util::rt::TokioExecutor::new());
                let _ = builder.serve_connection(hyper_util::rt::TokioIo::new(tls), service).await;
            });
        }
    });
    addr
}

#[tokio::test]
async fn tls_to_an_https_collector_trusts_the_certificate_variables_ca() {
    let (ca, config) = certificates();
    let dir = tempfile::tempdir().unwrap();
    let ca_file = dir.path().join("ca.pem");
    std::fs::write(&ca_file, ca).unwrap();
    let ca_file = ca_file.to_str().unwrap();
    for (grpc, protocol, seed) in [(true, "grpc", 31), (false, "http/protobuf", 32)] {
        let receiver = Receiver::default();
        let addr = serve_tls(&receiver, config.clone(), grpc).await;
        let traced = Traced::start_with(
            &format!("https://localhost:{}", addr.port()),
            protocol,
            &[("OTEL_EXPORTER_OTLP_CERTIFICATE", ca_file)],
        )
        .await;
        one_traced_request(&receiver, &traced, seed).await;
    }
}
