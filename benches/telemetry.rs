//! `cargo bench --bench telemetry`: what observing requests costs. Durable
//! creates/s and gets/s of 1 KB objects over gRPC (16 concurrent callers)
//! against a real server, in three modes in one run: metrics and tracing
//! off (the baseline), metrics on (the default), and metrics plus tracing
//! sampled at 100% exporting over OTLP/gRPC to a receiver on loopback. Each
//! mode runs in a process of its own (the providers are process-wide),
//! `CRDSTORE_BENCH_ROUNDS` times (default 3, the best kept), interleaved so
//! that a noisy neighbour hurts every mode alike. Targets: metrics cost at
//! most 3%, tracing at 100% at most 15%.
//!
//! Figures are printed, not asserted. `CRDSTORE_BENCH_SECONDS` sets the
//! measuring time of each figure (default 3).

use std::process::Command;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crdstore::pb::v1 as pb;
use crdstore::pb::v1::custom_resource_definitions_client::CustomResourceDefinitionsClient;
use crdstore::pb::v1::custom_resources_client::CustomResourcesClient;
use crdstore::server::{Config, Server};
use opentelemetry_proto::tonic::collector::metrics::v1::metrics_service_server::{
    MetricsService, MetricsServiceServer,
};
use opentelemetry_proto::tonic::collector::metrics::v1::{ExportMetricsServiceRequest, ExportMetricsServiceResponse};
use opentelemetry_proto::tonic::collector::trace::v1::trace_service_server::{TraceService, TraceServiceServer};
use opentelemetry_proto::tonic::collector::trace::v1::{ExportTraceServiceRequest, ExportTraceServiceResponse};
use serde_json::json;
use tonic::transport::Channel;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const CALLERS: usize = 16;
const MODES: [&str; 3] = ["off", "metrics", "tracing"];

fn seconds() -> Duration {
    let secs = std::env::var("CRDSTORE_BENCH_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(3.0);
    Duration::from_secs_f64(secs)
}

fn reference(name: &str) -> pb::ResourceRef {
    pb::ResourceRef {
        group: "example.com".into(),
        version: "v1".into(),
        resource: "widgets".into(),
        namespace: "bench".into(),
        name: name.into(),
    }
}

/// A 1 KB Widget.
fn body(name: &str) -> Vec<u8> {
    let obj = json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": name},
                     "spec": {"data": "x".repeat(900)}});
    serde_json::to_vec(&obj).expect("serialize")
}

/// Calls `call(client, n)` from `CALLERS` tasks for the measuring time;
/// calls per second.
async fn rate<F, Fut>(channel: &Channel, call: F) -> f64
where
    F: Fn(CustomResourcesClient<Channel>, usize) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = ()> + Send,
{
    let call = Arc::new(call);
    let (next, done) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicU64::new(0)));
    let until = Instant::now() + seconds();
    let tasks: Vec<_> = (0..CALLERS)
        .map(|_| {
            let (call, next, done, client) =
                (call.clone(), next.clone(), done.clone(), CustomResourcesClient::new(channel.clone()));
            tokio::spawn(async move {
                while Instant::now() < until {
                    call(client.clone(), next.fetch_add(1, Ordering::Relaxed)).await;
                    done.fetch_add(1, Ordering::Relaxed);
                }
            })
        })
        .collect();
    let start = Instant::now();
    for task in tasks {
        task.await.expect("caller");
    }
    done.load(Ordering::Relaxed) as f64 / start.elapsed().as_secs_f64()
}

/// One mode, in this process: prints `creates=<n> gets=<n>`.
async fn measure(mode: &str) {
    let _telemetry = match mode {
        "off" => {
            crdstore::metrics::install_disabled();
            None
        }
        "metrics" => None,
        _ => Some(crdstore::telemetry::init(crdstore::telemetry::LogFormat::Text).expect("telemetry")),
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let server = Server::start(Config::ephemeral(dir.path().to_path_buf())).await.expect("server");
    let channel =
        Channel::from_shared(format!("http://{}", server.grpc_addr)).expect("uri").connect().await.expect("connect");
    let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced", "names": {"plural": "widgets", "kind": "Widget"},
                 "versions": [{"name": "v1", "served": true, "storage": true,
                               "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]}});
    let definition = serde_json::to_vec(&crd).expect("crd");
    CustomResourceDefinitionsClient::new(channel.clone())
        .create(pb::CreateDefinitionRequest { definition, options: None })
        .await
        .expect("definition");
    let creates = rate(&channel, |mut client, n| async move {
        let request =
            pb::CreateResourceRequest { r#ref: Some(reference("")), object: body(&format!("w{n}")), options: None };
        client.create(request).await.expect("create");
    })
    .await;
    let written = (creates * seconds().as_secs_f64()) as usize;
    let gets = rate(&channel, move |mut client, n| async move {
        let request = pb::GetResourceRequest {
            r#ref: Some(reference(&format!("w{}", n % written.max(1)))),
            ..Default::default()
        };
        client.get(request).await.expect("get");
    })
    .await;
    println!("creates={creates} gets={gets}");
    server.shutdown().await.expect("shutdown");
}

/// Counts what it is sent.
#[derive(Clone, Default)]
struct Receiver(Arc<AtomicU64>);

#[tonic::async_trait]
impl TraceService for Receiver {
    async fn export(
        &self,
        request: tonic::Request<ExportTraceServiceRequest>,
    ) -> Result<tonic::Response<ExportTraceServiceResponse>, tonic::Status> {
        let spans: usize =
            request.get_ref().resource_spans.iter().flat_map(|r| &r.scope_spans).map(|s| s.spans.len()).sum();
        self.0.fetch_add(spans as u64, Ordering::Relaxed);
        Ok(tonic::Response::new(ExportTraceServiceResponse::default()))
    }
}

#[tonic::async_trait]
impl MetricsService for Receiver {
    async fn export(
        &self,
        _: tonic::Request<ExportMetricsServiceRequest>,
    ) -> Result<tonic::Response<ExportMetricsServiceResponse>, tonic::Status> {
        Ok(tonic::Response::new(ExportMetricsServiceResponse::default()))
    }
}

/// Runs one mode in a child process; its (creates/s, gets/s).
fn run(mode: &str, endpoint: &str) -> (f64, f64) {
    let out = Command::new(std::env::current_exe().expect("exe"))
        .env("CRDSTORE_BENCH_MODE", mode)
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint)
        .env("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
        .env("OTEL_TRACES_SAMPLER", "always_on")
        .env("RUST_LOG", "error")
        .output()
        .expect("bench child");
    assert!(out.status.success(), "{mode}: {}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    let figure = |name: &str| -> f64 {
        text.split_whitespace().find_map(|w| w.strip_prefix(name)).and_then(|v| v.parse().ok()).expect("figure")
    };
    (figure("creates="), figure("gets="))
}

fn main() {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    if let Ok(mode) = std::env::var("CRDSTORE_BENCH_MODE") {
        runtime.block_on(measure(&mode));
        return;
    }
    let receiver = Receiver::default();
    let endpoint = runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("addr");
        let serve = tonic::transport::Server::builder()
            .add_service(TraceServiceServer::new(receiver.clone()))
            .add_service(MetricsServiceServer::new(receiver.clone()))
            .serve_with_incoming(tokio_stream::wrappers::TcpListenerStream::new(listener));
        tokio::spawn(serve);
        format!("http://{addr}")
    });
    let rounds: usize = std::env::var("CRDSTORE_BENCH_ROUNDS").ok().and_then(|s| s.parse().ok()).unwrap_or(3);
    let mut best = [(0.0f64, 0.0f64); 3];
    for _ in 0..rounds.max(1) {
        for (i, mode) in MODES.iter().enumerate() {
            let (creates, gets) = run(mode, if *mode == "tracing" { &endpoint } else { "" });
            best[i] = (best[i].0.max(creates), best[i].1.max(gets));
        }
    }
    let spans = receiver.0.load(Ordering::Relaxed);
    let cost = |base: f64, with: f64| (base - with) / base * 100.0;
    println!("telemetry cost, 1 KB objects over gRPC, {CALLERS} callers, best of {rounds} rounds:");
    println!("{:<34} {:>12} {:>8} {:>12} {:>8}", "mode", "creates/s", "cost", "gets/s", "cost");
    let labels = ["metrics and tracing off", "metrics on (default)", "metrics + tracing 100% (OTLP)"];
    for (i, label) in labels.iter().enumerate() {
        let (creates, gets) = best[i];
        println!(
            "{label:<34} {creates:>12.0} {:>7.1}% {gets:>12.0} {:>7.1}%",
            cost(best[0].0, creates),
            cost(best[0].1, gets)
        );
    }
    println!("spans received by the local OTLP receiver: {spans}");
    // Give the receiver a moment to answer the last export before exiting.
    runtime.block_on(async { tokio::time::sleep(Duration::from_millis(100)).await });
}
