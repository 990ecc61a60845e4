//! Assembles a running crdstore: opens the store, builds the domain, binds
//! the gRPC and HTTP listeners, and shuts down in order: watches end, in-flight
//! requests drain, the store flushes and closes.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::sync::watch;
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
}

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
        }
    }
}

type BoxError = Box<dyn std::error::Error + Send + Sync>;

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
        let store: Arc<dyn Storage> = Arc::new(SledStore::open(&config.data_dir, options)?);
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
        let api = crate::gateway::Api { registry: registry.clone(), resources: resources.clone() };
        let routes = crate::grpc::routes(registry, resources).await?;

        let grpc = tonic::transport::Server::builder()
            .add_routes(routes)
            .serve_with_incoming_shutdown(TcpListenerStream::new(grpc_listener), until_stopped(stopped.clone()));
        let http = axum::serve(http_listener, crate::gateway::router(api))
            .with_graceful_shutdown(until_stopped(stopped.clone()));
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
