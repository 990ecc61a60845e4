//! A conversion webhook for the tests (and the conversion bench): HTTPS on
//! loopback with a CA made here, converting Widgets between three shapes
//! (`v1`: `spec.hostPort: "host:port"`, `spec.replicas`; `v2`: `spec.host`
//! and `spec.port`, `spec.replicas`; `v3`: `spec.address: {host, port}`,
//! `spec.count` and `status.count`), or misbehaving as a test asks. It
//! counts the reviews it is sent and the objects in them.

#![allow(dead_code)]

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use serde_json::{json, Map, Value};
use tokio_rustls::rustls;

/// How the webhook answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Convert,
    /// `result.status: Failure` with a message.
    Fail,
    /// Answers after this long.
    Slow(Duration),
    WrongUid,
    /// Changes each object's name.
    Rename,
    /// Drops the last object.
    WrongCount,
    /// Answers a v1beta1 review only when asked one (checks the version).
    ExpectV1beta1,
}

/// A running webhook.
pub struct Webhook {
    pub addr: SocketAddr,
    /// The CA's certificate, PEM: the definition's `caBundle`.
    pub ca_pem: String,
    pub mode: Arc<Mutex<Mode>>,
    pub reviews: Arc<AtomicUsize>,
    pub objects: Arc<AtomicUsize>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Webhook {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Webhook {
    pub fn url(&self) -> String {
        format!("https://localhost:{}/convert", self.addr.port())
    }

    pub fn set(&self, mode: Mode) {
        *self.mode.lock().unwrap() = mode;
    }

    pub fn reviews(&self) -> usize {
        self.reviews.load(Ordering::SeqCst)
    }

    /// `spec.conversion` calling this webhook, trusting its CA.
    pub fn conversion(&self, review_versions: &[&str]) -> Value {
        use base64::Engine;
        json!({"strategy": "Webhook", "webhook": {
            "clientConfig": {"url": self.url(),
                             "caBundle": base64::engine::general_purpose::STANDARD.encode(&self.ca_pem)},
            "conversionReviewVersions": review_versions}})
    }

    /// Starts a webhook on 127.0.0.1 with a new CA and a certificate for
    /// `localhost` and `127.0.0.1` signed by it.
    pub async fn start() -> Self {
        let ca_key = rcgen::KeyPair::generate().unwrap();
        let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
        ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        ca_params.distinguished_name.push(rcgen::DnType::CommonName, "crdstore test CA");
        let ca = ca_params.self_signed(&ca_key).unwrap();
        let key = rcgen::KeyPair::generate().unwrap();
        let params = rcgen::CertificateParams::new(vec!["localhost".to_string(), "127.0.0.1".to_string()]).unwrap();
        let cert = params.signed_by(&key, &ca, &ca_key).unwrap();
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(
                vec![cert.der().clone()],
                rustls::pki_types::PrivateKeyDer::Pkcs8(key.serialize_der().into()),
            )
            .unwrap();
        config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
        let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let mode = Arc::new(Mutex::new(Mode::Convert));
        let reviews = Arc::new(AtomicUsize::new(0));
        let objects = Arc::new(AtomicUsize::new(0));
        let state = (mode.clone(), reviews.clone(), objects.clone());
        let task = tokio::spawn(async move {
            loop {
                let Ok((tcp, _)) = listener.accept().await else { return };
                // As Go's net/http and every production server do: without it an
                // answer's last segment waits for a delayed ACK (40 ms on Linux).
                let _ = tcp.set_nodelay(true);
                let (acceptor, state) = (acceptor.clone(), state.clone());
                tokio::spawn(async move {
                    let Ok(tls) = acceptor.accept(tcp).await else { return };
                    let service = hyper::service::service_fn(move |req| answer(req, state.clone()));
                    let mut builder =
                        hyper_util::server::conn::auto::Builder::new(hyper_util::rt::TokioExecutor::new());
                    builder.http2().initial_stream_window_size(16 << 20).initial_connection_window_size(16 << 20);
                    let _ = builder.serve_connection(hyper_util::rt::TokioIo::new(tls), service).await;
                });
            }
        });
        Self { addr, ca_pem: ca.pem(), mode, reviews, objects, task }
    }
}

type State = (Arc<Mutex<Mode>>, Arc<AtomicUsize>, Arc<AtomicUsize>);

async fn answer(
    req: hyper::Request<Incoming>,
    (mode, reviews, objects): State,
) -> Result<hyper::Response<Full<Bytes>>, std::convert::Infallible> {
    let body = req.into_body().collect().await.map(|b| b.to_bytes()).unwrap_or_default();
    let review: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    reviews.fetch_add(1, Ordering::SeqCst);
    let request = &review["request"];
    let sent = request["objects"].as_array().cloned().unwrap_or_default();
    objects.fetch_add(sent.len(), Ordering::SeqCst);
    let desired = request["desiredAPIVersion"].as_str().unwrap_or("").to_string();
    let mode = *mode.lock().unwrap();
    if let Mode::Slow(delay) = mode {
        tokio::time::sleep(delay).await;
    }
    let mut uid = request["uid"].clone();
    let mut converted: Vec<Value> = sent.into_iter().map(|o| convert(o, &desired)).collect();
    let mut result = json!({"status": "Success"});
    match mode {
        Mode::Fail => result = json!({"status": "Failure", "message": "the test webhook refuses"}),
        Mode::WrongUid => uid = json!("not-the-uid"),
        Mode::Rename => converted.iter_mut().for_each(|o| o["metadata"]["name"] = json!("renamed")),
        Mode::WrongCount => {
            converted.pop();
        }
        Mode::ExpectV1beta1 if review["apiVersion"] != "apiextensions.k8s.io/v1beta1" => {
            result = json!({"status": "Failure", "message": format!("expected a v1beta1 review, got {}", review["apiVersion"])})
        }
        _ => {}
    }
    let answer = json!({"apiVersion": review["apiVersion"], "kind": "ConversionReview",
        "response": {"uid": uid, "convertedObjects": converted, "result": result}});
    let bytes = serde_json::to_vec(&answer).unwrap();
    Ok(hyper::Response::builder()
        .header("content-type", "application/json")
        .body(Full::new(Bytes::from(bytes)))
        .unwrap())
}

fn take(map: &mut Map<String, Value>, key: &str) -> Option<Value> {
    map.remove(key)
}

/// Converts a Widget between the three shapes, through (host, port,
/// replicas, status replicas).
pub fn convert(mut obj: Value, desired: &str) -> Value {
    let from = obj["apiVersion"].as_str().unwrap_or("").rsplit('/').next().unwrap_or("").to_string();
    let to = desired.rsplit('/').next().unwrap_or("").to_string();
    obj["apiVersion"] = json!(desired);
    if let Some(spec) = obj.get_mut("spec").and_then(Value::as_object_mut) {
        let (host, port) = match from.as_str() {
            "v1" => match take(spec, "hostPort").as_ref().and_then(Value::as_str).and_then(|hp| hp.split_once(':')) {
                Some((h, p)) => (Some(json!(h)), p.parse::<i64>().ok().map(Value::from)),
                None => (None, None),
            },
            "v2" => (take(spec, "host"), take(spec, "port")),
            _ => match take(spec, "address") {
                Some(Value::Object(mut a)) => (a.remove("host"), a.remove("port")),
                _ => (None, None),
            },
        };
        let replicas = take(spec, if from == "v3" { "count" } else { "replicas" });
        match to.as_str() {
            "v1" => {
                if let (Some(h), Some(p)) = (&host, &port) {
                    spec.insert("hostPort".into(), json!(format!("{}:{}", h.as_str().unwrap_or(""), p)));
                }
            }
            "v2" => {
                host.map(|h| spec.insert("host".into(), h));
                port.map(|p| spec.insert("port".into(), p));
            }
            _ => {
                if host.is_some() || port.is_some() {
                    spec.insert("address".into(), json!({"host": host, "port": port}));
                }
            }
        }
        replicas.map(|r| spec.insert(if to == "v3" { "count" } else { "replicas" }.into(), r));
    }
    if let Some(status) = obj.get_mut("status").and_then(Value::as_object_mut) {
        if let Some(r) = take(status, if from == "v3" { "count" } else { "replicas" }) {
            status.insert(if to == "v3" { "count" } else { "replicas" }.into(), r);
        }
    }
    obj
}
