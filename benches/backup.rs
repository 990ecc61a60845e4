//! `cargo bench --bench backup`: backup and restore of N objects of 1 KB
//! (100,000 by default; `-- --objects 1000000` or `CRDSTORE_BENCH_OBJECTS`
//! for a million), in seconds and MB/s, beside the disk's raw copy speed of
//! the same bytes (copying the snapshot file and syncing the copy).
//!
//! The store is filled with 100-object commits and compacted first, so the
//! snapshot is the objects plus a short history window, as a long-running
//! store's is. Figures are printed, not asserted.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crdstore::storage::sled::{SledOptions, SledStore};
use crdstore::storage::snapshot;
use crdstore::storage::{HistoryWindow, Op, Storage};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const PER_COMMIT: usize = 100;

fn objects() -> usize {
    let args: Vec<String> = std::env::args().collect();
    let flag = args.iter().position(|a| a == "--objects").and_then(|i| args.get(i + 1).cloned());
    flag.or_else(|| std::env::var("CRDSTORE_BENCH_OBJECTS").ok()).and_then(|n| n.parse().ok()).unwrap_or(100_000)
}

fn value(i: usize) -> Vec<u8> {
    let mut v =
        format!(r#"{{"apiVersion":"example.com/v1","kind":"Bench","metadata":{{"name":"o{i}"}},"spec":{{"data":""#)
            .into_bytes();
    v.extend(std::iter::repeat_n(b'x', 1000 - v.len().min(1000)));
    v.extend_from_slice(b"\"}}");
    v
}

async fn fill(dir: &Path, n: usize) {
    let options = SledOptions {
        window: HistoryWindow { min_age: Duration::ZERO, min_revisions: 100 },
        compaction_interval: Duration::from_secs(3600),
        ..SledOptions::default()
    };
    let (store, _compaction) = SledStore::open(dir, options).expect("open store");
    let store = Arc::new(store);
    let mut tasks = Vec::new();
    let writers = 16;
    for w in 0..writers {
        let store = store.clone();
        tasks.push(tokio::spawn(async move {
            let mut i = w * PER_COMMIT;
            while i < n {
                let ops = (i..(i + PER_COMMIT).min(n))
                    .map(|j| Op::create(format!("/registry/example.com/benches/ns{}/o{j}", j % 100), value(j)))
                    .collect();
                store.commit(ops).await.expect("commit");
                i += writers * PER_COMMIT;
            }
        }));
    }
    for task in tasks {
        task.await.expect("writer");
    }
    while store.compact().await.expect("compact") < store.current_revision() - 100 {}
    store.close().await;
}

fn rate(bytes: u64, elapsed: Duration) -> f64 {
    bytes as f64 / 1e6 / elapsed.as_secs_f64()
}

#[tokio::main]
async fn main() {
    let n = objects();
    let root = tempfile::tempdir_in(std::env::var("CRDSTORE_BENCH_DIR").unwrap_or_else(|_| ".".into()))
        .expect("bench directory");
    let data = root.path().join("data");
    let start = Instant::now();
    fill(&data, n).await;
    println!("filled {n} objects in {:.1} s", start.elapsed().as_secs_f64());

    let file = root.path().join("snapshot");
    let (store, _compaction) = SledStore::open(&data, SledOptions::default()).expect("open store");
    let start = Instant::now();
    let image = store.image().expect("image");
    let summary = {
        let file = file.clone();
        tokio::task::spawn_blocking(move || snapshot::write_file(image, &file, &snapshot::no_progress()))
            .await
            .expect("backup task")
            .expect("backup")
    };
    let backup = start.elapsed();
    store.close().await;
    let bytes = summary.bytes;
    println!(
        "backup   {n} objects, {} revisions of history: {bytes} bytes in {:.2} s, {:.0} MB/s (written, synced, checked)",
        summary.header.revisions(),
        backup.as_secs_f64(),
        rate(bytes, backup)
    );

    let restored = root.path().join("restored");
    let start = Instant::now();
    snapshot::restore(&file, &restored, SledStore::restore, &snapshot::no_progress()).expect("restore");
    let restore = start.elapsed();
    println!(
        "restore  {n} objects: {:.2} s, {:.0} MB/s (checked, built, replayed, synced)",
        restore.as_secs_f64(),
        rate(bytes, restore)
    );

    let copy = root.path().join("copy");
    let start = Instant::now();
    std::fs::copy(&file, &copy).expect("copy");
    std::fs::File::open(&copy).and_then(|f| f.sync_all()).expect("sync copy");
    let raw = start.elapsed();
    println!(
        "raw copy {bytes} bytes: {:.2} s, {:.0} MB/s (copy and sync of the snapshot file)",
        raw.as_secs_f64(),
        rate(bytes, raw)
    );
    println!(
        "backup at {:.0}% and restore at {:.0}% of the raw copy speed",
        100.0 * rate(bytes, backup) / rate(bytes, raw),
        100.0 * rate(bytes, restore) / rate(bytes, raw)
    );
}
