//! `cargo bench --bench storage`: prints durable commit throughput of the
//! storage engine at 1 and 64 concurrent writers next to raw sled inserts
//! flushed once per batch of 64 on the same disk, and their ratio.
//!
//! Figures are printed, not asserted: CI machines vary. Set
//! `CRDSTORE_BENCH_SECONDS` to change how long each figure is measured
//! (default 3).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crdstore::storage::sled::{SledOptions, SledStore};
use crdstore::storage::{Mutation, Op, Precondition, Storage};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn seconds() -> Duration {
    let secs = std::env::var("CRDSTORE_BENCH_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(3.0);
    Duration::from_secs_f64(secs)
}

/// CPU seconds (user + system) this process has used.
#[allow(unsafe_code)] // getrusage has no safe wrapper in libc
fn cpu_seconds() -> f64 {
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage fills the struct it is given.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    tv(usage.ru_utime) + tv(usage.ru_stime)
}

fn value() -> Vec<u8> {
    let mut v = br#"{"apiVersion":"example.com/v1","kind":"Bench","spec":{"data":""#.to_vec();
    v.extend(std::iter::repeat_n(b'x', 1000));
    v.extend_from_slice(b"\"}}");
    v
}

/// Durable commits per second with `writers` concurrent writers.
async fn engine_commits(writers: usize, dir: &std::path::Path) -> f64 {
    let (store, background) = SledStore::open(dir, SledOptions::default()).expect("open store");
    tokio::spawn(background.run());
    let store = Arc::new(store);
    let done = Arc::new(AtomicUsize::new(0));
    let deadline = Instant::now() + seconds();
    let start = Instant::now();
    let cpu0 = cpu_seconds();
    let mut tasks = Vec::new();
    for w in 0..writers {
        let (store, done) = (store.clone(), done.clone());
        tasks.push(tokio::spawn(async move {
            let value = value();
            let mut i = 0usize;
            while Instant::now() < deadline {
                let op = Op {
                    key: format!("/registry/example.com/benches/w{w}/{i}"),
                    precondition: Precondition::None,
                    mutation: Mutation::Put(value.clone()),
                };
                store.commit(vec![op]).await.expect("commit");
                done.fetch_add(1, Ordering::Relaxed);
                i += 1;
            }
        }));
    }
    for t in tasks {
        t.await.expect("writer");
    }
    let elapsed = start.elapsed().as_secs_f64();
    let rate = done.load(Ordering::Relaxed) as f64 / elapsed;
    eprintln!(
        "  {writers} writers: cpu {:.0}% of one core, {:.1} us cpu per commit",
        100.0 * (cpu_seconds() - cpu0) / elapsed,
        1e6 * (cpu_seconds() - cpu0) / done.load(Ordering::Relaxed) as f64
    );
    store.close().await;
    rate
}

/// Raw sled inserts per second, flushed once per batch of 64.
fn raw_sled(dir: &std::path::Path) -> f64 {
    let db = sled::Config::new().path(dir).mode(sled::Mode::HighThroughput).open().expect("open sled");
    let value = value();
    let deadline = Instant::now() + seconds();
    let start = Instant::now();
    let cpu0 = cpu_seconds();
    let mut n = 0usize;
    while Instant::now() < deadline {
        for _ in 0..64 {
            db.insert(format!("/raw/{n}").as_bytes(), value.as_slice()).expect("insert");
            n += 1;
        }
        db.flush().expect("flush");
    }
    let elapsed = start.elapsed().as_secs_f64();
    eprintln!(
        "  raw: cpu {:.0}% of one core, {:.1} us cpu per insert",
        100.0 * (cpu_seconds() - cpu0) / elapsed,
        1e6 * (cpu_seconds() - cpu0) / n as f64
    );
    n as f64 / elapsed
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.iter().any(|a| a == "--list") {
        println!("storage: bench");
        return;
    }
    let tmp = tempfile::tempdir().expect("tempdir");
    if let Ok(only) = std::env::var("CRDSTORE_BENCH_ONLY") {
        let writers: usize = only.parse().expect("CRDSTORE_BENCH_ONLY is a writer count");
        let rate = engine_commits(writers, &tmp.path().join("only")).await;
        println!("durable commits/s, {writers} writers: {rate:>10.0}");
        return;
    }
    let one = engine_commits(1, &tmp.path().join("one")).await;
    let many = engine_commits(64, &tmp.path().join("many")).await;
    let raw = raw_sled(&tmp.path().join("raw"));
    println!("durable commits/s, 1 writer:            {one:>10.0}");
    println!("durable commits/s, 64 writers:          {many:>10.0}");
    println!("raw sled inserts/s, flush per 64:       {raw:>10.0}");
    println!("ratio 64 writers / raw sled:            {:>10.2} (target >= 0.50)", many / raw);
}
