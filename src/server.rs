//! Assembles a running crdstore: opens the store, builds the domain, binds
//! the gRPC and HTTP listeners, and shuts down in order: watches end, in-flight
//! requests drain, the store flushes and closes.

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{watch, Semaphore};
use tokio::task::JoinHandle;
use tokio::time::Sleep;
use tokio_stream::StreamExt;
use tonic::transport::server::TcpIncoming;

use crate::gateway::long_uri::LongUris;
use crate::registry::Registry;
use crate::resource::Resources;
use crate::storage::sled::{SledOptions, SledStore};
use crate::storage::HistoryWindow;
use crate::storage::Storage;
use crate::watch::stream::{until_stopped, WatchDefaults};

/// How long shutdown waits for in-flight requests before it stops anyway.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(10);

/// Everything a server needs to start.
#[derive(Debug, Clone)]
pub struct Config {
    pub data_dir: PathBuf,
    pub grpc_addr: String,
    pub http_addr: String,
    pub window: HistoryWindow,
    pub compaction_interval: Duration,
    pub watch: WatchDefaults,
    /// How long the HTTP gateway waits for a request head, including the
    /// next one on an idle keep-alive connection; then it closes it.
    pub head_timeout: Duration,
    /// How long the HTTP gateway waits for a request body to arrive.
    pub body_timeout: Duration,
    /// The most watches open at once, over gRPC and HTTP together.
    pub max_watches: usize,
    /// The most backups (`Maintenance/Backup`) running at once.
    pub max_backups: usize,
    /// How much lower than requests' the OS priority of the threads that
    /// produce watches is (their `nice`, 1 to 19); 0 produces them on the
    /// request runtime (`watch::pool`).
    pub watch_nice: i32,
    /// How fast storage-version migrations write.
    pub migration: crate::migration::MigrationOptions,
    /// The bound of every conversion webhook call (Kubernetes' webhook
    /// request timeout, 30 s, by default).
    pub conversion_webhook_timeout: Duration,
    /// Whether writes into a namespace that does not exist are refused.
    pub namespace_lifecycle: crate::builtin::Lifecycle,
    /// How long events are kept (`--event-ttl`).
    pub event_ttl: Duration,
    /// How fast the garbage collector deletes and patches.
    pub gc: crate::gc::GcOptions,
    /// The origins browsers may make gRPC-Web calls from
    /// (`--cors-allowed-origins`; `*` for any); empty: no CORS headers.
    pub cors_allowed_origins: Vec<String>,
}

/// The default `Config::head_timeout`.
pub const DEFAULT_HEAD_TIMEOUT: Duration = Duration::from_secs(30);
/// The default `Config::body_timeout`.
pub const DEFAULT_BODY_TIMEOUT: Duration = Duration::from_secs(60);
/// The default `Config::max_watches`.
pub const DEFAULT_MAX_WATCHES: usize = 1024;
/// The default `Config::max_backups`: a backup reads the whole store, and
/// each one running holds its image's buffers and a blocking thread.
pub const DEFAULT_MAX_BACKUPS: usize = 2;

impl Config {
    /// Defaults for a data directory, on ephemeral loopback ports.
    pub fn ephemeral(data_dir: PathBuf) -> Self {
        Self {
            data_dir,
            grpc_addr: "127.0.0.1:0".into(),
            http_addr: "127.0.0.1:0".into(),
            window: HistoryWindow::default(),
            compaction_interval: SledOptions::default().compaction_interval,
            watch: WatchDefaults::default(),
            head_timeout: DEFAULT_HEAD_TIMEOUT,
            body_timeout: DEFAULT_BODY_TIMEOUT,
            max_watches: DEFAULT_MAX_WATCHES,
            max_backups: DEFAULT_MAX_BACKUPS,
            watch_nice: crate::watch::pool::DEFAULT_NICE,
            migration: crate::migration::MigrationOptions::default(),
            conversion_webhook_timeout: crate::conversion::webhook::DEFAULT_TIMEOUT,
            namespace_lifecycle: crate::builtin::Lifecycle::default(),
            event_ttl: crate::builtin::ttl::DEFAULT_TTL,
            gc: crate::gc::GcOptions::default(),
            cors_allowed_origins: Vec::new(),
        }
    }
}

type BoxError = Box<dyn std::error::Error + Send + Sync>;

// Transport settings, the same on both listeners. Without TCP_NODELAY the
// last piece of an answer written in more than one write waits for the
// client's delayed ACK (Nagle): 40 ms on Linux for every gRPC call whose
// answer is a few KiB, a definition's Get for one. The HTTP/2 values follow
// etcd's gRPC server and kube-apiserver, the servers crdstore stands in for.

/// Stream (per call) and connection receive windows. Fixed rather than
/// adaptive: a 1.5 MiB request (etcd's request limit) arrives in two windows
/// with no BDP pings to size them first, and the memory one connection may
/// make the server buffer is bounded (2 MiB).
const HTTP2_STREAM_WINDOW: u32 = 1024 * 1024;
const HTTP2_CONNECTION_WINDOW: u32 = 2 * 1024 * 1024;
/// Calls (watches included) open at once on one connection; more wait in the
/// client. kube-apiserver's value, set because a client (a proxy, an
/// informer factory) multiplexes many long-running watches on one connection.
/// The process-wide watch limit (`Config::max_watches`) still applies.
const HTTP2_MAX_CONCURRENT_STREAMS: u32 = 1000;
/// An HTTP/2 PING after this long without frames, and the connection closed
/// if it is not answered within the timeout: finds peers that are gone (a
/// crashed process behind a live kernel, a dropped NAT entry) and frees
/// their watches. etcd's --grpc-keepalive-interval and -timeout defaults.
const HTTP2_KEEPALIVE_INTERVAL: Duration = Duration::from_secs(2 * 60 * 60);
const HTTP2_KEEPALIVE_TIMEOUT: Duration = Duration::from_secs(20);
/// TCP keep-alive probes after this long idle, as Go's listeners (etcd's,
/// kube-apiserver's) set on every accepted connection: finds dead peers
/// well before the HTTP/2 PING does, at the kernel's cost only.
const TCP_KEEPALIVE: Duration = Duration::from_secs(15);

/// Accepted connections with TCP_NODELAY and TCP keep-alive set.
fn incoming(listener: TcpListener) -> TcpIncoming {
    TcpIncoming::from(listener).with_nodelay(Some(true)).with_keepalive(Some(TCP_KEEPALIVE))
}

/// The gateway's connection builder: HTTP/1.1 with the head timeout, and
/// HTTP/2 cleartext (prior knowledge, as gRPC clients and `curl
/// --http2-prior-knowledge` speak it) with the settings above.
fn http_builder(head_timeout: Duration) -> auto::Builder<TokioExecutor> {
    let mut builder = auto::Builder::new(TokioExecutor::new());
    // Heads as long as kube-apiserver's (`gateway::long_uri`), with room
    // for the header a long target's query moves to.
    let max_head = crate::gateway::long_uri::MAX_HEAD_BYTES + 64 * 1024;
    builder.http1().timer(TokioTimer::new()).header_read_timeout(head_timeout).max_buf_size(max_head);
    builder
        .http2()
        .timer(TokioTimer::new())
        .initial_stream_window_size(HTTP2_STREAM_WINDOW)
        .initial_connection_window_size(HTTP2_CONNECTION_WINDOW)
        .max_concurrent_streams(HTTP2_MAX_CONCURRENT_STREAMS)
        .keep_alive_interval(HTTP2_KEEPALIVE_INTERVAL)
        .keep_alive_timeout(HTTP2_KEEPALIVE_TIMEOUT);
    builder
}

/// The HTTP/2 connection preface, which tells an HTTP/2 connection from an
/// HTTP/1 one.
const HTTP2_PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/// An accepted connection that must say which HTTP it speaks within a time
/// limit. The auto builder first reads up to the HTTP/2 preface to choose,
/// and HTTP/1's head timeout only starts once it has: without this a
/// connection that sends nothing (or a preface a byte at a time) would stay
/// open for ever. The limit ends with the first byte that is not the
/// preface's (HTTP/1, whose head timeout takes over), the whole preface
/// (HTTP/2), or the end of the stream.
struct VersionDeadline {
    stream: TcpStream,
    deadline: Option<Pin<Box<Sleep>>>,
    /// How much of the preface has arrived.
    matched: usize,
}

impl VersionDeadline {
    fn new(stream: TcpStream, limit: Duration) -> Self {
        Self { stream, deadline: Some(Box::pin(tokio::time::sleep(limit))), matched: 0 }
    }

    /// Notes bytes read while the version is undecided.
    fn saw(&mut self, read: &[u8]) {
        let end = (self.matched + read.len()).min(HTTP2_PREFACE.len());
        let preface = &HTTP2_PREFACE[self.matched..end];
        if read.is_empty() || end == HTTP2_PREFACE.len() || &read[..preface.len()] != preface {
            self.deadline = None;
        } else {
            self.matched = end;
        }
    }
}

impl AsyncRead for VersionDeadline {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let polled = Pin::new(&mut this.stream).poll_read(cx, buf);
        let Some(deadline) = this.deadline.as_mut() else { return polled };
        match polled {
            Poll::Ready(Ok(())) => this.saw(&buf.filled()[before..]),
            Poll::Pending if deadline.as_mut().poll(cx).is_ready() => {
                return Poll::Ready(Err(io::Error::new(io::ErrorKind::TimedOut, "no request within the head timeout")));
            }
            _ => {}
        }
        polled
    }
}

impl AsyncWrite for VersionDeadline {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }
}

/// Serves HTTP/1.1 and HTTP/2 cleartext on `listener` until `stopped`, then
/// lets the open connections finish. A connection that does not send a whole
/// HTTP/1 request head within `head_timeout` (a new one, or an idle
/// keep-alive one) is closed, and so is one that sends neither that nor an
/// HTTP/2 preface.
async fn serve_http(
    listener: TcpListener,
    app: axum::Router,
    head_timeout: Duration,
    stopped: watch::Receiver<bool>,
) -> Result<(), BoxError> {
    let graceful = GracefulShutdown::new();
    let builder = http_builder(head_timeout);
    let mut incoming = incoming(listener);
    let mut stop = std::pin::pin!(until_stopped(stopped));
    loop {
        let stream = tokio::select! {
            accepted = incoming.next() => match accepted {
                Some(Ok(stream)) => stream,
                Some(Err(err)) => {
                    // Out of descriptors and the like: back off, keep serving.
                    tracing::warn!(error = %err, "accepting an HTTP connection failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
                None => break,
            },
            _ = &mut stop => break,
        };
        let io = TokioIo::new(LongUris::new(VersionDeadline::new(stream, head_timeout), head_timeout));
        let connection = builder.serve_connection(io, TowerToHyperService::new(app.clone())).into_owned();
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            if let Err(err) = connection.await {
                tracing::debug!(error = %err, "HTTP connection ended");
            }
        });
    }
    drop(incoming);
    graceful.shutdown().await;
    Ok(())
}

/// The gauges read from the store when metrics are collected:
/// `apiserver_storage_objects` for every definition's objects, the
/// definitions themselves and the built-in kinds (label `resource`,
/// `<plural>.<group>`, or `<plural>` in the core group, as Kubernetes'
/// `GroupResource` reads; a kind stored with another's objects, as
/// `events.k8s.io`'s Event with core's, is counted once, under the kind it
/// is stored as), and
/// `crdstore_storage_history_window_revisions`. They hold the store weakly,
/// and say nothing once it is gone.
fn observe_store(store: &Arc<dyn Storage>, registry: &Arc<Registry>) {
    use crate::storage::keys;
    use opentelemetry::KeyValue;
    let meter = crate::metrics::get().meter();
    let (weak_store, weak_registry) = (Arc::downgrade(store), Arc::downgrade(registry));
    let builtins = builtin_counts();
    let _objects = meter
        .i64_observable_gauge("apiserver_storage_objects")
        .with_description("Number of stored objects at the time of last check split by kind.")
        .with_callback(move |gauge| {
            let (Some(store), Some(registry)) = (weak_store.upgrade(), weak_registry.upgrade()) else { return };
            let Ok(definitions) = registry.all() else { return };
            let resource = format!("{}.{}", keys::DEFINITIONS_RESOURCE, keys::DEFINITIONS_GROUP);
            gauge.observe(definitions.len() as i64, &[KeyValue::new("resource", resource)]);
            for crd in definitions {
                let (group, plural) = (&crd.spec.group, &crd.spec.names.plural);
                let count = store.count(&keys::resource_prefix(group, plural)) as i64;
                gauge.observe(count, &[KeyValue::new("resource", format!("{plural}.{group}"))]);
            }
            for (resource, prefix) in &builtins {
                gauge.observe(store.count(prefix) as i64, &[KeyValue::new("resource", resource.clone())]);
            }
        })
        .build();
    let weak_store = Arc::downgrade(store);
    let _window = meter
        .i64_observable_gauge("crdstore_storage_history_window_revisions")
        .with_description(
            "Revisions of history kept for watches and lists: the current revision less the compacted one.",
        )
        .with_callback(move |gauge| {
            if let Some(store) = weak_store.upgrade() {
                gauge.observe(store.current_revision().since(store.compacted_revision()), &[]);
            }
        })
        .build();
}

/// What `apiserver_storage_objects` counts for the built-in kinds: each
/// stored resource's label (`GroupResource`'s string) and key prefix, once
/// per prefix.
fn builtin_counts() -> Vec<(String, String)> {
    let mut counts: Vec<(String, String)> = Vec::new();
    for crd in crate::builtin::definitions() {
        let (group, plural) = (&crd.crd.spec.group, &crd.crd.spec.names.plural);
        let prefix = crate::storage::keys::resource_prefix(group, plural);
        if counts.iter().all(|(_, seen)| *seen != prefix) {
            let resource = if group.is_empty() { plural.clone() } else { format!("{plural}.{group}") };
            counts.push((resource, prefix));
        }
    }
    counts
}

/// Opens the store in `config.data_dir` (created if need be) and starts its
/// background work; the process's instruments are installed first, so the
/// store records into them.
fn open_store(config: &Config) -> Result<Arc<dyn Storage>, BoxError> {
    std::fs::create_dir_all(&config.data_dir)?;
    // The instruments exist before the store records into them.
    crate::metrics::install(|builder| builder);
    let options =
        SledOptions { window: config.window, compaction_interval: config.compaction_interval, ..Default::default() };
    let (store, background) = SledStore::open(&config.data_dir, options)?;
    tokio::spawn(background.run());
    Ok(Arc::new(store))
}

/// Starts the background tasks over the domain: definition tracking, the
/// cleanup of deleted definitions' objects, the built-in kinds' tasks and
/// the garbage collector, each ending when `stopped` turns true.
fn start_tasks(
    config: &Config,
    store: &Arc<dyn Storage>,
    registry: &Arc<Registry>,
    resources: &Arc<Resources>,
    stopped: &watch::Receiver<bool>,
) {
    tokio::spawn({
        let resources = resources.clone();
        async move { resources.track_definitions().await }
    });
    tokio::spawn(crate::resource::cleanup::run(store.clone(), registry.clone(), resources.clone(), stopped.clone()));
    crate::builtin::start(store.clone(), registry.clone(), resources.clone(), config.event_ttl, stopped.clone());
    tokio::spawn(crate::gc::run(store.clone(), resources.clone(), config.gc, stopped.clone()));
}

/// A running server.
pub struct Server {
    pub grpc_addr: SocketAddr,
    pub http_addr: SocketAddr,
    stop: watch::Sender<bool>,
    task: JoinHandle<Result<(), BoxError>>,
}

impl Server {
    /// Opens the store and starts serving. Returns once both listeners are
    /// bound.
    pub async fn start(config: Config) -> Result<Self, BoxError> {
        let store = open_store(&config)?;
        let (stop, stopped) = watch::channel(false);
        let registry = Arc::new(Registry::new(store.clone()));
        let resources = Arc::new(crate::builtin::serve(
            Resources::with_webhook_timeout(
                store.clone(),
                config.watch,
                stopped.clone(),
                config.conversion_webhook_timeout,
            ),
            config.namespace_lifecycle,
        ));
        crate::builtin::bootstrap(&resources).await?;
        let grpc_listener = TcpListener::bind(&config.grpc_addr).await?;
        let http_listener = TcpListener::bind(&config.http_addr).await?;
        let (grpc_addr, http_addr) = (grpc_listener.local_addr()?, http_listener.local_addr()?);
        start_tasks(&config, &store, &registry, &resources, &stopped);
        let migrations = Arc::new(crate::migration::Migrations::new(
            store.clone(),
            resources.clone(),
            config.migration,
            stopped.clone(),
        ));
        // Records of earlier releases become the objects clients see.
        migrations.upgrade_stored().await?;
        let watches = Arc::new(Semaphore::new(config.max_watches));
        let watch_pool = Arc::new(crate::watch::pool::Pool::new(config.watch_nice)?);
        let limits = crate::gateway::Limits {
            body_timeout: config.body_timeout,
            watches: watches.clone(),
            watch_pool: watch_pool.clone(),
        };
        let api = crate::gateway::Api { registry: registry.clone(), resources: resources.clone(), limits };
        observe_store(&store, &registry);
        // A backup's client that takes nothing for as long as a body may
        // take to arrive frees its slot.
        let stall = config.body_timeout;
        let cors = crate::grpc::web::Origins::parse(&config.cors_allowed_origins)?;
        let limits = crate::grpc::Limits { watches, pool: watch_pool, max_backups: config.max_backups, stall, cors };
        let routes = crate::grpc::routes(store.clone(), registry, resources, migrations.clone(), limits).await?;
        // Migrations that had not ended when the server last stopped go on,
        // and each one created from now on runs.
        tokio::spawn(migrations.clone().control());

        // The builder's TCP settings apply only to listeners it binds itself:
        // `incoming` sets them on the connections this one accepts.
        // HTTP/1.1 too, for gRPC-Web (`grpc::web`); plain gRPC stays HTTP/2.
        let grpc = tonic::transport::Server::builder()
            .accept_http1(true)
            .initial_stream_window_size(HTTP2_STREAM_WINDOW)
            .initial_connection_window_size(HTTP2_CONNECTION_WINDOW)
            .max_concurrent_streams(HTTP2_MAX_CONCURRENT_STREAMS)
            .http2_keepalive_interval(Some(HTTP2_KEEPALIVE_INTERVAL))
            .http2_keepalive_timeout(Some(HTTP2_KEEPALIVE_TIMEOUT))
            .add_routes(routes)
            .serve_with_incoming_shutdown(incoming(grpc_listener), until_stopped(stopped.clone()));
        let http = serve_http(http_listener, crate::gateway::router(api), config.head_timeout, stopped.clone());
        let task = tokio::spawn(async move {
            let serving = async {
                let (grpc, http) = tokio::join!(grpc, http);
                grpc?;
                http?;
                Ok::<(), BoxError>(())
            };
            tokio::select! {
                result = serving => result?,
                _ = async {
                    until_stopped(stopped).await;
                    tokio::time::sleep(DRAIN_TIMEOUT).await;
                } => tracing::warn!("in-flight requests did not drain in time"),
            }
            store.close().await;
            tracing::info!("store flushed and closed");
            Ok(())
        });
        tracing::info!(%grpc_addr, %http_addr, data_dir = %config.data_dir.display(), "crdstore serving");
        Ok(Self { grpc_addr, http_addr, stop, task })
    }

    /// Stops serving: ends watches, drains in-flight requests, flushes.
    pub async fn shutdown(self) -> Result<(), BoxError> {
        let _ = self.stop.send(true);
        self.task.await?
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn built_in_kinds_are_counted_once_under_their_group_resource() {
        let counts = super::builtin_counts();
        let labels: Vec<&str> = counts.iter().map(|(label, _)| label.as_str()).collect();
        let svm = "storageversionmigrations.storagemigration.k8s.io";
        assert_eq!(labels, ["namespaces", "leases.coordination.k8s.io", "events", svm]);
        let prefixes: Vec<&str> = counts.iter().map(|(_, prefix)| prefix.as_str()).collect();
        let svm = "/registry/storagemigration.k8s.io/storageversionmigrations/";
        assert_eq!(prefixes, ["/registry/namespaces/", "/registry/leases/", "/registry/events/", svm]);
    }
}
