//! crdstore's OTLP span export: spans encoded as they end (`encode`) into
//! a queue of batches (`batch`), each sent as one OTLP request over gRPC
//! or HTTP/protobuf, configured by the standard variables (the signal's or
//! the common endpoint, headers and timeout, and the `OTEL_BSP_*`
//! batching). It replaces opentelemetry-otlp's exporter and the SDK's
//! batch span processor for traces, whose conversions, copies and encoding
//! were most of what tracing cost (metrics still go through them).

mod batch;
mod encode;

use std::borrow::Cow;
use std::fmt;
use std::time::Duration;

use opentelemetry::InstrumentationScope;
use opentelemetry_sdk::error::{OTelSdkError, OTelSdkResult};
use opentelemetry_sdk::Resource;

pub(super) use self::batch::{Batching, Exporter, Queue};
use self::encode::Encoder;
pub(super) use self::encode::{Attributes, Finished, Scalar};
use super::env;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// OTLP/gRPC's trace export method.
const GRPC_PATH: &str = "/opentelemetry.proto.collector.trace.v1.TraceService/Export";
/// The specification's defaults.
const GRPC_DEFAULT: &str = "http://localhost:4317";
const HTTP_DEFAULT: &str = "http://localhost:4318";
const HTTP_TRACES_PATH: &str = "/v1/traces";
const TIMEOUT_DEFAULT: Duration = Duration::from_secs(10);

/// The traces' variable, else the common one.
fn traces_or_common(setting: &str) -> Option<String> {
    super::signal_or_common("TRACES", setting)
}

/// Where spans go, as the specification resolves it: the traces endpoint
/// as given; the common one with `/v1/traces` appended for HTTP, as given
/// for gRPC.
fn endpoint(grpc: bool) -> String {
    if let Some(endpoint) = env("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") {
        return endpoint;
    }
    let base =
        env("OTEL_EXPORTER_OTLP_ENDPOINT").unwrap_or_else(|| (if grpc { GRPC_DEFAULT } else { HTTP_DEFAULT }).into());
    match grpc {
        true => base,
        false => format!("{}{HTTP_TRACES_PATH}", base.trim_end_matches('/')),
    }
}

/// `key=value` pairs, comma-separated, values percent-decoded.
fn headers(value: &str) -> Vec<(String, String)> {
    value
        .split(',')
        .filter_map(|pair| pair.split_once('='))
        .map(|(k, v)| {
            let v = v.trim();
            let decoded = percent_encoding::percent_decode_str(v).decode_utf8().map(Cow::into_owned);
            (k.trim().to_ascii_lowercase(), decoded.unwrap_or_else(|_| v.to_string()))
        })
        .filter(|(k, v)| !k.is_empty() && !v.is_empty())
        .collect()
}

/// The export timeout in milliseconds, the signal's or the common one.
fn timeout() -> Result<Duration, BoxError> {
    match traces_or_common("TIMEOUT") {
        None => Ok(TIMEOUT_DEFAULT),
        Some(ms) => ms
            .trim()
            .parse::<u64>()
            .map(Duration::from_millis)
            .map_err(|_| format!("OTEL_EXPORTER_OTLP_TIMEOUT {ms:?} is not a number of milliseconds").into()),
    }
}

/// How the requests travel.
enum Transport {
    Grpc { channel: tonic::transport::Channel, metadata: tonic::metadata::MetadataMap },
    Http { client: reqwest::Client, url: reqwest::Url, headers: reqwest::header::HeaderMap },
}

/// What sends a batch. Made inside the runtime, on which the export task
/// runs.
pub struct SpanExporter {
    encoder: Encoder,
    transport: Transport,
    timeout: Duration,
    runtime: tokio::runtime::Handle,
}

impl fmt::Debug for SpanExporter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let protocol = match self.transport {
            Transport::Grpc { .. } => "grpc",
            Transport::Http { .. } => "http/protobuf",
        };
        f.debug_struct("SpanExporter").field("protocol", &protocol).field("timeout", &self.timeout).finish()
    }
}

impl SpanExporter {
    /// From the `OTEL_EXPORTER_OTLP_*` variables; `grpc` chooses the
    /// protocol, and the requests carry `resource` and `scope`. Call inside
    /// the runtime.
    pub fn from_env(grpc: bool, resource: &Resource, scope: &InstrumentationScope) -> Result<Self, BoxError> {
        if let Some(compression) = traces_or_common("COMPRESSION").filter(|c| c.trim() != "none") {
            return Err(format!("OTEL_EXPORTER_OTLP_COMPRESSION {compression:?} is not supported: use none").into());
        }
        let endpoint = endpoint(grpc);
        let pairs = traces_or_common("HEADERS").map(|h| headers(&h)).unwrap_or_default();
        let timeout = timeout()?;
        let invalid = |what: &str, err: &dyn fmt::Display| format!("OTLP traces {what}: {err}");
        let transport = if grpc {
            let channel = tonic::transport::Endpoint::from_shared(endpoint.clone())
                .map_err(|e| invalid(&format!("endpoint {endpoint:?}"), &e))?
                .timeout(timeout)
                .connect_lazy();
            let mut metadata = tonic::metadata::MetadataMap::new();
            for (k, v) in pairs {
                let key = tonic::metadata::MetadataKey::from_bytes(k.as_bytes()).map_err(|e| invalid("header", &e))?;
                metadata.insert(key, v.parse().map_err(|e| invalid("header", &e))?);
            }
            Transport::Grpc { channel, metadata }
        } else {
            let url = reqwest::Url::parse(&endpoint).map_err(|e| invalid(&format!("endpoint {endpoint:?}"), &e))?;
            let mut headers = reqwest::header::HeaderMap::new();
            headers.insert(reqwest::header::CONTENT_TYPE, "application/x-protobuf".parse()?);
            for (k, v) in pairs {
                let name = reqwest::header::HeaderName::from_bytes(k.as_bytes()).map_err(|e| invalid("header", &e))?;
                headers.insert(name, v.parse().map_err(|e| invalid("header", &e))?);
            }
            let agent = concat!("crdstore/", env!("CARGO_PKG_VERSION"));
            let client = reqwest::Client::builder().timeout(timeout).user_agent(agent).build()?;
            Transport::Http { client, url, headers }
        };
        let encoder = Encoder::new(resource, scope);
        Ok(Self { encoder, transport, timeout, runtime: tokio::runtime::Handle::try_current()? })
    }
}

/// A request whose bytes are already encoded.
#[derive(Clone, Default, PartialEq)]
struct Encoded(prost::bytes::Bytes);

impl fmt::Debug for Encoded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Encoded({} bytes)", self.0.len())
    }
}

impl prost::Message for Encoded {
    fn encode_raw(&self, buf: &mut impl prost::bytes::BufMut) {
        buf.put_slice(&self.0);
    }

    fn merge_field(
        &mut self,
        tag: u32,
        wire_type: prost::encoding::WireType,
        buf: &mut impl prost::bytes::Buf,
        ctx: prost::encoding::DecodeContext,
    ) -> Result<(), prost::DecodeError> {
        prost::encoding::skip_field(wire_type, tag, buf, ctx)
    }

    fn encoded_len(&self) -> usize {
        self.0.len()
    }

    fn clear(&mut self) {
        self.0.clear();
    }
}

/// The collector's answer, read no further than its end.
#[derive(Clone, PartialEq, prost::Message)]
struct Answer {}

/// `send` within `timeout`.
async fn within(timeout: Duration, send: impl std::future::Future<Output = OTelSdkResult>) -> OTelSdkResult {
    tokio::time::timeout(timeout, send).await.unwrap_or(Err(OTelSdkError::Timeout(timeout)))
}

fn failed(err: impl fmt::Display) -> OTelSdkError {
    OTelSdkError::InternalFailure(format!("OTLP trace export failed: {err}"))
}

/// How many times an export is tried, and the wait before the first retry
/// (doubled after each).
const ATTEMPTS: u32 = 4;
const FIRST_RETRY: Duration = Duration::from_millis(100);

/// Whether a collector's gRPC answer is worth another try (OTLP's list of
/// retryable codes).
fn retryable_code(code: tonic::Code) -> bool {
    use tonic::Code::*;
    matches!(code, Cancelled | DeadlineExceeded | ResourceExhausted | Aborted | OutOfRange | Unavailable | DataLoss)
}

/// Whether an HTTP answer is worth another try (OTLP/HTTP's list).
fn retryable_status(status: reqwest::StatusCode) -> bool {
    matches!(status.as_u16(), 429 | 502 | 503 | 504)
}

/// One try over gRPC: Ok, or the error and whether to try again.
async fn grpc_once(
    channel: &tonic::transport::Channel,
    metadata: &tonic::metadata::MetadataMap,
    body: &prost::bytes::Bytes,
) -> Result<(), (OTelSdkError, bool)> {
    let mut grpc = tonic::client::Grpc::new(channel.clone());
    // A connection not made yet, or lost: worth another try.
    grpc.ready().await.map_err(|e| (failed(e), true))?;
    let mut request = tonic::Request::new(Encoded(body.clone()));
    *request.metadata_mut() = metadata.clone();
    let path = http::uri::PathAndQuery::from_static(GRPC_PATH);
    let codec = tonic_prost::ProstCodec::<Encoded, Answer>::default();
    match grpc.unary(request, path, codec).await {
        Ok(_) => Ok(()),
        Err(status) => Err((failed(&status), retryable_code(status.code()))),
    }
}

/// One try over HTTP/protobuf.
async fn http_once(
    client: &reqwest::Client,
    url: &reqwest::Url,
    headers: &reqwest::header::HeaderMap,
    body: &prost::bytes::Bytes,
) -> Result<(), (OTelSdkError, bool)> {
    let post = client.post(url.clone()).headers(headers.clone()).body(body.clone());
    let answer = post.send().await.map_err(|e| (failed(&e), e.is_connect() || e.is_timeout() || e.is_request()))?;
    let status = answer.status();
    let _ = answer.bytes().await;
    match status.is_success() {
        true => Ok(()),
        false => Err((failed(format!("the collector answered {status}")), retryable_status(status))),
    }
}

impl SpanExporter {
    /// Sends `body` within the timeout, trying again with backoff while
    /// the failure is one OTLP says to retry. A batch that fails is dropped
    /// with a warning in the log.
    async fn send(&self, body: Vec<u8>) -> OTelSdkResult {
        let body = prost::bytes::Bytes::from(body);
        let result = within(self.timeout, async {
            let mut wait = FIRST_RETRY;
            let mut attempt = 1;
            loop {
                let tried = match &self.transport {
                    Transport::Grpc { channel, metadata } => grpc_once(channel, metadata, &body).await,
                    Transport::Http { client, url, headers } => http_once(client, url, headers, &body).await,
                };
                match tried {
                    Ok(()) => return Ok(()),
                    Err((err, true)) if attempt < ATTEMPTS => {
                        tracing::debug!(error = %err, attempt, "OTLP trace export failed; trying again");
                        tokio::time::sleep(wait).await;
                        wait *= 2;
                        attempt += 1;
                    }
                    Err((err, _)) => return Err(err),
                }
            }
        })
        .await;
        if let Err(err) = &result {
            tracing::warn!(error = %err, "OTLP trace export failed; its spans are dropped");
        }
        result
    }
}

/// The spans waiting in `queue`, taken and decoded as a collector would
/// read their requests.
#[cfg(test)]
pub(super) fn sent_spans(queue: &Queue) -> Vec<opentelemetry_proto::tonic::trace::v1::Span> {
    use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
    use prost::Message as _;
    let scope = InstrumentationScope::builder("crdstore").build();
    let encoder = Encoder::new(&Resource::builder_empty().build(), &scope);
    let mut spans = Vec::new();
    while let Some((batch, count)) = queue.take(true) {
        let request = ExportTraceServiceRequest::decode(encoder.request(&batch).as_slice()).expect("decodes");
        let mut taken: Vec<_> =
            request.resource_spans.into_iter().flat_map(|r| r.scope_spans).flat_map(|s| s.spans).collect();
        assert_eq!(taken.len(), count, "the batch holds as many spans as it counted");
        spans.append(&mut taken);
    }
    spans
}

/// A collector on loopback answering its n-th request with `answers[n]`
/// (200 past them) after `delay`, keeping the bodies it is sent; the
/// exporter to it.
#[cfg(test)]
pub(super) async fn collector(
    answers: Vec<u16>,
    delay: Duration,
) -> (SpanExporter, std::sync::Arc<std::sync::Mutex<Vec<Vec<u8>>>>) {
    let bodies = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let kept = bodies.clone();
    let app = axum::Router::new().route(
        "/v1/traces",
        axum::routing::post(move |body: axum::body::Bytes| async move {
            let n = {
                let mut kept = kept.lock().unwrap();
                kept.push(body.to_vec());
                kept.len() - 1
            };
            tokio::time::sleep(delay).await;
            axum::http::StatusCode::from_u16(answers.get(n).copied().unwrap_or(200)).unwrap()
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = reqwest::Url::parse(&format!("http://{}/v1/traces", listener.local_addr().unwrap())).unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    let exporter = SpanExporter {
        encoder: Encoder::default(),
        transport: Transport::Http { client: reqwest::Client::new(), url, headers: Default::default() },
        timeout: Duration::from_secs(10),
        runtime: tokio::runtime::Handle::current(),
    };
    (exporter, bodies)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn retryable_answers_are_tried_again_and_others_are_errors() {
        let hits = |bodies: &std::sync::Mutex<Vec<Vec<u8>>>| {
            let bodies = bodies.lock().unwrap();
            assert!(bodies.iter().all(|b| b == b"spans"), "the same bytes on every try");
            bodies.len()
        };
        let (exporter, bodies) = collector(vec![503, 429], Duration::ZERO).await;
        exporter.send(b"spans".to_vec()).await.expect("the third try is taken");
        assert_eq!(hits(&bodies), 3);

        let (exporter, bodies) = collector(vec![400], Duration::ZERO).await;
        let err = exporter.send(b"spans".to_vec()).await.unwrap_err();
        assert!(err.to_string().contains("the collector answered 400"), "{err}");
        assert_eq!(hits(&bodies), 1, "a bad request is not tried again");

        let (exporter, bodies) = collector(vec![503; 10], Duration::ZERO).await;
        assert!(exporter.send(b"spans".to_vec()).await.is_err());
        assert_eq!(hits(&bodies), ATTEMPTS as usize, "tries are bounded");
    }

    #[test]
    fn headers_are_pairs_with_percent_decoded_values() {
        let parsed = headers("Api-Key=s%20ecret, tenant = a=b ,empty=,=x,novalue");
        assert_eq!(parsed, vec![("api-key".into(), "s ecret".into()), ("tenant".into(), "a=b".into())]);
    }
}
