//! `crdstore migrate <definition>`: starts a storage-version migration on a
//! running server over gRPC and follows it to its end, with a progress bar
//! on a terminal and a plain line per 10% otherwise.

use std::io::IsTerminal;
use std::process::ExitCode;

use crdstore::pb::v1::storage_version_migrations_client::StorageVersionMigrationsClient;
use crdstore::pb::v1::{Migration, StartMigrationRequest, WatchMigrationRequest};
use indicatif::{ProgressBar, ProgressStyle};

type BoxError = Box<dyn std::error::Error + Send + Sync>;

#[derive(clap::Args)]
pub struct MigrateArgs {
    /// The definition whose objects to migrate, `<plural>.<group>`.
    definition: String,
    /// The server's gRPC address (host:port).
    #[arg(long, value_name = "ADDR", env = "CRDSTORE_SERVER", default_value = "127.0.0.1:50051")]
    server: String,
    /// The migration's name (generated when not given).
    #[arg(long, default_value = "")]
    name: String,
    /// Start it and return without following it.
    #[arg(long)]
    no_wait: bool,
}

/// Progress: a bar on a terminal, else a line per 10%.
struct Display {
    bar: Option<ProgressBar>,
    tenths: u64,
}

impl Display {
    fn new() -> Self {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::new(0);
            let template = "{msg} [{bar:40}] {human_pos}/{human_len} objects {per_sec} {eta}";
            bar.set_style(ProgressStyle::with_template(template).expect("template").progress_chars("=> "));
            bar
        });
        Self { bar, tenths: 0 }
    }

    fn show(&mut self, m: &Migration) {
        let total = m.total.max(m.scanned);
        if let Some(bar) = &self.bar {
            bar.set_message(format!("{} → {}", m.definition, m.target_version));
            bar.set_length(total);
            bar.set_position(m.scanned);
            return;
        }
        if total == 0 && m.phase == "Running" {
            // The first pass has not counted the objects yet.
            return;
        }
        let tenths = (m.scanned.min(total) * 10).checked_div(total).unwrap_or(10);
        if tenths > self.tenths {
            self.tenths = tenths;
            eprintln!("{}: {}% ({}/{total} objects looked at)", m.name, tenths * 10, m.scanned);
        }
    }

    fn finish(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish();
        }
    }
}

pub async fn migrate(args: MigrateArgs) -> ExitCode {
    let mut display = Display::new();
    let outcome = run(&args, &mut display).await;
    display.finish();
    match outcome {
        Ok(m) if m.phase == "Succeeded" => {
            println!(
                "migrated {}: {} objects rewritten at {}; storedVersions is [{}]",
                m.definition, m.migrated, m.target_version, m.target_version
            );
            ExitCode::SUCCESS
        }
        Ok(m) if args.no_wait => {
            println!("started migration {} of {}", m.name, m.definition);
            ExitCode::SUCCESS
        }
        Ok(m) => {
            eprintln!("crdstore migrate: migration {} {}: {}", m.name, m.phase.to_lowercase(), m.message);
            ExitCode::FAILURE
        }
        Err(err) => {
            eprintln!("crdstore migrate: {err}");
            ExitCode::FAILURE
        }
    }
}

async fn run(args: &MigrateArgs, display: &mut Display) -> Result<Migration, BoxError> {
    let endpoint = if args.server.contains("://") { args.server.clone() } else { format!("http://{}", args.server) };
    let mut client = StorageVersionMigrationsClient::connect(endpoint).await?;
    let request = StartMigrationRequest { definition: args.definition.clone(), name: args.name.clone() };
    let started = client.start(request).await.map_err(|s| s.message().to_string())?.into_inner();
    if args.no_wait {
        return Ok(started);
    }
    let mut stream = client.watch(WatchMigrationRequest { name: started.name.clone() }).await?.into_inner();
    let mut last = started;
    while let Some(m) = stream.message().await? {
        display.show(&m);
        last = m;
    }
    Ok(last)
}
