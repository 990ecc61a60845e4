//! `cargo bench --bench storage`: prints durable commit throughput of the
//! storage engine at 1 and 64 concurrent writers next to raw sled inserts
//! flushed once per batch of 64 on the same disk, and their ratio.
//!
//! Figures are printed, not asserted: CI machines vary. Set
//! `CRDSTORE_BENCH_SECONDS` to change how long each figure is measured
//! (default 3).
//!
//! `cargo bench --bench storage -- --scale 1000000` instead stores that many
//! 1 KB objects and prints the resident memory per object beyond its bytes,
//! while writing and after a restart (measured in a fresh process that
//! opens the same directory), and how long the restart took until a read
//! was served.

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

/// This process's resident set, in bytes.
fn rss_bytes() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).expect("VmRSS");
    line.split_whitespace().nth(1).and_then(|kb| kb.parse::<u64>().ok()).expect("VmRSS in kB") * 1024
}

fn scale_key(i: usize) -> String {
    format!("/registry/example.com/benches/ns{}/object-{i:08}", i % 64)
}

/// What `n` stored objects hold beyond their bytes, per object.
fn overhead_per_object(rss: u64, base: u64, n: usize) -> f64 {
    let bytes = (value().len() + scale_key(0).len()) as f64;
    (rss.saturating_sub(base)) as f64 / n as f64 - bytes
}

/// `--scale n [--keep dir]`: stores `n` objects (64 writers, 16 objects per
/// commit), reports memory while open, then restarts in a fresh process.
/// With `--keep`, the store is built in `dir` and left there, for `--reopen
/// dir n` to restart again (under a profiler, say) without loading it anew.
async fn scale(n: usize, keep: Option<&str>) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = keep.map_or_else(|| tmp.path().join("scale"), std::path::PathBuf::from);
    let base = rss_bytes();
    let (store, background) = SledStore::open(&dir, SledOptions::default()).expect("open store");
    tokio::spawn(background.run());
    let store = Arc::new(store);
    let start = Instant::now();
    let next = Arc::new(AtomicUsize::new(0));
    let tasks: Vec<_> = (0..64)
        .map(|_| {
            let (store, next) = (store.clone(), next.clone());
            tokio::spawn(async move {
                let value = value();
                loop {
                    let first = next.fetch_add(16, Ordering::Relaxed);
                    if first >= n {
                        return;
                    }
                    let ops = (first..(first + 16).min(n))
                        .map(|i| Op {
                            key: scale_key(i),
                            precondition: Precondition::None,
                            mutation: Mutation::Put(value.clone()),
                        })
                        .collect();
                    store.commit(ops).await.expect("commit");
                }
            })
        })
        .collect();
    for t in tasks {
        t.await.expect("writer");
    }
    let written = start.elapsed();
    let rss = rss_bytes();
    println!("stored {n} objects of {} bytes in {:.1} s", value().len(), written.as_secs_f64());
    println!(
        "  while open:    RSS {:>6.0} MB, {:>6.0} bytes per object beyond its bytes (target <= 1024)",
        rss as f64 / 1e6,
        overhead_per_object(rss, base, n)
    );
    store.close().await;
    drop(store);
    let out = std::process::Command::new(std::env::current_exe().expect("this bench"))
        .args(["--reopen", dir.to_str().expect("a UTF-8 path"), &n.to_string()])
        .output()
        .expect("reopen in a fresh process");
    print!("{}", String::from_utf8_lossy(&out.stdout));
    eprint!("{}", String::from_utf8_lossy(&out.stderr));
}

/// `--reopen dir n`: opens a store of `n` objects as a restart does and
/// reports the time until a read is served and the memory it then holds.
async fn reopen(dir: &std::path::Path, n: usize) {
    let base = rss_bytes();
    let (start, cpu) = (Instant::now(), cpu_seconds());
    let (store, _background) = SledStore::open(dir, SledOptions::default()).expect("reopen store");
    let found = store.get(&scale_key(n - 1)).is_some();
    let took = start.elapsed();
    assert!(found, "the last object is served after the restart");
    let rss = rss_bytes();
    println!(
        "  restart:       {:>6.2} s until a read is served (target <= 5 s), {:.2} s of CPU",
        took.as_secs_f64(),
        cpu_seconds() - cpu
    );
    println!(
        "  after restart: RSS {:>6.0} MB, {:>6.0} bytes per object beyond its bytes (target <= 1024)",
        rss as f64 / 1e6,
        overhead_per_object(rss, base, n)
    );
    store.close().await;
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.iter().any(|a| a == "--list") {
        println!("storage: bench");
        return;
    }
    let arg = |name: &str| args.iter().position(|a| a == name).map(|i| &args[i + 1..]);
    if let Some(rest) = arg("--reopen") {
        reopen(std::path::Path::new(&rest[0]), rest[1].parse().expect("an object count")).await;
        return;
    }
    if let Some(rest) = arg("--scale") {
        let n = rest.first().and_then(|n| n.parse().ok()).expect("--scale takes an object count");
        scale(n, arg("--keep").and_then(|rest| rest.first()).map(String::as_str)).await;
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
