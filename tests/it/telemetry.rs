//! Telemetry: the apiserver's metrics at `/metrics` after known requests
//! (parsed as Prometheus text), OTLP traces and metrics from the built
//! binary into a receiver started here (over gRPC and over HTTP/protobuf),
//! with an incoming `traceparent` as the server span's parent and the
//! events logged inside spans as span events, and both reflection versions
//! and per-service health. `export` has gzip and TLS.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crdstore::pb::v1 as pb;
use crdstore::pb::v1::custom_resource_definitions_client::CustomResourceDefinitionsClient;
use opentelemetry_proto::tonic::collector::metrics::v1::metrics_service_server::{
    MetricsService, MetricsServiceServer,
};
use opentelemetry_proto::tonic::collector::metrics::v1::{ExportMetricsServiceRequest, ExportMetricsServiceResponse};
use opentelemetry_proto::tonic::collector::trace::v1::trace_service_server::{TraceService, TraceServiceServer};
use opentelemetry_proto::tonic::collector::trace::v1::{ExportTraceServiceRequest, ExportTraceServiceResponse};
use opentelemetry_proto::tonic::common::v1::any_value::Value as AnyValue;
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message as _;
use serde_json::json;
use tokio::io::AsyncBufReadExt as _;

use crate::support::{create, Crd, TestServer, WAIT};

mod configs;
mod export;
mod webhook;

// ---------------------------------------------------------------- /metrics

/// The samples of `/metrics`, parsed.
pub(crate) async fn scrape(http: SocketAddr) -> Vec<prometheus_parse::Sample> {
    let response = reqwest::get(format!("http://{http}/metrics")).await.unwrap();
    assert_eq!(response.status(), 200);
    assert!(response.headers()["content-type"].to_str().unwrap().starts_with("text/plain"));
    let text = response.text().await.unwrap();
    let lines = text.lines().map(|l| Ok(l.to_string()));
    prometheus_parse::Scrape::parse(lines).unwrap().samples
}

/// The value of the series `name` whose labels include `labels`, summed
/// (0 when there is none). Histograms give their count.
pub(crate) fn value(samples: &[prometheus_parse::Sample], name: &str, labels: &[(&str, &str)]) -> f64 {
    samples
        .iter()
        .filter(|s| s.metric == name && labels.iter().all(|(k, v)| s.labels.get(k) == Some(*v)))
        .map(|s| match &s.value {
            prometheus_parse::Value::Counter(v) | prometheus_parse::Value::Gauge(v) => *v,
            prometheus_parse::Value::Untyped(v) => *v,
            prometheus_parse::Value::Histogram(buckets) => buckets.last().map_or(0.0, |b| b.count),
            prometheus_parse::Value::Summary(_) => 0.0,
        })
        .sum()
}

/// A definition with a CEL rule, in a group no other test uses.
fn meters(group: &str) -> Crd {
    Crd::new(group, "Meter").set(
        "/spec/versions/0/schema/openAPIV3Schema",
        json!({
            "type": "object",
            "properties": {"spec": {
                "type": "object",
                "properties": {"size": {"type": "integer"}},
                "x-kubernetes-validations": [{"rule": "self.size >= 0", "message": "size must not be negative"}],
            }},
        }),
    )
}

#[tokio::test]
async fn metrics_count_known_requests_under_the_apiservers_names() {
    let server = TestServer::start_with(|config| {
        config.window = crdstore::storage::HistoryWindow { min_age: Duration::ZERO, min_revisions: 1 };
        config.compaction_interval = Duration::from_millis(100);
    })
    .await;
    let http = server.server().http_addr;
    let group = "metered.example.com";
    let before = scrape(http).await;
    create(&mut server.definitions().await, &meters(group)).await;
    let client = reqwest::Client::new();
    let collection = format!("http://{http}/apis/{group}/v1/namespaces/default/meters");
    // A watch over HTTP, open while the writes happen.
    let mut watch = client.get(format!("{collection}?watch=true")).send().await.unwrap();
    assert_eq!(watch.status(), 200);
    for i in 0..3 {
        let body = json!({"apiVersion": format!("{group}/v1"), "kind": "Meter",
            "metadata": {"name": format!("m{i}")}, "spec": {"size": i}});
        let created = client.post(&collection).json(&body).send().await.unwrap();
        assert_eq!(created.status(), 201);
    }
    let refused = json!({"apiVersion": format!("{group}/v1"), "kind": "Meter",
        "metadata": {"name": "bad"}, "spec": {"size": -1}});
    assert_eq!(client.post(&collection).json(&refused).send().await.unwrap().status(), 422);
    assert_eq!(client.get(format!("{collection}/m0")).send().await.unwrap().status(), 200);
    assert_eq!(client.get(format!("{collection}/missing")).send().await.unwrap().status(), 404);
    let reference = pb::ResourceRef {
        group: group.into(),
        version: "v1".into(),
        resource: "meters".into(),
        namespace: "default".into(),
        name: "m1".into(),
    };
    server
        .resources()
        .await
        .get(pb::GetResourceRequest { r#ref: Some(reference), ..Default::default() })
        .await
        .unwrap();
    // Three ADDED events reach the watcher.
    added(&mut watch, 3).await;

    let after = scrape(http).await;
    let request = |verb: &'static str, scope: &'static str, code: &'static str| {
        let labels = [("verb", verb), ("group", group), ("version", "v1"), ("resource", "meters")];
        value(
            &after,
            "apiserver_request_total",
            &[labels[0], labels[1], labels[2], labels[3], ("scope", scope), ("code", code), ("subresource", "")],
        )
    };
    assert_eq!(request("create", "namespace", "201"), 3.0);
    assert_eq!(request("create", "namespace", "422"), 1.0);
    // One over HTTP, one over gRPC.
    assert_eq!(request("get", "resource", "200"), 2.0);
    assert_eq!(request("get", "resource", "404"), 1.0);
    let definitions = [("verb", "create"), ("resource", "customresourcedefinitions"), ("code", "201")];
    assert!(value(&after, "apiserver_request_total", &definitions) >= 1.0);
    let created = [("verb", "create"), ("group", group), ("resource", "meters"), ("scope", "namespace")];
    assert_eq!(value(&after, "apiserver_request_duration_seconds", &created), 4.0);
    let watching = [("verb", "watch"), ("group", group), ("resource", "meters"), ("scope", "namespace")];
    assert_eq!(value(&after, "apiserver_longrunning_requests", &watching), 1.0);
    let kind = [("group", group), ("version", "v1"), ("kind", "Meter")];
    assert_eq!(value(&after, "apiserver_registered_watchers", &kind), 1.0);
    assert_eq!(value(&after, "apiserver_watch_events_total", &kind), 3.0);
    let resource = format!("meters.{group}");
    assert_eq!(value(&after, "apiserver_storage_objects", &[("resource", resource.as_str())]), 3.0);
    // The definitions' own series is exported; its value is the last
    // observation of whichever server in this test process the SDK asked
    // last (one without definitions says 0), so only this test's own
    // resource, whose label no other server has, is checked by value.
    assert!(after.iter().any(|s| s.metric == "apiserver_storage_objects"
        && s.labels.get("resource") == Some("customresourcedefinitions.apiextensions.k8s.io")));
    // Process-wide series: at least what these requests added.
    let grew = |name: &str| value(&after, name, &[]) - value(&before, name, &[]);
    assert!(grew("crdstore_storage_commit_duration_seconds") >= 4.0);
    assert!(grew("crdstore_storage_fsync_duration_seconds") >= 1.0);
    assert!(grew("crdstore_storage_group_commit_size") >= 1.0);
    assert!(grew("crdstore_cel_evaluation_cost") >= 4.0, "CEL ran on every create");
    assert!(after.iter().any(|s| s.metric == "crdstore_storage_history_window_revisions"));

    // The watch ends: it leaves the gauges.
    drop(watch);
    let deadline = Instant::now() + WAIT;
    loop {
        let now = scrape(http).await;
        let open = value(&now, "apiserver_longrunning_requests", &watching)
            + value(&now, "apiserver_registered_watchers", &kind);
        let compacted = value(&now, "crdstore_storage_compactions_total", &[]);
        if open == 0.0 && compacted >= 1.0 {
            break;
        }
        assert!(Instant::now() < deadline, "watch gauges {open}, compactions {compacted}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let ready = reqwest::get(format!("http://{http}/readyz")).await.unwrap();
    assert_eq!(ready.status(), 200);
}

// ------------------------------------------------------------------- OTLP

/// What the receiver was sent.
#[derive(Default)]
struct Received {
    spans: Vec<Span>,
    metrics: Vec<String>,
    services: Vec<String>,
    /// The encoding of each trace export (`grpc-encoding` or
    /// `content-encoding`), `identity` when none was named.
    encodings: Vec<String>,
}

#[derive(Clone, Default)]
struct Receiver(Arc<Mutex<Received>>);

impl Receiver {
    fn traces(&self, request: ExportTraceServiceRequest, encoding: Option<&str>) {
        let mut received = self.0.lock().unwrap();
        received.encodings.push(encoding.unwrap_or("identity").to_string());
        for resource_spans in request.resource_spans {
            if let Some(resource) = &resource_spans.resource {
                received.services.extend(resource.attributes.iter().filter(|a| a.key == "service.name").map(|a| {
                    match a.value.as_ref().and_then(|v| v.value.clone()) {
                        Some(AnyValue::StringValue(s)) => s,
                        _ => String::new(),
                    }
                }));
            }
            for scope in resource_spans.scope_spans {
                received.spans.extend(scope.spans);
            }
        }
    }

    fn metrics(&self, request: ExportMetricsServiceRequest) {
        let mut received = self.0.lock().unwrap();
        for resource in request.resource_metrics {
            for scope in resource.scope_metrics {
                received.metrics.extend(scope.metrics.into_iter().map(|m| m.name));
            }
        }
    }

    /// Serves OTLP over gRPC and over HTTP/protobuf on loopback ports,
    /// taking gzip as a collector does.
    async fn start(&self) -> (SocketAddr, SocketAddr) {
        let grpc = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let http = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addrs = (grpc.local_addr().unwrap(), http.local_addr().unwrap());
        let services = tonic::transport::Server::builder()
            .add_routes(self.grpc())
            .serve_with_incoming(tokio_stream::wrappers::TcpListenerStream::new(grpc));
        tokio::spawn(services);
        let app = self.http();
        tokio::spawn(async move { axum::serve(http, app).await });
        addrs
    }

    /// The OTLP/HTTP routes.
    fn http(&self) -> axum::Router {
        let (traces, metrics) = (self.clone(), self.clone());
        axum::Router::new()
            .route(
                "/v1/traces",
                axum::routing::post(move |headers: http::HeaderMap, body: axum::body::Bytes| async move {
                    let encoding = headers.get("content-encoding");
                    let request = ExportTraceServiceRequest::decode(inflate(encoding, body).as_slice()).unwrap();
                    traces.traces(request, encoding.and_then(|e| e.to_str().ok()));
                    ExportTraceServiceResponse::default().encode_to_vec()
                }),
            )
            .route(
                "/v1/metrics",
                axum::routing::post(move |headers: http::HeaderMap, body: axum::body::Bytes| async move {
                    let body = inflate(headers.get("content-encoding"), body);
                    metrics.metrics(ExportMetricsServiceRequest::decode(body.as_slice()).unwrap());
                    ExportMetricsServiceResponse::default().encode_to_vec()
                }),
            )
    }

    /// The OTLP/gRPC services.
    fn grpc(&self) -> tonic::service::Routes {
        let gzip = tonic::codec::CompressionEncoding::Gzip;
        tonic::service::Routes::new(TraceServiceServer::new(self.clone()).accept_compressed(gzip))
            .add_service(MetricsServiceServer::new(self.clone()).accept_compressed(gzip))
    }

    /// Waits (generously) until `found` finds something in what arrived.
    async fn wait_for<T>(&self, what: &str, found: impl Fn(&Received) -> Option<T>) -> T {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(t) = found(&self.0.lock().unwrap()) {
                return t;
            }
            if Instant::now() >= deadline {
                let received = self.0.lock().unwrap();
                let names: Vec<&str> = received.spans.iter().map(|s| s.name.as_str()).take(40).collect();
                panic!("no {what} arrived; {} spans did: {names:?}", received.spans.len());
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

#[tonic::async_trait]
impl TraceService for Receiver {
    async fn export(
        &self,
        request: tonic::Request<ExportTraceServiceRequest>,
    ) -> Result<tonic::Response<ExportTraceServiceResponse>, tonic::Status> {
        let encoding = request.metadata().get("grpc-encoding").and_then(|e| e.to_str().ok()).map(str::to_string);
        self.traces(request.into_inner(), encoding.as_deref());
        Ok(tonic::Response::new(ExportTraceServiceResponse::default()))
    }
}

#[tonic::async_trait]
impl MetricsService for Receiver {
    async fn export(
        &self,
        request: tonic::Request<ExportMetricsServiceRequest>,
    ) -> Result<tonic::Response<ExportMetricsServiceResponse>, tonic::Status> {
        self.metrics(request.into_inner());
        Ok(tonic::Response::new(ExportMetricsServiceResponse::default()))
    }
}

/// An OTLP/HTTP body, gunzipped if its `content-encoding` says gzip.
fn inflate(encoding: Option<&http::HeaderValue>, body: axum::body::Bytes) -> Vec<u8> {
    match encoding.map(|e| e.as_bytes()) {
        Some(b"gzip") => {
            let mut inflated = Vec::new();
            std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&body[..]), &mut inflated).unwrap();
            inflated
        }
        _ => body.to_vec(),
    }
}

/// The built binary serving with OTLP export to `endpoint`, killed on drop.
struct Traced {
    /// Killed when dropped.
    _child: tokio::process::Child,
    /// Its log lines (JSON), as they arrive.
    logs: Arc<Mutex<Vec<String>>>,
    grpc: SocketAddr,
    http: SocketAddr,
    _dir: tempfile::TempDir,
}

/// A failing test shows what the server logged (export failures among it).
impl Drop for Traced {
    fn drop(&mut self) {
        if std::thread::panicking() {
            let logs = self.logs.lock().unwrap_or_else(|e| e.into_inner());
            let warnings: Vec<&String> = logs.iter().filter(|l| !l.contains("\"level\":\"DEBUG\"")).collect();
            eprintln!("the traced server's log, less its debug lines ({} lines in all):", logs.len());
            for line in warnings.iter().rev().take(40).rev() {
                eprintln!("  {line}");
            }
        }
    }
}

impl Traced {
    async fn start(endpoint: &str, protocol: &str) -> Self {
        Self::start_with(endpoint, protocol, &[]).await
    }

    /// With more variables.
    async fn start_with(endpoint: &str, protocol: &str, vars: &[(&str, &str)]) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_crdstore"))
            .args(["serve", "--grpc-addr", "127.0.0.1:0", "--http-addr", "127.0.0.1:0", "--log-format", "json"])
            .arg("--data-dir")
            .arg(dir.path())
            .env("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint)
            .env("OTEL_EXPORTER_OTLP_PROTOCOL", protocol)
            .env("OTEL_SERVICE_NAME", "crdstore-under-test")
            .env("OTEL_TRACES_SAMPLER", "parentbased_always_on")
            .env("OTEL_BSP_SCHEDULE_DELAY", "100")
            .env("OTEL_METRIC_EXPORT_INTERVAL", "200")
            .env("RUST_LOG", "warn,crdstore::request=debug")
            .envs(vars.iter().copied())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let mut lines = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
        let line = tokio::time::timeout(WAIT, lines.next_line()).await.unwrap().unwrap().expect("listening line");
        let addr = |prefix: &str| -> SocketAddr {
            line.split_whitespace().find_map(|w| w.strip_prefix(prefix)).expect("listening line").parse().unwrap()
        };
        let logs = Arc::new(Mutex::new(Vec::new()));
        let mut stderr = tokio::io::BufReader::new(child.stderr.take().unwrap()).lines();
        tokio::spawn({
            let logs = logs.clone();
            async move {
                while let Ok(Some(line)) = stderr.next_line().await {
                    logs.lock().unwrap().push(line);
                }
            }
        });
        Self { grpc: addr("grpc="), http: addr("http="), _child: child, logs, _dir: dir }
    }

    /// A definitions client to its gRPC address.
    async fn definitions(&self) -> CustomResourceDefinitionsClient<tonic::transport::Channel> {
        crate::support::Grpc::at(self.grpc).definitions().await
    }
}

/// A W3C traceparent, its trace ID and its parent span ID.
fn traceparent(seed: u8) -> (String, Vec<u8>, Vec<u8>) {
    let trace: Vec<u8> = (0..16).map(|i| seed.wrapping_add(i)).collect();
    let span: Vec<u8> = (0..8).map(|i| seed.wrapping_mul(3).wrapping_add(i + 1)).collect();
    let hex = |bytes: &[u8]| bytes.iter().map(|b| format!("{b:02x}")).collect::<String>();
    (format!("00-{}-{}-01", hex(&trace), hex(&span)), trace, span)
}

fn attribute(span: &Span, key: &str) -> Option<String> {
    let value = span.attributes.iter().find(|a| a.key == key)?.value.as_ref()?.value.clone()?;
    Some(match value {
        AnyValue::StringValue(s) => s,
        AnyValue::IntValue(i) => i.to_string(),
        AnyValue::BoolValue(b) => b.to_string(),
        AnyValue::DoubleValue(d) => d.to_string(),
        other => format!("{other:?}"),
    })
}

/// Waits for the server span whose parent is the traceparent's, checks its
/// attributes and that a `storage.commit` span (with its fsync) hangs under
/// it.
/// Creates the Meter `name` of `group` over `traced`'s HTTP gateway with
/// the `traceparent` header `header`; it must answer 201.
async fn create_traced(traced: &Traced, group: &str, name: &str, size: i64, header: &str) {
    let object = json!({"apiVersion": format!("{group}/v1"), "kind": "Meter", "metadata": {"name": name},
        "spec": {"size": size}});
    let http = crate::support::Http::at(traced.http);
    let path = format!("/apis/{group}/v1/namespaces/default/meters");
    let created = http.request(reqwest::Method::POST, &path).header("traceparent", header).json(&object);
    assert_eq!(created.send().await.unwrap().status(), 201);
}

async fn check_trace(receiver: &Receiver, trace: &[u8], parent: &[u8], expected: &[(&str, &str)]) {
    let server_span = receiver
        .wait_for("server span", |r| {
            r.spans.iter().find(|s| s.trace_id == trace && s.parent_span_id == parent).cloned()
        })
        .await;
    let attributes: HashMap<&str, Option<String>> =
        expected.iter().map(|(k, _)| (*k, attribute(&server_span, k))).collect();
    for (key, want) in expected {
        assert_eq!(attributes[key].as_deref(), Some(*want), "{key} of {}", server_span.name);
    }
    // SPAN_KIND_SERVER
    assert_eq!(server_span.kind, 2, "{}", server_span.name);
    let commit = receiver
        .wait_for("commit span", |r| {
            r.spans.iter().find(|s| s.parent_span_id == server_span.span_id && s.name == "storage.commit").cloned()
        })
        .await;
    assert_eq!(commit.trace_id, trace);
    receiver
        .wait_for("fsync span", |r| {
            r.spans.iter().find(|s| s.parent_span_id == commit.span_id && s.name == "storage.fsync").cloned()
        })
        .await;
}

async fn traced_requests(protocol: &str) {
    let receiver = Receiver::default();
    let (grpc_receiver, http_receiver) = receiver.start().await;
    let endpoint = match protocol {
        "grpc" => format!("http://{grpc_receiver}"),
        _ => format!("http://{http_receiver}"),
    };
    let traced = Traced::start(&endpoint, protocol).await;
    let group = "traced.example.com";
    create(&mut traced.definitions().await, &meters(group)).await;
    // What the registry logs inside the request (`created definition`, at
    // info) is an event of a span of its trace, with its fields.
    let definition = format!("meters.{group}");
    let event = receiver
        .wait_for("created definition event", |r| {
            r.spans.iter().flat_map(|s| &s.events).find(|e| e.name == "created definition").cloned()
        })
        .await;
    let field = |key: &str| {
        let value = event.attributes.iter().find(|a| a.key == key)?.value.as_ref()?.value.clone()?;
        match value {
            AnyValue::StringValue(s) => Some(s),
            _ => None,
        }
    };
    assert_eq!(field("definition").as_deref(), Some(definition.as_str()));
    assert_eq!(field("level").as_deref(), Some("INFO"));
    assert!(event.time_unix_nano > 0);

    // Over gRPC, the traceparent in the metadata.
    let (header, trace, parent) = traceparent(7);
    let mut resources = crate::support::Grpc::at(traced.grpc).resources().await;
    let object =
        json!({"apiVersion": format!("{group}/v1"), "kind": "Meter", "metadata": {"name": "g"}, "spec": {"size": 1}});
    let mut request = tonic::Request::new(pb::CreateResourceRequest {
        r#ref: Some(pb::ResourceRef {
            group: group.into(),
            version: "v1".into(),
            resource: "meters".into(),
            namespace: "default".into(),
            name: String::new(),
        }),
        object: serde_json::to_vec(&object).unwrap(),
        options: None,
    });
    request.metadata_mut().insert("traceparent", header.parse().unwrap());
    resources.create(request).await.unwrap();
    let grpc_expected = [
        ("rpc.system", "grpc"),
        ("rpc.service", "crdstore.v1.CustomResources"),
        ("rpc.method", "Create"),
        ("rpc.grpc.status_code", "0"),
        ("crdstore.verb", "create"),
        ("crdstore.group", group),
        ("crdstore.version", "v1"),
        ("crdstore.resource", "meters"),
        ("k8s.namespace.name", "default"),
        ("crdstore.scope", "namespace"),
        ("crdstore.code", "201"),
    ];
    check_trace(&receiver, &trace, &parent, &grpc_expected).await;

    // Over HTTP, the traceparent header.
    let (header, trace, parent) = traceparent(42);
    create_traced(&traced, group, "h", 2, &header).await;
    let http_expected = [
        ("http.request.method", "POST"),
        ("http.response.status_code", "201"),
        ("crdstore.verb", "create"),
        ("crdstore.group", group),
        ("crdstore.version", "v1"),
        ("crdstore.resource", "meters"),
        ("k8s.namespace.name", "default"),
        ("crdstore.code", "201"),
    ];
    check_trace(&receiver, &trace, &parent, &http_expected).await;
    // A get names its object.
    let (header, trace, parent) = traceparent(99);
    let got = reqwest::Client::new()
        .get(format!("http://{}/apis/{group}/v1/namespaces/default/meters/h", traced.http))
        .header("traceparent", header)
        .send()
        .await
        .unwrap();
    assert_eq!(got.status(), 200);
    let server_span = receiver
        .wait_for("get span", |r| r.spans.iter().find(|s| s.trace_id == trace && s.parent_span_id == parent).cloned())
        .await;
    assert_eq!(attribute(&server_span, "crdstore.name").as_deref(), Some("h"));
    assert_eq!(attribute(&server_span, "crdstore.scope").as_deref(), Some("resource"));
    // Its one log line, in JSON, carries its trace ID and its own span ID.
    let trace_hex: String = trace.iter().map(|b| format!("{b:02x}")).collect();
    let span_hex: String = server_span.span_id.iter().map(|b| format!("{b:02x}")).collect();
    let deadline = Instant::now() + WAIT;
    let line = loop {
        let found = traced.logs.lock().unwrap().iter().find(|l| l.contains(&trace_hex)).cloned();
        if let Some(line) = found {
            break line;
        }
        assert!(Instant::now() < deadline, "no log line of the get: {:?}", traced.logs.lock().unwrap());
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let logged: serde_json::Value = serde_json::from_str(&line).unwrap();
    assert_eq!(logged["level"], "DEBUG", "{line}");
    assert_eq!(logged["verb"], "get", "{line}");
    assert_eq!(logged["name"], "h", "{line}");
    assert_eq!(logged["code"], 200, "{line}");
    assert_eq!(logged["span"]["trace_id"], trace_hex.as_str(), "{line}");
    assert_eq!(logged["span"]["span_id"], span_hex.as_str(), "{line}");

    // The service is named, and the metrics arrive too.
    assert!(receiver.0.lock().unwrap().services.iter().any(|s| s == "crdstore-under-test"));
    for name in
        ["apiserver_request_total", "apiserver_request_duration_seconds", "crdstore_storage_commit_duration_seconds"]
    {
        receiver.wait_for(name, |r| r.metrics.iter().any(|m| m == name).then_some(())).await;
    }
    // Still serving.
    let ready = reqwest::get(format!("http://{}/readyz", traced.http)).await.unwrap();
    assert_eq!(ready.status(), 200);
    drop(traced);
}

#[tokio::test]
async fn otlp_over_grpc_carries_request_spans_with_their_parent_and_metrics() {
    traced_requests("grpc").await;
}

#[tokio::test]
async fn otlp_over_http_protobuf_carries_request_spans_with_their_parent_and_metrics() {
    traced_requests("http/protobuf").await;
}

// ------------------------------------------------------------ gRPC tooling

#[tokio::test]
async fn reflection_answers_v1_and_v1alpha_and_health_names_each_service() {
    use tonic_reflection::pb::v1::server_reflection_request::MessageRequest as V1Request;
    use tonic_reflection::pb::v1alpha::server_reflection_request::MessageRequest as AlphaRequest;
    let server = TestServer::start().await;
    let channel = server.channel().await;

    let mut v1 = tonic_reflection::pb::v1::server_reflection_client::ServerReflectionClient::new(channel.clone());
    let request = tonic_reflection::pb::v1::ServerReflectionRequest {
        host: String::new(),
        message_request: Some(V1Request::ListServices(String::new())),
    };
    let mut answers = v1.server_reflection_info(tokio_stream::once(request)).await.unwrap().into_inner();
    let answer = format!("{:?}", answers.message().await.unwrap().unwrap());
    assert!(answer.contains("crdstore.v1.CustomResources"), "{answer}");

    let mut alpha =
        tonic_reflection::pb::v1alpha::server_reflection_client::ServerReflectionClient::new(channel.clone());
    let request = tonic_reflection::pb::v1alpha::ServerReflectionRequest {
        host: String::new(),
        message_request: Some(AlphaRequest::ListServices(String::new())),
    };
    let mut answers = alpha.server_reflection_info(tokio_stream::once(request)).await.unwrap().into_inner();
    let answer = format!("{:?}", answers.message().await.unwrap().unwrap());
    assert!(answer.contains("crdstore.v1.CustomResourceDefinitions"), "{answer}");
    assert!(answer.contains("crdstore.v1.CustomResources"), "{answer}");

    let mut health = tonic_health::pb::health_client::HealthClient::new(channel);
    for service in ["", "crdstore.v1.CustomResources", "crdstore.v1.CustomResourceDefinitions"] {
        let status = health
            .check(tonic_health::pb::HealthCheckRequest { service: service.into() })
            .await
            .unwrap()
            .into_inner()
            .status;
        assert_eq!(status, tonic_health::pb::health_check_response::ServingStatus::Serving as i32, "{service:?}");
    }
}

/// Reads the HTTP watch `watch` until `count` ADDED events have arrived
/// (within `WAIT`).
pub(super) async fn added(watch: &mut reqwest::Response, count: usize) {
    let mut seen = String::new();
    tokio::time::timeout(WAIT, async {
        while seen.matches("\"ADDED\"").count() < count {
            seen.push_str(&String::from_utf8_lossy(&watch.chunk().await.unwrap().unwrap()));
        }
    })
    .await
    .unwrap_or_else(|_| panic!("{count} events on the watch"));
}
