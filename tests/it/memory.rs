//! Memory under hostile clients, through the real binary: watches and
//! backups that are never read each hold a constant, whatever the size of
//! the store (docs/limits.md, "What bounds memory"), `/healthz` answers in
//! time while they are open, and backups beyond `--max-backups` are refused
//! with a retry hint.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crdstore::pb::v1 as pb;
use serde_json::json;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

use crate::support::{self, Crd, Grpc, Http, Process};

const NAMESPACE: &str = "bounds";
/// The store: 200 objects of 1 MiB in one namespace (the issue's).
const OBJECTS: usize = 200;
const OBJECT_BYTES: usize = 1 << 20;
/// Unread watches over each transport, and unread backups.
const UNREAD: usize = 50;
/// What the unread watches (HTTP and gRPC together) may add to the
/// server's RSS: the cache of rendered objects (64 MiB) and 2 MiB a watch.
/// Before watches were bounded, one unread HTTP watch of this store held
/// 261 MiB.
const WATCHES_BOUND: u64 = (64 << 20) + 2 * UNREAD as u64 * (2 << 20);
/// What the unread backups may add: 4 MiB each (each held about 15 MiB
/// before).
const BACKUPS_BOUND: u64 = UNREAD as u64 * (4 << 20);
/// The longest `/healthz` may take while they are open.
const HEALTHZ_BOUND: Duration = Duration::from_millis(100);

/// Creates the Widget definition and `objects` objects of 1 MiB in
/// `NAMESPACE`, four writers at a time.
async fn fill(process: &Process, objects: usize) {
    let grpc = Grpc::at(&process.grpc_addr);
    support::create(&mut grpc.definitions().await, &Crd::new("example.com", "Widget")).await;
    let spec = json!({"data": "x".repeat(OBJECT_BYTES - 256)});
    let writers: Vec<_> = (0..4)
        .map(|writer| {
            let (addr, spec) = (process.grpc_addr.clone(), spec.clone());
            tokio::spawn(async move {
                let mut r = Grpc::at(addr).resources().await;
                for i in (writer..objects).step_by(4) {
                    let widget = support::widget(&format!("w{i:03}"), spec.clone());
                    support::create_widget(&mut r, NAMESPACE, &widget).await.unwrap();
                }
            })
        })
        .collect();
    for writer in writers {
        writer.await.unwrap();
    }
}

/// `/healthz` asked every 20 ms, and the server's RSS read each time, until
/// `stop`: on a thread and runtime of its own, so the test's own clients
/// (50 gRPC connections taking in data) do not delay its answers.
struct Probe {
    stop: Arc<AtomicBool>,
    thread: std::thread::JoinHandle<Vec<(Duration, u64)>>,
}

impl Probe {
    fn start(process: &Process) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let (http, pid, stopped) = (Http::at(&process.http_addr), process.child.id(), stop.clone());
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
            runtime.block_on(async move {
                let mut samples = Vec::new();
                while !stopped.load(Ordering::Relaxed) {
                    let started = Instant::now();
                    let response = http.request(reqwest::Method::GET, "/healthz").send().await.unwrap();
                    assert_eq!(response.status(), reqwest::StatusCode::OK);
                    samples.push((started.elapsed(), support::rss_of(pid)));
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                samples
            })
        });
        Self { stop, thread }
    }

    /// The slowest answer, the highest RSS seen, and how many probes.
    async fn finish(self) -> (Duration, u64, usize) {
        self.stop.store(true, Ordering::Relaxed);
        let samples = tokio::task::spawn_blocking(move || self.thread.join().unwrap()).await.unwrap();
        let slowest = samples.iter().map(|s| s.0).max().unwrap();
        (slowest, samples.iter().map(|s| s.1).max().unwrap(), samples.len())
    }
}

/// The number of open watches, from the server's `/metrics`.
async fn registered_watchers(http: &Http) -> u64 {
    let (_, _, body) = http.send(reqwest::Method::GET, "/metrics", None, "text/plain").await;
    String::from_utf8(body)
        .unwrap()
        .lines()
        .filter(|l| l.starts_with("apiserver_registered_watchers{"))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum::<f64>() as u64
}

async fn until_watchers(http: &Http, count: u64) {
    let deadline = Instant::now() + support::WAIT;
    while registered_watchers(http).await != count {
        assert!(Instant::now() < deadline, "{} watchers, not {count}", registered_watchers(http).await);
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A watch of the namespace's widgets over a raw socket that never reads.
async fn unread_http_watch(http_addr: &str) -> TcpStream {
    let mut socket = TcpStream::connect(http_addr).await.unwrap();
    let request =
        format!("GET /apis/example.com/v1/namespaces/{NAMESPACE}/widgets?watch=1 HTTP/1.1\r\nHost: crdstore\r\n\r\n");
    socket.write_all(request.as_bytes()).await.unwrap();
    socket
}

/// HTTP/2's default receive window, which a client that never reads never
/// opens further.
const UNREAD_WINDOW: u32 = 65_535;

/// The same over gRPC, on a connection of its own, never read.
async fn unread_grpc_watch(grpc_addr: &str) -> tonic::Streaming<pb::WatchEvent> {
    let request = pb::WatchResourcesRequest { r#ref: Some(support::widgets(NAMESPACE, "")), options: None };
    let mut resources = Grpc::at(grpc_addr).with_window(UNREAD_WINDOW).resources().await;
    resources.watch(request).await.unwrap().into_inner()
}

/// A backup on a connection of its own: its stream, never read, or why it
/// was refused.
async fn unread_backup(grpc_addr: &str) -> Result<tonic::Streaming<pb::BackupChunk>, tonic::Status> {
    let mut maintenance = Grpc::at(grpc_addr).with_window(UNREAD_WINDOW).maintenance().await;
    maintenance.backup(pb::BackupRequest {}).await.map(|r| r.into_inner())
}

fn mib(bytes: u64) -> u64 {
    bytes >> 20
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unread_watches_and_backups_of_a_large_store_hold_a_constant_each() {
    let dir = tempfile::tempdir().unwrap();
    let process = Process::spawn(dir.path(), &["--max-backups", &UNREAD.to_string()]);
    let http = Http::at(&process.http_addr);
    let started = Instant::now();
    fill(&process, OBJECTS).await;
    eprintln!("filled {OBJECTS} objects of 1 MiB in {:?}", started.elapsed());

    let before = process.rss();
    let probe = Probe::start(&process);
    let mut sockets = Vec::new();
    let mut streams = Vec::new();
    for _ in 0..UNREAD {
        sockets.push(unread_http_watch(&process.http_addr).await);
        streams.push(unread_grpc_watch(&process.grpc_addr).await);
    }
    until_watchers(&http, 2 * UNREAD as u64).await;
    // Time for every watch to fill what the kernel and the transports buffer.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let (slowest, peak, probes) = probe.finish().await;
    eprintln!(
        "{UNREAD} unread HTTP and {UNREAD} unread gRPC watches: RSS {} MiB -> peak {} MiB (+{} MiB); \
         slowest /healthz of {probes} {slowest:?}",
        mib(before),
        mib(peak),
        mib(peak.saturating_sub(before)),
    );
    assert!(peak.saturating_sub(before) < WATCHES_BOUND, "the unread watches took {} MiB", mib(peak - before));
    assert!(slowest < HEALTHZ_BOUND, "/healthz took {slowest:?} with the unread watches open");
    drop((sockets, streams));
    until_watchers(&http, 0).await;

    let before = process.rss();
    let probe = Probe::start(&process);
    let mut backups = Vec::new();
    for _ in 0..UNREAD {
        backups.push(unread_backup(&process.grpc_addr).await.expect("within --max-backups"));
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    let (slowest, peak, probes) = probe.finish().await;
    eprintln!(
        "{UNREAD} unread backups: RSS {} MiB -> peak {} MiB (+{} MiB); slowest /healthz of {probes} {slowest:?}",
        mib(before),
        mib(peak),
        mib(peak.saturating_sub(before)),
    );
    assert!(peak.saturating_sub(before) < BACKUPS_BOUND, "the unread backups took {} MiB", mib(peak - before));
    assert!(slowest < HEALTHZ_BOUND, "/healthz took {slowest:?} with the unread backups open");
}

#[tokio::test]
async fn backups_beyond_the_limit_are_refused_with_a_retry_hint_and_a_held_one_stays_consistent() {
    let dir = tempfile::tempdir().unwrap();
    let process = Process::spawn(dir.path(), &[]);
    // More than the transports buffer, so an unread backup stays running.
    fill(&process, 8).await;
    let mut held = unread_backup(&process.grpc_addr).await.expect("the first of two");
    let second = unread_backup(&process.grpc_addr).await.expect("the second of two");
    let refused = unread_backup(&process.grpc_addr).await.expect_err("a third is over --max-backups 2");
    assert_eq!(refused.code(), tonic::Code::ResourceExhausted, "{refused:?}");
    assert_eq!(support::reason(&refused), "TooManyRequests");
    assert!(refused.message().contains("too many backups"), "{}", refused.message());
    let info = tonic_types::StatusExt::get_error_details(&refused).error_info().expect("ErrorInfo").clone();
    assert_eq!(info.metadata.get("retryAfterSeconds").map(String::as_str), Some("1"));

    // A backup whose client is gone gives its slot back.
    drop(second);
    let deadline = Instant::now() + support::WAIT;
    let third = loop {
        match unread_backup(&process.grpc_addr).await {
            Ok(third) => break third,
            Err(err) => assert!(Instant::now() < deadline, "the slot of a dropped backup was never freed: {err}"),
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    drop(third);

    // The held one, read after more writes, is the store at its revision.
    let mut r = Grpc::at(&process.grpc_addr).resources().await;
    support::create_widget(&mut r, NAMESPACE, &support::widget("later", json!({}))).await.unwrap();
    let (mut bytes, mut revision) = (Vec::new(), None);
    while let Some(chunk) = held.message().await.unwrap() {
        assert!(revision.is_none_or(|r| r == chunk.revision), "every chunk names one revision");
        revision = Some(chunk.revision);
        bytes.extend_from_slice(&chunk.data);
    }
    let file = dir.path().join("held.snapshot");
    std::fs::write(&file, bytes).unwrap();
    let header = crdstore::storage::snapshot::verify(&file, &crdstore::storage::snapshot::no_progress()).unwrap();
    assert_eq!(Some(header.revision.get()), revision);
    let (_, list) =
        Http::at(&process.http_addr).get(&format!("/apis/example.com/v1/namespaces/{NAMESPACE}/widgets")).await;
    let now: i64 = list["metadata"]["resourceVersion"].as_str().unwrap().parse().unwrap();
    assert!(header.revision.get() < now, "the backup is of the store when it began, not of the later write");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backup_whose_client_takes_nothing_ends_and_frees_its_slot() {
    let dir = tempfile::tempdir().unwrap();
    let process = Process::spawn(dir.path(), &["--max-backups", "1", "--body-timeout-seconds", "1"]);
    fill(&process, 8).await;
    let mut stalled = unread_backup(&process.grpc_addr).await.expect("the one slot");
    // Its client takes nothing: within a few seconds the slot is free again.
    let deadline = Instant::now() + support::WAIT;
    let mut next = loop {
        match unread_backup(&process.grpc_addr).await {
            Ok(next) => break next,
            Err(err) => {
                assert_eq!(err.code(), tonic::Code::ResourceExhausted, "{err:?}");
                assert!(Instant::now() < deadline, "a stalled backup kept its slot");
            }
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    // What it was sent, then an error: never a short snapshot that ends well.
    let ended = loop {
        match stalled.message().await {
            Ok(Some(_)) => continue,
            Ok(None) => panic!("a stalled backup ended as if it were whole"),
            Err(err) => break err,
        }
    };
    assert_eq!(ended.code(), tonic::Code::DeadlineExceeded, "{ended:?}");
    assert!(ended.message().contains("took nothing for 1s"), "{}", ended.message());
    // A client that reads gets the whole snapshot.
    let mut bytes = Vec::new();
    while let Some(chunk) = next.message().await.unwrap() {
        bytes.extend_from_slice(&chunk.data);
    }
    let file = dir.path().join("whole.snapshot");
    std::fs::write(&file, bytes).unwrap();
    crdstore::storage::snapshot::verify(&file, &crdstore::storage::snapshot::no_progress()).unwrap();
}
