//! One request, observed: its server span (child of an incoming W3C
//! `traceparent`), its labels, and the body that ends both. When the
//! response body ends (for a watch, when the watch does) the request counts
//! in `apiserver_request_total` and `apiserver_request_duration_seconds`,
//! leaves `apiserver_longrunning_requests`, and logs one debug line.

use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Instant;

use http_body::{Body, Frame, SizeHint};
use opentelemetry::KeyValue;
use tracing::field::{Empty, Field, Value};
use tracing::Span;

use super::RequestInfo;
use crate::metrics;

/// Which transport a request came in on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    Http,
    Grpc,
}

tokio::task_local! {
    /// The labels of the gRPC request being handled, for its handler to
    /// complete (`note`).
    static NOTED: Arc<Mutex<RequestInfo>>;
}

/// Notes what a gRPC handler's request names (group, version, resource,
/// namespace, name) in the request's labels and span. Outside a request
/// (a test calling a handler) it does nothing.
pub fn note(group: &str, version: &str, resource: &str, namespace: &str, name: &str) {
    let _ = NOTED.try_with(|noted| {
        let mut info = noted.lock().unwrap_or_else(|e| e.into_inner());
        info.group = group.to_string();
        info.version = version.to_string();
        info.resource = resource.to_string();
        info.namespace = namespace.to_string();
        info.name = name.to_string();
    });
    let span = Span::current();
    if !span.is_disabled() {
        record_names(&span, group, version, resource, namespace, name);
    }
}

/// Records what a request names in its span, leaving out what it does not.
fn record_names(span: &Span, group: &str, version: &str, resource: &str, namespace: &str, name: &str) {
    let [group, version, resource, namespace, name] = [group, version, resource, namespace, name].map(given);
    record_all(
        span,
        [
            ("crdstore.group", group.as_ref().map(|v| v as &dyn Value)),
            ("crdstore.version", version.as_ref().map(|v| v as &dyn Value)),
            ("crdstore.resource", resource.as_ref().map(|v| v as &dyn Value)),
            ("k8s.namespace.name", namespace.as_ref().map(|v| v as &dyn Value)),
            ("crdstore.name", name.as_ref().map(|v| v as &dyn Value)),
        ],
    );
}

/// Records several fields of a span in one call into the subscriber (one
/// lock of the span's data, not one per field); a field given no value is
/// left as it is.
fn record_all<const N: usize>(span: &Span, values: [(&str, Option<&dyn Value>); N]) {
    let Some(meta) = span.metadata() else { return };
    let fields = meta.fields();
    let found = values.map(|(name, value)| fields.field(name).map(|field| (field, value)));
    debug_assert!(found.iter().all(Option::is_some), "a field the span does not have");
    if found.iter().any(Option::is_none) {
        return;
    }
    let pairs: [(&Field, Option<&dyn Value>); N] = std::array::from_fn(|i| match &found[i] {
        Some((field, value)) => (field, *value),
        None => unreachable!("every field was found"),
    });
    span.record_all(&fields.value_set(&pairs));
}

/// A request in flight, until its response body ends.
pub struct InFlight {
    info: Arc<Mutex<RequestInfo>>,
    transport: Transport,
    start: Instant,
    span: Span,
    /// The HTTP code (gRPC statuses as their HTTP equivalents).
    code: u16,
    /// The labels it counts under in `apiserver_longrunning_requests`.
    long_running: Option<Vec<KeyValue>>,
}

/// Reads the W3C trace context of incoming headers (HTTP headers, gRPC
/// metadata).
struct Headers<'a>(&'a http::HeaderMap);

impl opentelemetry::propagation::Extractor for Headers<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(|v| v.to_str().ok())
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(|k| k.as_str()).collect()
    }
}

/// The span name: `package.Service/Method` for gRPC (the RPC semantic
/// conventions), `METHOD route` for HTTP, with the route's variable parts
/// as placeholders.
fn span_name(transport: Transport, method: &str, path: &str, info: &RequestInfo) -> String {
    match transport {
        Transport::Grpc => path.trim_start_matches('/').to_string(),
        Transport::Http if info.resource.is_empty() => format!("{method} {path}"),
        Transport::Http => {
            let mut route = format!("{method} /apis/{}/{}", info.group, info.version);
            if !info.namespace.is_empty() {
                route.push_str("/namespaces/{namespace}");
            }
            route.push('/');
            route.push_str(&info.resource);
            if !info.name.is_empty() {
                route.push_str("/{name}");
            }
            if !info.subresource.is_empty() {
                route.push('/');
                route.push_str(info.subresource);
            }
            route
        }
    }
}

/// A field's value, or nothing for an empty one.
fn given(value: &str) -> Option<&str> {
    (!value.is_empty()).then_some(value)
}

/// Starts observing a request: its server span, child of the headers'
/// `traceparent` when tracing is on, and its place among the long-running
/// requests. What the request names is given when the span is made (one
/// call into the subscriber, not one per field); gRPC requests note theirs
/// later.
pub fn start(transport: Transport, info: RequestInfo, method: &str, path: &str, headers: &http::HeaderMap) -> InFlight {
    let grpc = transport == Transport::Grpc;
    let (service, rpc) = match grpc {
        true => path.trim_start_matches('/').split_once('/').unwrap_or((path, "")),
        false => ("", ""),
    };
    let make = || {
        // A root: its parent is the `traceparent`'s, never a span that
        // happens to be current on this thread.
        tracing::debug_span!(
            target: "crdstore::request",
            parent: None,
            "request",
            otel.name = span_name(transport, method, path, &info),
            otel.kind = "server",
            otel.status_code = Empty,
            trace_id = Empty,
            span_id = Empty,
            "rpc.system" = grpc.then_some("grpc"),
            "rpc.service" = given(service),
            "rpc.method" = given(rpc),
            "rpc.grpc.status_code" = Empty,
            "http.request.method" = (!grpc).then_some(method),
            "url.path" = (!grpc).then_some(path),
            "http.response.status_code" = Empty,
            "crdstore.verb" = info.verb,
            "crdstore.group" = given(&info.group),
            "crdstore.version" = given(&info.version),
            "crdstore.resource" = given(&info.resource),
            "crdstore.subresource" = given(info.subresource),
            "crdstore.scope" = Empty,
            "k8s.namespace.name" = given(&info.namespace),
            "crdstore.name" = given(&info.name),
            "crdstore.code" = Empty,
        )
    };
    // With tracing on, the span is the `traceparent`'s child
    // (`traces::adopt`). Its IDs are for the request's log lines too (JSON
    // logs show its span's fields), recorded only when the log filter lets
    // such lines through (with spans exported, the span is always enabled:
    // asking `tracing` would always say yes).
    let span = make();
    if super::tracing_on() && !span.is_disabled() {
        let parent = opentelemetry::global::get_text_map_propagator(|p| p.extract(&Headers(headers)));
        if let Some(ids) = super::traces::adopt(&span, parent, super::logs_show_request_spans()) {
            span.record("trace_id", tracing::field::display(ids.trace_id()));
            span.record("span_id", tracing::field::display(ids.span_id()));
        }
    }
    let long_running = info.long_running().then(|| {
        let labels = vec![
            KeyValue::new("verb", info.verb),
            KeyValue::new("group", info.group.clone()),
            KeyValue::new("version", info.version.clone()),
            KeyValue::new("resource", info.resource.clone()),
            KeyValue::new("subresource", info.subresource),
            KeyValue::new("scope", info.scope()),
        ];
        metrics::get().longrunning.add(1, &labels);
        labels
    });
    InFlight { info: Arc::new(Mutex::new(info)), transport, start: Instant::now(), span, code: 0, long_running }
}

/// The HTTP code Kubernetes' clients and dashboards read for a gRPC status
/// (google.rpc.Code's HTTP mapping); an OK create is 201, as over HTTP.
fn grpc_to_http(code: &str, verb: &str) -> u16 {
    match code {
        "0" if verb == "create" => 201,
        "0" => 200,
        "1" => 499,
        "3" | "9" | "11" => 400,
        "4" => 504,
        "5" => 404,
        "6" | "10" => 409,
        "7" => 403,
        "8" => 429,
        "12" => 501,
        "14" => 503,
        "16" => 401,
        _ => 500,
    }
}

impl InFlight {
    /// The request's span, to run its handler in.
    pub fn span(&self) -> &Span {
        &self.span
    }

    /// Runs `handler` with this request's labels open to `note`.
    pub async fn scope<F: std::future::Future>(&self, handler: F) -> F::Output {
        NOTED.scope(self.info.clone(), handler).await
    }

    /// Takes the code from the response head and wraps its body, which ends
    /// the request when it ends.
    pub fn finish<B>(mut self, response: http::Response<B>) -> http::Response<Observed<B>> {
        match self.transport {
            Transport::Http => self.code = response.status().as_u16(),
            Transport::Grpc => {
                // A trailers-only response (an error) has its status in the
                // head; otherwise it comes in the trailers.
                if let Some(status) = response.headers().get("grpc-status").and_then(|v| v.to_str().ok()) {
                    self.grpc_status(status);
                }
            }
        }
        response.map(|inner| Observed { inner, flight: Some(self) })
    }

    fn grpc_status(&mut self, status: &str) {
        let verb = self.info.lock().map(|i| i.verb).unwrap_or("");
        self.code = grpc_to_http(status, verb);
        self.span.record("rpc.grpc.status_code", status.parse::<i64>().unwrap_or(2));
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        let info = self.info.lock().unwrap_or_else(|e| e.into_inner());
        if self.code == 0 {
            // No status arrived: the body or the stream was cut short.
            self.code = if self.transport == Transport::Grpc { grpc_to_http("0", info.verb) } else { 499 };
        }
        let elapsed = metrics::since(self.start);
        super::series::record(&info, self.code, elapsed);
        if let Some(long_running) = self.long_running.take() {
            metrics::get().longrunning.add(-1, &long_running);
        }
        if !self.span.is_disabled() {
            // Signed: tracing-opentelemetry writes a u64 field as a string.
            let (scope, code) = (info.scope(), i64::from(self.code));
            let http = self.transport == Transport::Http;
            record_all(
                &self.span,
                [
                    ("crdstore.scope", Some(&scope as &dyn Value)),
                    ("crdstore.code", Some(&code as &dyn Value)),
                    ("http.response.status_code", http.then_some(&code as &dyn Value)),
                    ("otel.status_code", (code >= 500).then_some(&"error" as &dyn Value)),
                ],
            );
        }
        tracing::debug!(
            target: "crdstore::request",
            parent: &self.span,
            verb = info.verb,
            group = %info.group,
            version = %info.version,
            resource = %info.resource,
            subresource = info.subresource,
            namespace = %info.namespace,
            name = %info.name,
            code = self.code,
            seconds = elapsed,
            "request"
        );
    }
}

/// A response body that ends its request's observation when it ends.
pub struct Observed<B> {
    inner: B,
    flight: Option<InFlight>,
}

impl<B: Body + Unpin> Body for Observed<B> {
    type Data = B::Data;
    type Error = B::Error;

    fn poll_frame(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.inner).poll_frame(cx);
        match &polled {
            Poll::Ready(Some(Ok(frame))) => {
                if let (Some(trailers), Some(flight)) = (frame.trailers_ref(), this.flight.as_mut()) {
                    if let Some(status) = trailers.get("grpc-status").and_then(|v| v.to_str().ok()) {
                        flight.grpc_status(status);
                    }
                }
            }
            Poll::Ready(None) | Poll::Ready(Some(Err(_))) => this.flight = None,
            Poll::Pending => {}
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grpc_codes_read_as_http_codes() {
        assert_eq!(grpc_to_http("0", "create"), 201);
        assert_eq!(grpc_to_http("0", "get"), 200);
        assert_eq!(grpc_to_http("5", "get"), 404);
        assert_eq!(grpc_to_http("6", "create"), 409);
        assert_eq!(grpc_to_http("14", "get"), 503);
    }
}
