//! The `crdstore` command: `crdstore serve` runs the store (embedded sled,
//! gRPC and HTTP) until SIGTERM or Ctrl-C, then drains, flushes and exits 0;
//! `crdstore backup` and `crdstore restore` write and read snapshots;
//! `crdstore feature-gates` prints the field-level feature gates of the
//! server in the current kubeconfig as a table, like `kubectl
//! api-resources`; invoked as `kubectl-feature_gates` (a link to this
//! binary on the PATH), it is the `kubectl feature-gates` plugin.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand};
use crdstore::server::{Config, Server, DEFAULT_BODY_TIMEOUT, DEFAULT_HEAD_TIMEOUT, DEFAULT_MAX_WATCHES};
use crdstore::storage::HistoryWindow;
use crdstore::telemetry::LogFormat;
use crdstore::watch::stream::WatchDefaults;

use backup::{BackupArgs, RestoreArgs};

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
}

#[derive(clap::Args)]
struct FeatureGatesArgs {
    /// Only the gates of this definition (`<plural>.<group>`).
    #[arg(long)]
    definition: Option<String>,
    /// Only the gates of this component.
    #[arg(long)]
    component: Option<String>,
    /// Output format: the table, or the server's JSON document.
    #[arg(short, long, default_value = "table", value_parser = ["table", "json"])]
    output: String,
    /// Don't print headers.
    #[arg(long)]
    no_headers: bool,
    /// Passed on to kubectl, which reads the kubeconfig and talks to the
    /// server (`--kubeconfig`, `--context`, `--server`...).
    #[arg(long)]
    kubeconfig: Option<String>,
    #[arg(long)]
    context: Option<String>,
    #[arg(short, long)]
    server: Option<String>,
}

/// The name kubectl runs the plugin by: `kubectl feature-gates`.
const PLUGIN: &str = "kubectl-feature_gates";

/// The gates, read through kubectl (`kubectl get --raw /featuregates`), so
/// the current kubeconfig's server, credentials and TLS apply as they do to
/// kubectl itself; printed as a table or as JSON.
fn feature_gates(args: FeatureGatesArgs) -> ExitCode {
    let mut query: Vec<String> = Vec::new();
    for (name, value) in [("definition", &args.definition), ("component", &args.component)] {
        if let Some(value) = value {
            query.push(form_urlencoded::Serializer::new(String::new()).append_pair(name, value).finish());
        }
    }
    let path =
        if query.is_empty() { "/featuregates".to_string() } else { format!("/featuregates?{}", query.join("&")) };
    let kubectl = std::env::var("KUBECTL").unwrap_or_else(|_| "kubectl".into());
    let mut command = std::process::Command::new(kubectl);
    command.args(["get", "--raw", &path]);
    for (flag, value) in [("--kubeconfig", &args.kubeconfig), ("--context", &args.context), ("--server", &args.server)]
    {
        if let Some(value) = value {
            command.arg(format!("{flag}={value}"));
        }
    }
    let output = match command.stderr(std::process::Stdio::inherit()).output() {
        Ok(output) if output.status.success() => output.stdout,
        Ok(_) => return ExitCode::FAILURE,
        Err(err) => {
            eprintln!("error: running kubectl: {err}");
            return ExitCode::FAILURE;
        }
    };
    let doc: serde_json::Value = match serde_json::from_slice(&output) {
        Ok(doc) => doc,
        Err(err) => {
            eprintln!("error: the server's answer is not a feature gate list: {err}");
            return ExitCode::FAILURE;
        }
    };
    if args.output == "json" {
        println!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
        return ExitCode::SUCCESS;
    }
    print!("{}", gate_table(&doc, !args.no_headers));
    ExitCode::SUCCESS
}

/// The gates as `kubectl api-resources` prints resources: upper-case
/// headers, columns padded to their widest cell and three spaces apart.
fn gate_table(doc: &serde_json::Value, headers: bool) -> String {
    let text = |v: &serde_json::Value| match v {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Null => String::new(),
        other => other.to_string(),
    };
    let mut rows: Vec<Vec<String>> = Vec::new();
    if headers {
        rows.push(
            ["NAME", "DEFINITION", "COMPONENT", "STAGE", "DEFAULT", "ENABLED", "EFFECTIVE", "PATHS"]
                .map(String::from)
                .to_vec(),
        );
    }
    for gate in doc["items"].as_array().into_iter().flatten() {
        let paths: Vec<String> = gate["paths"].as_array().into_iter().flatten().map(text).collect();
        rows.push(vec![
            text(&gate["name"]),
            text(&gate["definition"]),
            text(&gate["component"]),
            text(&gate["stage"]),
            text(&gate["default"]),
            text(&gate["enabled"]),
            text(&gate["effective"]),
            paths.join(","),
        ]);
    }
    let widths: Vec<usize> = (0..8).map(|i| rows.iter().map(|r| r[i].len()).max().unwrap_or(0)).collect();
    let mut out = String::new();
    for row in rows {
        let cells: Vec<String> = row.iter().zip(&widths).map(|(c, w)| format!("{c:<w$}")).collect();
        out.push_str(cells.join("   ").trim_end());
        out.push('\n');
    }
    out
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
    /// How often watches that allow bookmarks get one, in seconds.
    #[arg(long, env = "CRDSTORE_BOOKMARK_SECONDS", default_value_t = 60)]
    bookmark_seconds: u64,
    /// Close an HTTP connection that has not sent a whole request head in
    /// this many seconds (a new connection or an idle keep-alive one).
    #[arg(long, env = "CRDSTORE_HEAD_TIMEOUT_SECONDS", default_value_t = DEFAULT_HEAD_TIMEOUT.as_secs())]
    head_timeout_seconds: u64,
    /// Refuse an HTTP request whose body has not arrived in this many seconds.
    #[arg(long, env = "CRDSTORE_BODY_TIMEOUT_SECONDS", default_value_t = DEFAULT_BODY_TIMEOUT.as_secs())]
    body_timeout_seconds: u64,
    /// The most watches open at once, gRPC and HTTP together; more get 429
    /// (RESOURCE_EXHAUSTED) with a retry delay.
    #[arg(long, env = "CRDSTORE_MAX_WATCHES", default_value_t = DEFAULT_MAX_WATCHES)]
    max_watches: usize,
    /// How log lines on stderr look: `text`, or `json` (one object per line,
    /// with the request's trace and span IDs when tracing is on). `RUST_LOG`
    /// filters them; `debug` adds a line per request. Traces and metrics go
    /// over OTLP when `OTEL_EXPORTER_OTLP_ENDPOINT` (or a per-signal endpoint)
    /// is set.
    #[arg(long, env = "CRDSTORE_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    log_format: LogFormat,
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

/// `crdstore backup` and `crdstore restore`: the commands over
/// `storage::snapshot`, with a progress bar on a terminal and a plain line
/// per 10% otherwise.
mod backup {
    use std::io::IsTerminal;
    use std::path::{Path, PathBuf};
    use std::process::ExitCode;
    use std::sync::{Arc, Mutex};

    use crdstore::pb::v1::maintenance_client::MaintenanceClient;
    use crdstore::pb::v1::BackupRequest;
    use crdstore::storage::sled::{SledOptions, SledStore};
    use crdstore::storage::snapshot::{self, Header, Phase, Progress, SnapshotFile};
    use crdstore::storage::Storage;
    use indicatif::{ProgressBar, ProgressStyle};

    type BoxError = Box<dyn std::error::Error + Send + Sync>;

    #[derive(clap::Args)]
    pub struct BackupArgs {
        /// The snapshot file to write (written as FILE.partial, then renamed
        /// once complete and checked).
        #[arg(long, value_name = "FILE")]
        to: PathBuf,
        /// Back up the store in this data directory; no server may be using
        /// it (back a running server up with --server).
        #[arg(long, required_unless_present = "server", conflicts_with = "server")]
        data_dir: Option<PathBuf>,
        /// Back up a running server over gRPC, at this address (host:port).
        #[arg(long, value_name = "ADDR")]
        server: Option<String>,
    }

    #[derive(clap::Args)]
    pub struct RestoreArgs {
        /// The snapshot file to restore.
        #[arg(long, value_name = "FILE")]
        from: PathBuf,
        /// The data directory to create; it must not exist or be empty.
        #[arg(long)]
        data_dir: PathBuf,
    }

    /// What a phase counts, for the progress display.
    fn counts_bytes(phase: Phase) -> bool {
        phase != Phase::Backup
    }

    #[derive(Default)]
    struct Display {
        phase: Option<Phase>,
        bar: Option<ProgressBar>,
        tenths: u64,
    }

    impl Display {
        fn show(&mut self, terminal: bool, phase: Phase, done: u64, total: u64) {
            if self.phase != Some(phase) {
                self.finish();
                self.phase = Some(phase);
                self.tenths = 0;
                if terminal {
                    let template = if counts_bytes(phase) {
                        "{msg:>7} [{bar:40}] {binary_bytes}/{binary_total_bytes} {binary_bytes_per_sec} {eta}"
                    } else {
                        "{msg:>7} [{bar:40}] {human_pos}/{human_len} records {per_sec} {eta}"
                    };
                    let bar = ProgressBar::new(total).with_message(phase.to_string());
                    bar.set_style(ProgressStyle::with_template(template).expect("template").progress_chars("=> "));
                    self.bar = Some(bar);
                }
            }
            if let Some(bar) = &self.bar {
                bar.set_length(total);
                bar.set_position(done);
                return;
            }
            let tenths = (done.min(total) * 10).checked_div(total).unwrap_or(10);
            if tenths > self.tenths {
                self.tenths = tenths;
                let unit = if counts_bytes(phase) { "bytes" } else { "records" };
                eprintln!("{phase}: {}% ({done}/{total} {unit})", tenths * 10);
            }
        }

        fn finish(&mut self) {
            if let Some(bar) = self.bar.take() {
                bar.finish();
            }
        }
    }

    /// Progress shown on stderr: a bar when it is a terminal, else a line
    /// per 10% of each phase.
    struct Reporter(Arc<Mutex<Display>>);

    impl Reporter {
        fn new() -> Self {
            Self(Arc::new(Mutex::new(Display::default())))
        }

        fn progress(&self) -> Progress {
            let terminal = std::io::stderr().is_terminal();
            let display = self.0.clone();
            Arc::new(move |phase, done, total| {
                display.lock().expect("progress lock").show(terminal, phase, done, total)
            })
        }

        fn finish(&self) {
            self.0.lock().expect("progress lock").finish();
        }
    }

    pub async fn backup(args: BackupArgs) -> ExitCode {
        let reporter = Reporter::new();
        let progress = reporter.progress();
        let written = match (&args.server, &args.data_dir) {
            (Some(server), _) => backup_server(server, &args.to, &progress).await,
            (None, Some(dir)) => backup_dir(dir, &args.to, &progress).await,
            (None, None) => Err("give --data-dir or --server".into()),
        };
        reporter.finish();
        match written {
            Ok((header, bytes)) => {
                println!(
                    "backed up revision {} ({} objects, {} revisions of history, {bytes} bytes) to {}",
                    header.revision,
                    header.objects,
                    header.revisions(),
                    args.to.display()
                );
                ExitCode::SUCCESS
            }
            Err(err) => {
                eprintln!("crdstore backup: {err}");
                ExitCode::FAILURE
            }
        }
    }

    async fn backup_dir(dir: &Path, to: &Path, progress: &Progress) -> Result<(Header, u64), BoxError> {
        if !std::fs::read_dir(dir).is_ok_and(|mut entries| entries.next().is_some()) {
            return Err(format!("no store in {}", dir.display()).into());
        }
        let (store, _compaction) = SledStore::open(dir, SledOptions::default()).map_err(|err| {
            format!("opening {} (a server using it is backed up with --server): {err}", dir.display())
        })?;
        let image = store.image();
        let written = match image {
            Ok(image) => {
                let (to, progress) = (to.to_path_buf(), progress.clone());
                tokio::task::spawn_blocking(move || snapshot::write_file(image, &to, &progress)).await?
            }
            Err(err) => Err(err.into()),
        };
        store.close().await;
        let summary = written?;
        Ok((summary.header, summary.bytes))
    }

    async fn backup_server(server: &str, to: &Path, progress: &Progress) -> Result<(Header, u64), BoxError> {
        let endpoint = if server.contains("://") { server.to_string() } else { format!("http://{server}") };
        let mut client = MaintenanceClient::connect(endpoint).await?;
        let mut stream = client.backup(BackupRequest {}).await?.into_inner();
        let mut file = SnapshotFile::create(to)?;
        let mut bytes = 0u64;
        while let Some(chunk) = stream.message().await? {
            std::io::Write::write_all(file.writer(), &chunk.data)?;
            bytes += chunk.data.len() as u64;
            progress(Phase::Backup, chunk.records_done, chunk.records_total);
        }
        let header = file.finish()?;
        progress(Phase::Backup, header.records(), header.records());
        Ok((header, bytes))
    }

    pub async fn restore(args: RestoreArgs) -> ExitCode {
        let reporter = Reporter::new();
        let progress = reporter.progress();
        let (from, data_dir) = (args.from.clone(), args.data_dir.clone());
        let restored =
            tokio::task::spawn_blocking(move || snapshot::restore(&from, &data_dir, SledStore::restore, &progress))
                .await;
        reporter.finish();
        match restored {
            Ok(Ok(summary)) => {
                println!(
                    "restored revision {} ({} objects, {} revisions of history) into {}",
                    summary.header.revision,
                    summary.header.objects,
                    summary.header.revisions(),
                    args.data_dir.display()
                );
                ExitCode::SUCCESS
            }
            Ok(Err(err)) => {
                eprintln!("crdstore restore: {err}; nothing was restored");
                ExitCode::FAILURE
            }
            Err(err) => {
                eprintln!("crdstore restore: {err}; nothing was restored");
                ExitCode::FAILURE
            }
        }
    }
}
