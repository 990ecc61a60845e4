//! The `crdstore` command: `crdstore serve` runs the store (embedded sled,
//! gRPC and HTTP) until SIGTERM or Ctrl-C, then drains, flushes and exits 0;
//! `crdstore backup` and `crdstore restore` write and read snapshots;
//! `crdstore migrate` migrates a definition's objects to its storage version;
//! `crdstore descriptors` prints the protos' descriptor set for transcoding
//! proxies (Envoy's `proto_descriptor`);
//! `crdstore feature-gates` prints the field-level feature gates of the
//! server in the current kubeconfig as a table, like `kubectl
//! api-resources`; invoked as `kubectl-feature_gates` (a link to this
//! binary on the PATH), it is the `kubectl feature-gates` plugin.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand};
use crdstore::server::{
    Config, Server, DEFAULT_BODY_TIMEOUT, DEFAULT_HEAD_TIMEOUT, DEFAULT_MAX_BACKUPS, DEFAULT_MAX_WATCHES,
};
use crdstore::storage::HistoryWindow;
use crdstore::telemetry::LogFormat;
use crdstore::watch::stream::WatchDefaults;

use cli::backup::{self, BackupArgs, RestoreArgs};
use cli::feature_gates::{feature_gates, FeatureGatesArgs, PLUGIN};
use cli::migrate::{self, MigrateArgs};

mod cli;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(name = "crdstore", version, about = "A standalone store for Kubernetes-style custom resources")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the store.
    Serve(ServeArgs),
    /// Write a snapshot of a store: of a data directory no server is using,
    /// or of a running server over gRPC.
    Backup(BackupArgs),
    /// Build a new data directory from a snapshot.
    Restore(RestoreArgs),
    /// List the field-level feature gates of the server in the current
    /// kubeconfig (what `kubectl feature-gates` runs).
    FeatureGates(FeatureGatesArgs),
    /// Rewrite every stored object of a definition at its storage version
    /// on a running server, then trim its status.storedVersions; shows
    /// progress until it ends.
    Migrate(MigrateArgs),
    /// Print the protos' FileDescriptorSet, with imports, source info and
    /// the methods' google.api.http rules, for Envoy's grpc_json_transcoder
    /// (`crdstore descriptors > crdstore.pb`).
    Descriptors,
}

#[derive(clap::Args)]
struct ServeArgs {
    /// Where the embedded database lives.
    #[arg(long, env = "CRDSTORE_DATA_DIR", default_value = "./data")]
    data_dir: PathBuf,
    /// The gRPC listen address (port 0 picks a free port).
    #[arg(long, env = "CRDSTORE_GRPC_ADDR", default_value = "127.0.0.1:50051")]
    grpc_addr: String,
    /// The HTTP listen address: health endpoints and the REST gateway.
    #[arg(long, env = "CRDSTORE_HTTP_ADDR", default_value = "127.0.0.1:8080")]
    http_addr: String,
    /// Keep watch and list history for at least this many seconds.
    #[arg(long, env = "CRDSTORE_HISTORY_SECONDS", default_value_t = 300)]
    history_seconds: u64,
    /// Keep watch and list history for at least this many revisions.
    #[arg(long, env = "CRDSTORE_HISTORY_REVISIONS", default_value_t = 10_000)]
    history_revisions: u64,
    /// How often history outside the window is compacted, in seconds.
    #[arg(long, env = "CRDSTORE_COMPACTION_SECONDS", default_value_t = 10)]
    compaction_seconds: u64,
    /// How long a watch that allows bookmarks may go without an event
    /// before it gets a bookmark, in seconds (below proxies' idle timeouts).
    #[arg(long, env = "CRDSTORE_BOOKMARK_SECONDS",
          default_value_t = crdstore::watch::stream::DEFAULT_BOOKMARK_INTERVAL.as_secs())]
    bookmark_seconds: u64,
    /// Close an HTTP connection that has not sent a whole request head in
    /// this many seconds (a new connection or an idle keep-alive one).
    #[arg(long, env = "CRDSTORE_HEAD_TIMEOUT_SECONDS", default_value_t = DEFAULT_HEAD_TIMEOUT.as_secs())]
    head_timeout_seconds: u64,
    /// Refuse an HTTP request whose body has not arrived in this many
    /// seconds, and end a backup whose client takes nothing for as long.
    #[arg(long, env = "CRDSTORE_BODY_TIMEOUT_SECONDS", default_value_t = DEFAULT_BODY_TIMEOUT.as_secs())]
    body_timeout_seconds: u64,
    /// The most watches open at once, gRPC and HTTP together; more get 429
    /// (RESOURCE_EXHAUSTED) with a retry delay.
    #[arg(long, env = "CRDSTORE_MAX_WATCHES", default_value_t = DEFAULT_MAX_WATCHES)]
    max_watches: usize,
    /// The most backups (`Maintenance/Backup`) running at once; more get
    /// RESOURCE_EXHAUSTED (TooManyRequests) with a retry delay.
    #[arg(long, env = "CRDSTORE_MAX_BACKUPS", default_value_t = DEFAULT_MAX_BACKUPS,
          value_parser = clap::builder::TypedValueParser::map(clap::value_parser!(u32).range(1..), |n| n as usize))]
    max_backups: usize,
    /// How much higher (1 to 19; 10 is the usual value) than the server's
    /// the `nice` is of threads of their own that produce watch events, so
    /// that requests come first when watch delivery wants more CPU than the
    /// machine has (watchers then fall behind, missing nothing); 0, the
    /// default, produces them on the threads that serve requests.
    #[arg(long, env = "CRDSTORE_WATCH_NICE", default_value_t = crdstore::watch::pool::DEFAULT_NICE,
          value_parser = clap::value_parser!(i32).range(0..=19))]
    watch_nice: i32,
    /// Give up on a conversion webhook that has not answered in this many
    /// seconds (Kubernetes' webhook request timeout by default).
    #[arg(long, env = "CRDSTORE_CONVERSION_WEBHOOK_TIMEOUT_SECONDS", default_value_t = 30)]
    conversion_webhook_timeout_seconds: u64,
    /// How log lines on stderr look: `text`, or `json` (one object per line,
    /// with the request's trace and span IDs when tracing is on). `RUST_LOG`
    /// filters them; `debug` adds a line per request. Traces and metrics go
    /// over OTLP when `OTEL_EXPORTER_OTLP_ENDPOINT` (or a per-signal endpoint)
    /// is set.
    #[arg(long, env = "CRDSTORE_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    log_format: LogFormat,
    /// Storage-version migrations rewrite at most this many objects per
    /// second (0: no limit), so they leave the store to its clients.
    #[arg(long, env = "CRDSTORE_MIGRATION_RATE", default_value_t = crdstore::migration::DEFAULT_RATE)]
    migration_rate: u32,
    /// The garbage collector makes at most this many requests (deletes and
    /// patches) per second (0: no limit).
    #[arg(long, env = "CRDSTORE_GC_RATE", default_value_t = crdstore::gc::DEFAULT_RATE)]
    gc_rate: u32,
    /// Writes into a namespace that does not exist: `lenient` allows them
    /// (crdstore's behaviour before it served namespaces), `strict` refuses
    /// them as Kubernetes does (404 `namespaces "x" not found`). Creates
    /// into a terminating namespace are refused either way.
    #[arg(long, env = "CRDSTORE_NAMESPACE_LIFECYCLE", value_enum, default_value_t = NamespaceLifecycle::Lenient)]
    namespace_lifecycle: NamespaceLifecycle,
    /// How long events are kept after their last write, as a duration
    /// (`1h`, `90s`, `1h0m0s`); Kubernetes' `--event-ttl`.
    #[arg(long, env = "CRDSTORE_EVENT_TTL", default_value = "1h", value_parser = parse_duration)]
    event_ttl: Duration,
    /// Origins (`https://app.example.com`, comma-separated or repeated; `*`
    /// for any) whose browser pages may call the gRPC port over gRPC-Web:
    /// their CORS preflights are answered, and a request from any other
    /// origin is refused with 403. None by default: no CORS headers.
    #[arg(long, env = "CRDSTORE_CORS_ALLOWED_ORIGINS", value_delimiter = ',')]
    cors_allowed_origins: Vec<String>,
}

/// `--namespace-lifecycle`.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum NamespaceLifecycle {
    Lenient,
    Strict,
}

/// A duration such as `1h`, `90s` or Go's `1h0m0s`, at least a second.
fn parse_duration(text: &str) -> Result<Duration, String> {
    let parsed: jiff::SignedDuration = text.parse().map_err(|err| format!("{err}"))?;
    let duration = Duration::try_from(parsed).map_err(|err| format!("{err}"))?;
    if duration < Duration::from_secs(1) {
        return Err("must be at least 1s".into());
    }
    Ok(duration)
}

impl ServeArgs {
    fn config(self) -> Config {
        Config {
            data_dir: self.data_dir,
            grpc_addr: self.grpc_addr,
            http_addr: self.http_addr,
            window: HistoryWindow {
                min_age: Duration::from_secs(self.history_seconds),
                min_revisions: self.history_revisions,
            },
            compaction_interval: Duration::from_secs(self.compaction_seconds.max(1)),
            watch: WatchDefaults {
                bookmark_interval: Duration::from_secs(self.bookmark_seconds.max(1)),
                ..WatchDefaults::default()
            },
            head_timeout: Duration::from_secs(self.head_timeout_seconds.max(1)),
            body_timeout: Duration::from_secs(self.body_timeout_seconds.max(1)),
            max_watches: self.max_watches,
            max_backups: self.max_backups,
            watch_nice: self.watch_nice,
            migration: crdstore::migration::MigrationOptions { rate: self.migration_rate },
            conversion_webhook_timeout: Duration::from_secs(self.conversion_webhook_timeout_seconds.max(1)),
            namespace_lifecycle: match self.namespace_lifecycle {
                NamespaceLifecycle::Lenient => crdstore::builtin::Lifecycle::Lenient,
                NamespaceLifecycle::Strict => crdstore::builtin::Lifecycle::Strict,
            },
            event_ttl: self.event_ttl,
            gc: crdstore::gc::GcOptions { rate: self.gc_rate },
            cors_allowed_origins: self.cors_allowed_origins,
        }
    }
}

async fn terminated() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
            .expect("installing a SIGTERM handler");
        tokio::select! {
            _ = ctrl_c => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    let _ = ctrl_c.await;
}

/// Logs of the one-shot commands: text on standard error, `RUST_LOG` or info.
fn plain_logs() {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()))
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
}

#[tokio::main]
async fn main() -> ExitCode {
    let invoked = std::env::args().next().unwrap_or_default();
    let cli = if std::path::Path::new(&invoked).file_name().is_some_and(|n| n.to_string_lossy() == PLUGIN) {
        let args = std::iter::once("crdstore".to_string())
            .chain(std::iter::once("feature-gates".to_string()))
            .chain(std::env::args().skip(1));
        Cli::parse_from(args)
    } else {
        Cli::parse()
    };
    let args = match cli.command {
        Command::Serve(args) => args,
        Command::FeatureGates(args) => return feature_gates(args),
        Command::Backup(args) => {
            plain_logs();
            return backup::backup(args).await;
        }
        Command::Restore(args) => {
            plain_logs();
            return backup::restore(args).await;
        }
        Command::Descriptors => return cli::descriptors::descriptors(),
        Command::Migrate(args) => {
            plain_logs();
            return migrate::migrate(args).await;
        }
    };
    let telemetry = match crdstore::telemetry::init(args.log_format) {
        Ok(telemetry) => telemetry,
        Err(err) => {
            eprintln!("crdstore: telemetry could not start: {err}");
            return ExitCode::FAILURE;
        }
    };
    let server = match Server::start(args.config()).await {
        Ok(server) => server,
        Err(err) => {
            tracing::error!(error = %err, "could not start");
            return ExitCode::FAILURE;
        }
    };
    // One line on stdout that scripts and tests read to find the ports.
    println!("crdstore listening grpc={} http={}", server.grpc_addr, server.http_addr);
    terminated().await;
    tracing::info!("shutting down");
    let stopped = server.shutdown().await;
    // Off the runtime's workers: the exporters block while they send.
    let _ = tokio::task::spawn_blocking(move || telemetry.shutdown()).await;
    match stopped {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            tracing::error!(error = %err, "shutdown failed");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    /// The allocator never advises the kernel to back its memory with
    /// transparent huge pages (issue 17): with them the kernel zeroed a
    /// whole 2 MiB page on each first touch after mimalloc purged memory, a
    /// tenth of a create's CPU. Advised mappings carry `hg` in their
    /// `VmFlags`.
    #[test]
    fn the_allocator_asks_for_no_huge_pages() {
        let blocks: Vec<Vec<u8>> = (0..64u8).map(|i| vec![i | 1; 1 << 20]).collect();
        let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap_or_default();
        let advised = smaps
            .lines()
            .filter(|line| line.starts_with("VmFlags:") && line.split_whitespace().any(|flag| flag == "hg"))
            .count();
        assert_eq!(blocks.iter().map(|b| b[0] as usize).sum::<usize>(), (0..64).map(|i| i | 1).sum::<usize>());
        assert_eq!(advised, 0, "mappings advised MADV_HUGEPAGE");
    }
}
