//! Assembles a running crdstore: opens the store, builds the domain, binds
//! the gRPC and HTTP listeners, and shuts down in order: watches end, in-flight
//! requests drain, the store flushes and closes.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::{watch, Semaphore};
use tokio::task::JoinHandle;
use tokio_stream::wrappers::TcpListenerStream;

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
}

/// The default `Config::head_timeout`.
pub const DEFAULT_HEAD_TIMEOUT: Duration = Duration::from_secs(30);
/// The default `Config::body_timeout`.
pub const DEFAULT_BODY_TIMEOUT: Duration = Duration::from_secs(60);
/// The default `Config::max_watches`.
pub const DEFAULT_MAX_WATCHES: usize = 1024;

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
        }
    }
}

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Serves HTTP/1.1 on `listener` until `stopped`, then lets the open
/// connections finish. A connection that does not send a whole request head
/// within `head_timeout` (a new one, or an idle keep-alive one) is closed.
async fn serve_http(
    listener: TcpListener,
    app: axum::Router,
    head_timeout: Duration,
    stopped: watch::Receiver<bool>,
) -> Result<(), BoxError> {
    let graceful = GracefulShutdown::new();
    let mut stop = std::pin::pin!(until_stopped(stopped));
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(err) => {
                    // Out of descriptors and the like: back off, keep serving.
                    tracing::warn!(error = %err, "accepting an HTTP connection failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            _ = &mut stop => break,
        };
        let _ = stream.set_nodelay(true);
        let connection = hyper::server::conn::http1::Builder::new()
            .timer(TokioTimer::new())
            .header_read_timeout(head_timeout)
            .serve_connection(TokioIo::new(stream), TowerToHyperService::new(app.clone()));
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            if let Err(err) = connection.await {
                tracing::debug!(error = %err, "HTTP connection ended");
            }
        });
    }
    drop(listener);
    graceful.shutdown().await;
    Ok(())
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
        std::fs::create_dir_all(&config.data_dir)?;
        let options = SledOptions { window: config.window, compaction_interval: config.compaction_interval };
        let (store, background) = SledStore::open(&config.data_dir, options)?;
        tokio::spawn(background.run());
        let store: Arc<dyn Storage> = Arc::new(store);
        let (stop, stopped) = watch::channel(false);
        let registry = Arc::new(Registry::new(store.clone(), config.watch, stopped.clone()));
        let resources = Arc::new(Resources::new(store.clone(), config.watch, stopped.clone()));
        let grpc_listener = TcpListener::bind(&config.grpc_addr).await?;
        let http_listener = TcpListener::bind(&config.http_addr).await?;
        let (grpc_addr, http_addr) = (grpc_listener.local_addr()?, http_listener.local_addr()?);
        tokio::spawn({
            let resources = resources.clone();
            async move { resources.track_definitions().await }
        });
        tokio::spawn(crate::resource::cleanup::run(
            store.clone(),
            registry.clone(),
            resources.clone(),
            stopped.clone(),
        ));
        let watches = Arc::new(Semaphore::new(config.max_watches));
        let limits = crate::gateway::Limits { body_timeout: config.body_timeout, watches: watches.clone() };
        let api = crate::gateway::Api { registry: registry.clone(), resources: resources.clone(), limits };
        let routes = crate::grpc::routes(registry, resources, watches).await?;

        let grpc = tonic::transport::Server::builder()
            .add_routes(routes)
            .serve_with_incoming_shutdown(TcpListenerStream::new(grpc_listener), until_stopped(stopped.clone()));
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
