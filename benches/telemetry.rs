//! `cargo bench --bench telemetry`: what observing requests costs. Durable
//! creates/s and gets/s of 1 KB objects over gRPC (16 concurrent callers)
//! against a real server, in four modes in one run: metrics and tracing
//! off (the baseline), metrics on (the default, tracing off), and metrics
//! plus tracing through the OpenTelemetry SDK (tracing-opentelemetry, the
//! BatchSpanProcessor, opentelemetry-otlp over gRPC to a receiver on
//! loopback) sampled parent-based at 10% of root spans (a realistic rate:
//! `parentbased_traceidratio`, 0.1) and at 100%. Each mode runs in a
//! process of its own (the providers are process-wide),
//! `CRDSTORE_BENCH_ROUNDS` times (default 9, about five minutes),
//! interleaved so that a noisy neighbour hurts every mode alike. The best
//! round of each mode is kept, and each round's cost is also paired with
//! that round's baseline and the median of those printed: durable creates
//! wait on fsync, whose time swings between rounds, so the best figure of a
//! few rounds moves by several points with one lucky baseline round. The
//! tracing modes' cost is also paired with metrics on: what tracing itself
//! adds. Targets: metrics cost at most 3%; tracing at 10% at most 5%; at
//! 100% the figure is reported, whatever it is.
//!
//! Figures are printed, not asserted. `CRDSTORE_BENCH_SECONDS` sets the
//! measuring time of each figure (default 3).
//!
//! For instruction counts, which noise does not move:
//! `CRDSTORE_BENCH_COUNT=n` makes each figure exactly `n` calls instead of
//! a measuring time, `CRDSTORE_BENCH_MODES=off,tracing-100` runs only those
//! modes, and `CRDSTORE_BENCH_WRAP` is a command each mode's process runs
//! under, e.g.
//! `CRDSTORE_BENCH_WRAP="valgrind --tool=callgrind --callgrind-out-file=cg.%p"`.

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
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceResponse;
use serde_json::json;
use tonic::transport::Channel;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const CALLERS: usize = 16;
const MODES: [&str; 4] = ["off", "metrics", "tracing-10", "tracing-100"];

/// The sampler of a mode, as `OTEL_TRACES_SAMPLER` and `_ARG` name it.
fn sampler(mode: &str) -> (&'static str, &'static str) {
    match mode {
        "tracing-10" => ("parentbased_traceidratio", "0.1"),
        _ => ("parentbased_always_on", ""),
    }
}

/// A fixed number of calls per figure, instead of a measuring time.
fn count() -> Option<usize> {
    std::env::var("CRDSTORE_BENCH_COUNT").ok().and_then(|s| s.parse().ok())
}

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
/// calls per second, and how many calls were made.
async fn rate<F, Fut>(channel: &Channel, call: F) -> (f64, usize)
where
    F: Fn(CustomResourcesClient<Channel>, usize) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = ()> + Send,
{
    let call = Arc::new(call);
    let (next, done) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicU64::new(0)));
    let (until, limit) = (Instant::now() + seconds(), count());
    let tasks: Vec<_> = (0..CALLERS)
        .map(|_| {
            let (call, next, done, client) =
                (call.clone(), next.clone(), done.clone(), CustomResourcesClient::new(channel.clone()));
            tokio::spawn(async move {
                loop {
                    let n = next.fetch_add(1, Ordering::Relaxed);
                    let more = match limit {
                        Some(limit) => n < limit,
                        None => Instant::now() < until,
                    };
                    if !more {
                        break;
                    }
                    call(client.clone(), n).await;
                    done.fetch_add(1, Ordering::Relaxed);
                }
            })
        })
        .collect();
    let start = Instant::now();
    for task in tasks {
        task.await.expect("caller");
    }
    let done = done.load(Ordering::Relaxed);
    (done as f64 / start.elapsed().as_secs_f64(), done as usize)
}

/// One mode, in this process: prints `creates=<n> gets=<n>`.
async fn measure(mode: &str) {
    // Every mode sets up telemetry as the server does (the log subscriber
    // always; OTLP where the environment names an endpoint, the tracing
    // mode's): a process without a subscriber pays for every span of its
    // dependencies through `tracing`'s `log` fallback, which no server does.
    if mode == "off" {
        crdstore::metrics::install_disabled();
    }
    let telemetry = crdstore::telemetry::init(crdstore::telemetry::LogFormat::Text).expect("telemetry");
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
    let (creates, created) = rate(&channel, |mut client, n| async move {
        let request =
            pb::CreateResourceRequest { r#ref: Some(reference("")), object: body(&format!("w{n}")), options: None };
        client.create(request).await.expect("create");
    })
    .await;
    // Every caller takes a number, then checks the time: a number taken as
    // the time ran out is not created, so only the first `created - CALLERS`
    // are sure to exist.
    let written = created.saturating_sub(CALLERS);
    let (gets, _) = rate(&channel, move |mut client, n| async move {
        let request = pb::GetResourceRequest {
            r#ref: Some(reference(&format!("w{}", n % written.max(1)))),
            ..Default::default()
        };
        client.get(request).await.expect("get");
    })
    .await;
    println!("creates={creates} gets={gets}");
    server.shutdown().await.expect("shutdown");
    // The spans still queued go out, so that the receiver's count is all
    // the processor kept.
    tokio::task::spawn_blocking(move || telemetry.shutdown()).await.expect("telemetry shutdown");
}

/// An OTLP trace export read only as far as counting its spans: each span
/// is skipped over, not decoded (the receiver shares the cores with the
/// server measured, so it must cost as little as it can).
#[derive(Clone, PartialEq, prost::Message)]
struct ShallowExport {
    #[prost(message, repeated, tag = "1")]
    resource_spans: Vec<ShallowResource>,
}

#[derive(Clone, PartialEq, prost::Message)]
struct ShallowResource {
    #[prost(message, repeated, tag = "2")]
    scope_spans: Vec<ShallowScope>,
}

#[derive(Clone, PartialEq, prost::Message)]
struct ShallowScope {
    #[prost(message, repeated, tag = "2")]
    spans: Vec<Skipped>,
}

/// A message whose fields are all skipped.
#[derive(Clone, PartialEq, prost::Message)]
struct Skipped {}

/// Counts the spans it is sent, as an OTLP/gRPC `TraceService`.
#[derive(Clone, Default)]
struct Receiver(Arc<AtomicU64>);

impl tonic::server::NamedService for Receiver {
    const NAME: &'static str = "opentelemetry.proto.collector.trace.v1.TraceService";
}

impl tonic::server::UnaryService<ShallowExport> for Receiver {
    type Response = ExportTraceServiceResponse;
    type Future = std::future::Ready<Result<tonic::Response<Self::Response>, tonic::Status>>;

    fn call(&mut self, request: tonic::Request<ShallowExport>) -> Self::Future {
        let spans: usize =
            request.get_ref().resource_spans.iter().flat_map(|r| &r.scope_spans).map(|s| s.spans.len()).sum();
        self.0.fetch_add(spans as u64, Ordering::Relaxed);
        std::future::ready(Ok(tonic::Response::new(ExportTraceServiceResponse::default())))
    }
}

impl tower::Service<http::Request<tonic::body::Body>> for Receiver {
    type Response = http::Response<tonic::body::Body>;
    type Error = std::convert::Infallible;
    type Future = futures::future::BoxFuture<'static, Result<Self::Response, Self::Error>>;

    fn poll_ready(&mut self, _: &mut std::task::Context<'_>) -> std::task::Poll<Result<(), Self::Error>> {
        std::task::Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: http::Request<tonic::body::Body>) -> Self::Future {
        let receiver = self.clone();
        Box::pin(async move {
            let mut grpc = tonic::server::Grpc::new(tonic_prost::ProstCodec::default());
            Ok(grpc.unary(receiver, request).await)
        })
    }
}

/// Accepts metrics and drops them undecoded.
#[derive(Clone, Default)]
struct Metrics;

#[tonic::async_trait]
impl MetricsService for Metrics {
    async fn export(
        &self,
        _: tonic::Request<ExportMetricsServiceRequest>,
    ) -> Result<tonic::Response<ExportMetricsServiceResponse>, tonic::Status> {
        Ok(tonic::Response::new(ExportMetricsServiceResponse::default()))
    }
}

/// The CPU time this process has used (the receiver's, between runs).
#[allow(unsafe_code)] // getrusage has no safe wrapper in libc
fn cpu_seconds() -> f64 {
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage fills the struct it is given.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    secs(usage.ru_utime) + secs(usage.ru_stime)
}

/// Runs one mode in a child process; its (creates/s, gets/s) and the
/// spans its batch processor dropped (its queue full), as the SDK's log
/// said at shutdown.
fn run(mode: &str, endpoint: &str) -> (f64, f64, u64) {
    let (sampler, ratio) = sampler(mode);
    let exe = std::env::current_exe().expect("exe");
    let wrap = std::env::var("CRDSTORE_BENCH_WRAP").unwrap_or_default();
    let mut command = match wrap.split_whitespace().collect::<Vec<_>>().split_first() {
        Some((program, args)) => {
            let mut command = Command::new(program);
            command.args(args).arg(&exe);
            command
        }
        None => Command::new(&exe),
    };
    let out = command
        .env("CRDSTORE_BENCH_MODE", mode)
        .env("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint)
        .env("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
        .env("OTEL_TRACES_SAMPLER", sampler)
        .env("OTEL_TRACES_SAMPLER_ARG", ratio)
        .env("RUST_LOG", "error,crdstore::telemetry=warn,opentelemetry_sdk=warn")
        .output()
        .expect("bench child");
    assert!(out.status.success(), "{mode}: {}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    let figure = |name: &str| -> f64 {
        text.split_whitespace().find_map(|w| w.strip_prefix(name)).and_then(|v| v.parse().ok()).expect("figure")
    };
    let log = String::from_utf8_lossy(&out.stderr);
    let dropped = log
        .lines()
        .filter_map(|line| line.split_whitespace().find_map(|w| w.strip_prefix("dropped_span_count=")))
        .filter_map(|n| n.parse::<u64>().ok())
        .sum();
    (figure("creates="), figure("gets="), dropped)
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
            .add_service(receiver.clone())
            .add_service(MetricsServiceServer::new(Metrics))
            .serve_with_incoming(tokio_stream::wrappers::TcpListenerStream::new(listener));
        tokio::spawn(serve);
        format!("http://{addr}")
    });
    let rounds: usize = std::env::var("CRDSTORE_BENCH_ROUNDS").ok().and_then(|s| s.parse().ok()).unwrap_or(9);
    let chosen = std::env::var("CRDSTORE_BENCH_MODES").unwrap_or_else(|_| MODES.join(","));
    let chosen: Vec<&str> = chosen.split(',').map(str::trim).collect();
    let mut best = [(0.0f64, 0.0f64); MODES.len()];
    let mut rounds_run: Vec<[(f64, f64); MODES.len()]> = Vec::new();
    let mut receiver_cpu = [0.0; MODES.len()];
    let mut spans = [0; MODES.len()];
    let mut dropped = [0; MODES.len()];
    for _ in 0..rounds.max(1) {
        let mut round = [(0.0f64, 0.0f64); MODES.len()];
        for (i, mode) in MODES.iter().enumerate().filter(|(_, m)| chosen.contains(m)) {
            let (cpu, received) = (cpu_seconds(), receiver.0.load(Ordering::Relaxed));
            let tracing = mode.starts_with("tracing");
            let (creates, gets, lost) = run(mode, if tracing { &endpoint } else { "" });
            dropped[i] += lost;
            receiver_cpu[i] += cpu_seconds() - cpu;
            spans[i] += receiver.0.load(Ordering::Relaxed) - received;
            best[i] = (best[i].0.max(creates), best[i].1.max(gets));
            round[i] = (creates, gets);
        }
        rounds_run.push(round);
    }
    let cost = |base: f64, with: f64| (base - with) / base * 100.0;
    println!("telemetry cost, 1 KB objects over gRPC, {CALLERS} callers, best of {rounds} rounds:");
    println!("{:<34} {:>12} {:>8} {:>12} {:>8}", "mode", "creates/s", "cost", "gets/s", "cost");
    let labels = [
        "metrics and tracing off",
        "metrics on (default)",
        "metrics + tracing 10% (OTLP)",
        "metrics + tracing 100% (OTLP)",
    ];
    for (i, label) in labels.iter().enumerate() {
        let (creates, gets) = best[i];
        println!(
            "{label:<34} {creates:>12.0} {:>7.1}% {gets:>12.0} {:>7.1}%",
            cost(best[0].0, creates),
            cost(best[0].1, gets)
        );
    }
    // Each round runs the modes back to back, so a round's ratio is paired
    // against the same moment of the machine: its median does not hang on
    // one lucky round of the baseline, as the best does.
    let median = |mut costs: Vec<f64>| {
        costs.sort_by(f64::total_cmp);
        costs.get(costs.len() / 2).copied().unwrap_or(f64::NAN)
    };
    let paired = |base: usize, i: usize| {
        let creates = median(rounds_run.iter().map(|r| cost(r[base].0, r[i].0)).collect());
        let gets = median(rounds_run.iter().map(|r| cost(r[base].1, r[i].1)).collect());
        (creates, gets)
    };
    for (i, label) in labels.iter().enumerate().skip(1) {
        let (creates, gets) = paired(0, i);
        println!("{label:<34} median of the rounds' paired costs: creates {creates:.1}%, gets {gets:.1}%");
    }
    for (i, label) in labels.iter().enumerate().skip(2) {
        let (creates, gets) = paired(1, i);
        println!("{label:<34} tracing alone (paired with metrics on): creates {creates:.1}%, gets {gets:.1}%");
    }
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let load = load.split_whitespace().take(3).collect::<Vec<_>>().join(" ");
    for (i, label) in labels.iter().enumerate().skip(2) {
        println!(
            "{label:<34} spans received by the local OTLP receiver: {}; dropped by the batch processor, its \
             queue full: {}; CPU the receiver used (spans counted, not decoded): {:.2} s",
            spans[i], dropped[i], receiver_cpu[i]
        );
    }
    println!(
        "{} rounds, each mode's run {:.0} s of measuring; load average {load}",
        rounds.max(1),
        2.0 * seconds().as_secs_f64()
    );
    // Give the receiver a moment to answer the last export before exiting.
    runtime.block_on(async { tokio::time::sleep(Duration::from_millis(100)).await });
}
