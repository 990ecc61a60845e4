//! `crdstore backup` and `crdstore restore`: the commands over
//! `storage::snapshot`, with a progress bar on a terminal and a plain line
//! per 10% otherwise.

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
        Arc::new(move |phase, done, total| display.lock().expect("progress lock").show(terminal, phase, done, total))
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
    let (store, _compaction) = SledStore::open(dir, SledOptions::default())
        .map_err(|err| format!("opening {} (a server using it is backed up with --server): {err}", dir.display()))?;
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
        tokio::task::spawn_blocking(move || snapshot::restore(&from, &data_dir, SledStore::restore, &progress)).await;
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
