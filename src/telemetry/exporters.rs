//! opentelemetry-otlp's span and metric exporters, set up from the standard
//! variables. opentelemetry-otlp reads the endpoints, headers, timeouts and
//! compression (`OTEL_EXPORTER_OTLP_COMPRESSION=gzip`, or the signal's
//! variable) itself; this chooses the protocol and sets up TLS for an
//! `https://` endpoint: the CA of `OTEL_EXPORTER_OTLP_CERTIFICATE` (else the
//! system's roots), and a client certificate and key from
//! `OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE` and `_CLIENT_KEY`, each with its
//! per-signal variant, as the specification names them. OTLP/HTTP goes
//! through crdstore's own reqwest, whose rustls runs on ring.

use std::time::Duration;

use opentelemetry_http::{Bytes, HttpError};
use opentelemetry_otlp::tonic_types::transport::{Certificate, ClientTlsConfig, Identity};
use opentelemetry_otlp::{Protocol, WithExportConfig as _, WithHttpConfig, WithTonicConfig};

use super::{signal_or_common, BoxError};

/// The protocol of a signal (`TRACES`, `METRICS`): `grpc` or
/// `http/protobuf` (the specification's default).
fn protocol(signal: &str) -> Result<Protocol, BoxError> {
    let chosen = signal_or_common(signal, "PROTOCOL");
    match chosen.as_deref().unwrap_or("http/protobuf") {
        "grpc" => Ok(Protocol::Grpc),
        "http/protobuf" => Ok(Protocol::HttpBinary),
        other => {
            Err(format!("OTEL_EXPORTER_OTLP_PROTOCOL {other:?} is not supported: use grpc or http/protobuf").into())
        }
    }
}

/// What a signal's TLS trusts and shows, read from the files its variables
/// name.
#[derive(Default)]
struct Tls {
    /// PEM: the CA certificates the collector's certificate must chain to.
    ca: Option<Vec<u8>>,
    /// PEM: the client's certificate and its key.
    identity: Option<(Vec<u8>, Vec<u8>)>,
}

impl Tls {
    fn from_env(signal: &str) -> Result<Self, BoxError> {
        let read = |setting: &str| -> Result<Option<Vec<u8>>, BoxError> {
            match signal_or_common(signal, setting) {
                None => Ok(None),
                Some(path) => std::fs::read(&path)
                    .map(Some)
                    .map_err(|err| format!("OTEL_EXPORTER_OTLP_{setting} {path:?}: {err}").into()),
            }
        };
        let ca = read("CERTIFICATE")?;
        let identity = match (read("CLIENT_CERTIFICATE")?, read("CLIENT_KEY")?) {
            (Some(certificate), Some(key)) => Some((certificate, key)),
            (None, None) => None,
            _ => return Err("OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE and _CLIENT_KEY go together".into()),
        };
        Ok(Self { ca, identity })
    }
}

/// Whether a signal's endpoint is `https://`.
fn https(signal: &str) -> bool {
    signal_or_common(signal, "ENDPOINT").is_some_and(|e| e.trim().to_ascii_lowercase().starts_with("https://"))
}

/// The gRPC exporter of a signal: with its TLS when the endpoint is
/// `https://`.
fn tonic<B: WithTonicConfig>(builder: B, signal: &str) -> Result<B, BoxError> {
    if !https(signal) {
        return Ok(builder);
    }
    let tls = Tls::from_env(signal)?;
    let config = ClientTlsConfig::new();
    let config = match &tls.ca {
        Some(ca) => config.ca_certificate(Certificate::from_pem(ca)),
        None => config.with_native_roots(),
    };
    let config = match &tls.identity {
        Some((certificate, key)) => config.identity(Identity::from_pem(certificate, key)),
        None => config,
    };
    Ok(builder.with_tls_config(config))
}

/// The export timeout of a signal, in milliseconds, as opentelemetry-otlp
/// reads it for its own clients (10 s unless set).
fn timeout(signal: &str) -> Result<Duration, BoxError> {
    match signal_or_common(signal, "TIMEOUT") {
        None => Ok(Duration::from_secs(10)),
        Some(ms) => ms
            .trim()
            .parse::<u64>()
            .map(Duration::from_millis)
            .map_err(|_| format!("OTEL_EXPORTER_OTLP_TIMEOUT {ms:?} is not a number of milliseconds").into()),
    }
}

/// The OTLP/HTTP exporter of a signal, through crdstore's reqwest, with the
/// signal's TLS.
fn http<B: WithHttpConfig>(builder: B, signal: &str) -> Result<B, BoxError> {
    let tls = Tls::from_env(signal)?;
    let agent = concat!("crdstore/", env!("CARGO_PKG_VERSION"));
    let mut client = reqwest::Client::builder().timeout(timeout(signal)?).user_agent(agent);
    if let Some(ca) = &tls.ca {
        client = client.tls_built_in_root_certs(false);
        for certificate in reqwest::Certificate::from_pem_bundle(ca)? {
            client = client.add_root_certificate(certificate);
        }
    }
    if let Some((certificate, key)) = &tls.identity {
        let pem = [certificate.as_slice(), b"\n", key.as_slice()].concat();
        client = client.identity(reqwest::Identity::from_pem(&pem)?);
    }
    let client = HttpClient { client: client.build()?, runtime: tokio::runtime::Handle::try_current()? };
    Ok(builder.with_http_client(client))
}

/// The span exporter. Call inside the runtime.
pub(super) fn span_exporter() -> Result<opentelemetry_otlp::SpanExporter, BoxError> {
    let builder = opentelemetry_otlp::SpanExporter::builder();
    Ok(match protocol("TRACES")? {
        Protocol::Grpc => tonic(builder.with_tonic(), "TRACES")?.build()?,
        protocol => http(builder.with_http().with_protocol(protocol), "TRACES")?.build()?,
    })
}

/// The metric exporter. Call inside the runtime.
pub(super) fn metric_exporter() -> Result<opentelemetry_otlp::MetricExporter, BoxError> {
    let builder = opentelemetry_otlp::MetricExporter::builder();
    Ok(match protocol("METRICS")? {
        Protocol::Grpc => tonic(builder.with_tonic(), "METRICS")?.build()?,
        protocol => http(builder.with_http().with_protocol(protocol), "METRICS")?.build()?,
    })
}

/// OTLP/HTTP's client: crdstore's reqwest. The SDK exports from threads of
/// its own, outside the runtime, so each request runs on the runtime the
/// exporter was made in.
#[derive(Debug)]
struct HttpClient {
    client: reqwest::Client,
    runtime: tokio::runtime::Handle,
}

#[async_trait::async_trait]
impl opentelemetry_http::HttpClient for HttpClient {
    async fn send_bytes(&self, request: http::Request<Bytes>) -> Result<http::Response<Bytes>, HttpError> {
        let request = reqwest::Request::try_from(request)?;
        let client = self.client.clone();
        let (status, headers, body) = self
            .runtime
            .spawn(async move {
                let response = client.execute(request).await?;
                let (status, headers) = (response.status(), response.headers().clone());
                Ok::<_, reqwest::Error>((status, headers, response.bytes().await?))
            })
            .await??;
        let mut response = http::Response::builder().status(status).body(body)?;
        *response.headers_mut() = headers;
        Ok(response)
    }
}
