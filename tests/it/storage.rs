//! The storage contract, written once over the `Backend` trait and run
//! against every backend that `backends!` lists at the end (today sled): a
//! second backend joins by implementing `Backend` and adding its line.

use std::sync::Arc;

use futures::StreamExt;
use std::time::Duration;

use crdstore::storage::sled::{SledOptions, SledStore};
use crdstore::storage::HistoryWindow;
use crdstore::storage::{Event, Mutation, Op, Precondition, ReadAt, Revision, Storage, StorageError, WatchMessage};

/// What the contract asks of a backend's set-up, which each backend maps
/// to its own options: the history kept, how often compaction runs, and
/// how far a watcher may fall behind before it catches up from history
/// (`None`: the backend's default).
#[derive(Clone)]
struct Settings {
    window: HistoryWindow,
    compaction_interval: Duration,
    watch_buffer: Option<usize>,
}

/// A backend the contract runs against: opened on fresh data, and reopened
/// on the same data after its store is closed.
trait Backend: Sized + Send + 'static {
    fn open(settings: &Settings) -> (Arc<dyn Storage>, Self);
    async fn reopen(self, settings: &Settings) -> (Arc<dyn Storage>, Self);
}

/// Embedded sled, in a temporary directory.
struct Sled {
    dir: tempfile::TempDir,
}

impl Sled {
    fn start(dir: tempfile::TempDir, settings: &Settings) -> (Arc<dyn Storage>, Self) {
        let mut options = SledOptions {
            window: settings.window,
            compaction_interval: settings.compaction_interval,
            ..Default::default()
        };
        if let Some(watch_buffer) = settings.watch_buffer {
            options.watch_buffer = watch_buffer;
        }
        let (store, background) = SledStore::open(dir.path(), options).unwrap();
        tokio::spawn(background.run());
        (Arc::new(store), Self { dir })
    }
}

impl Backend for Sled {
    fn open(settings: &Settings) -> (Arc<dyn Storage>, Self) {
        Self::start(tempfile::tempdir().unwrap(), settings)
    }

    async fn reopen(self, settings: &Settings) -> (Arc<dyn Storage>, Self) {
        Self::start(self.dir, settings)
    }
}

/// A backend's store under test, with what reopens it.
struct Opened<B> {
    store: Arc<dyn Storage>,
    backend: B,
    settings: Settings,
}

impl<B: Backend> Opened<B> {
    fn open(window: HistoryWindow) -> Self {
        Self::open_with(Settings { window, compaction_interval: Duration::from_secs(3600), watch_buffer: None })
    }

    fn open_with(settings: Settings) -> Self {
        let (store, backend) = B::open(&settings);
        Self { store, backend, settings }
    }

    async fn reopen(self) -> Self {
        self.store.close().await;
        drop(self.store);
        let (store, backend) = self.backend.reopen(&self.settings).await;
        Self { store, backend, settings: self.settings }
    }
}

fn tiny_window() -> HistoryWindow {
    HistoryWindow { min_age: Duration::ZERO, min_revisions: 2 }
}

/// A revision by number.
fn rev(number: i64) -> Revision {
    Revision::new(number)
}

fn put(key: &str, value: &str) -> Op {
    Op { key: key.into(), precondition: Precondition::None, mutation: Mutation::Put(value.as_bytes().to_vec()) }
}

fn all(_: &crdstore::storage::KeyValue) -> bool {
    true
}

fn keys_of(range: &crdstore::storage::Range) -> Vec<String> {
    range.items.iter().map(|kv| format!("{}={}", kv.key, String::from_utf8_lossy(&kv.value))).collect()
}

async fn revisions_grow_and_preconditions_guard_writes<B: Backend>() {
    let b = Opened::<B>::open(HistoryWindow::default());
    let s = &b.store;
    let c1 = s.commit(vec![Op::create("/a", b"1".to_vec())]).await.unwrap();
    assert_eq!((c1.revision, c1.changed), (rev(1), true));
    let err = s.commit(vec![Op::create("/a", b"2".to_vec())]).await.unwrap_err();
    assert!(matches!(err, StorageError::PreconditionFailed { index: 0, current: Some(_) }));
    let stale = s.commit(vec![Op::update("/a", rev(0), b"2".to_vec())]).await.unwrap_err();
    assert!(matches!(stale, StorageError::PreconditionFailed { .. }));
    let c2 = s.commit(vec![Op::update("/a", rev(1), b"2".to_vec())]).await.unwrap();
    assert_eq!(c2.revision, 2);
    let kv = s.get("/a").unwrap();
    assert_eq!((kv.create_revision, kv.mod_revision, &*kv.value), (rev(1), rev(2), &b"2"[..]));
    assert_eq!(s.current_revision(), 2);
}

async fn an_identical_write_consumes_no_revision<B: Backend>() {
    let b = Opened::<B>::open(HistoryWindow::default());
    let s = &b.store;
    s.commit(vec![put("/a", "x")]).await.unwrap();
    let again = s.commit(vec![Op::update("/a", rev(1), b"x".to_vec())]).await.unwrap();
    assert!(!again.changed);
    assert_eq!(again.revision, 1);
    assert_eq!(s.get("/a").unwrap().mod_revision, 1);
    assert_eq!(s.current_revision(), 1);
}

async fn a_failed_operation_applies_nothing_of_its_commit<B: Backend>() {
    let b = Opened::<B>::open(HistoryWindow::default());
    let s = &b.store;
    s.commit(vec![put("/b", "1")]).await.unwrap();
    let err = s.commit(vec![put("/a", "1"), Op::create("/b", b"2".to_vec())]).await.unwrap_err();
    assert!(matches!(err, StorageError::PreconditionFailed { index: 1, .. }));
    assert!(s.get("/a").is_none());
    assert_eq!(s.current_revision(), 1);
    let both = s.commit(vec![put("/a", "1"), Op::delete("/b", rev(1))]).await.unwrap();
    assert_eq!(both.revision, 2, "one revision for the whole commit");
    assert_eq!(s.get("/a").unwrap().mod_revision, 2);
}

async fn concurrent_commits_each_get_a_distinct_revision<B: Backend>() {
    let b = Opened::<B>::open(HistoryWindow::default());
    let mut tasks = Vec::new();
    for i in 0..200 {
        let s = b.store.clone();
        tasks
            .push(tokio::spawn(async move { s.commit(vec![put(&format!("/k/{i:03}"), "v")]).await.unwrap().revision }));
    }
    let mut revisions = Vec::new();
    for t in tasks {
        revisions.push(t.await.unwrap());
    }
    revisions.sort();
    assert_eq!(revisions, (1..=200).map(rev).collect::<Vec<_>>());
}

async fn ranges_read_one_revision_and_page<B: Backend>() {
    let b = Opened::<B>::open(HistoryWindow::default());
    let s = &b.store;
    for k in ["/p/a", "/p/b", "/p/c", "/q/a"] {
        s.commit(vec![put(k, "1")]).await.unwrap();
    }
    let first = s.range("/p/", None, ReadAt::Latest, 2, &mut all).unwrap();
    assert_eq!(keys_of(&first), ["/p/a=1", "/p/b=1"]);
    assert!(first.more);
    assert_eq!(first.revision, 4);
    // Changes after the first page do not leak into the next one.
    s.commit(vec![put("/p/c", "2"), put("/p/d", "2"), Op::delete("/p/b", rev(2))]).await.unwrap();
    let next = s.range("/p/", Some("/p/b"), ReadAt::Revision(first.revision), 2, &mut all).unwrap();
    assert_eq!(keys_of(&next), ["/p/c=1"]);
    assert!(!next.more);
    let whole_old = s.range("/p/", None, ReadAt::Revision(rev(4)), 0, &mut all).unwrap();
    assert_eq!(keys_of(&whole_old), ["/p/a=1", "/p/b=1", "/p/c=1"]);
    let latest = s.range("/p/", None, ReadAt::Latest, 0, &mut all).unwrap();
    assert_eq!(keys_of(&latest), ["/p/a=1", "/p/c=2", "/p/d=2"]);
    let filtered = s.range("/p/", None, ReadAt::Latest, 1, &mut |kv| &*kv.value == b"2").unwrap();
    assert_eq!((keys_of(&filtered), filtered.more), (vec!["/p/c=2".to_string()], true));
    assert_eq!(
        s.range("/p/", None, ReadAt::Revision(rev(99)), 0, &mut all),
        Err(StorageError::FutureRevision { requested: rev(99), current: rev(5) })
    );
}

async fn next_revisions(rx: &mut crdstore::storage::WatchReceiver, n: usize) -> Vec<i64> {
    let mut out = Vec::new();
    while out.len() < n {
        if let Some(batch) = next_batch(rx).await {
            out.extend(batch.iter().map(|e| e.revision().get()));
        }
    }
    out
}

/// The next event batch, or `None` for a progress note.
async fn next_batch(rx: &mut crdstore::storage::WatchReceiver) -> Option<crdstore::storage::EventBatch> {
    match tokio::time::timeout(Duration::from_secs(5), rx.next()).await.unwrap().unwrap().unwrap() {
        WatchMessage::Events(batch) => Some(batch),
        WatchMessage::Progress(_) => None,
    }
}

async fn watch_replays_history_then_goes_live_without_gaps_or_duplicates<B: Backend>() {
    let b = Opened::<B>::open(HistoryWindow::default());
    let s = &b.store;
    for i in 0..5 {
        s.commit(vec![put(&format!("/w/{i}"), "1")]).await.unwrap();
        s.commit(vec![put("/other", &i.to_string())]).await.unwrap();
    }
    let mut rx = s.watch("/w/", rev(2)).unwrap();
    let writer = {
        let s = s.clone();
        tokio::spawn(async move {
            for i in 5..10 {
                s.commit(vec![put(&format!("/w/{i}"), "1")]).await.unwrap();
            }
        })
    };
    let seen = next_revisions(&mut rx, 9).await;
    writer.await.unwrap();
    assert_eq!(seen, vec![3, 5, 7, 9, 11, 12, 13, 14, 15]);
    s.commit(vec![Op::delete("/w/0", rev(1))]).await.unwrap();
    let batch = loop {
        if let Some(batch) = next_batch(&mut rx).await {
            break batch;
        }
    };
    match &batch[0] {
        Event::Delete { previous, revision } => {
            assert_eq!((&*previous.key, *revision), ("/w/0", rev(16)))
        }
        other => panic!("expected a delete, got {other:?}"),
    }
}

async fn history_outside_the_window_is_compacted_and_reported<B: Backend>() {
    let b = Opened::<B>::open(tiny_window());
    let s = &b.store;
    for i in 0..10 {
        s.commit(vec![put("/c", &i.to_string())]).await.unwrap();
    }
    assert_eq!(s.compact().await.unwrap(), 8);
    assert_eq!(s.compacted_revision(), 8);
    assert!(
        matches!(s.watch("/", rev(7)), Err(StorageError::Compacted { requested, compacted }) if requested == 7 && compacted == 8)
    );
    assert!(matches!(s.range("/", None, ReadAt::Revision(rev(7)), 0, &mut all), Err(StorageError::Compacted { .. })));
    let mut rx = s.watch("/", rev(8)).unwrap();
    assert_eq!(next_revisions(&mut rx, 2).await, vec![9, 10]);
    drop(rx);
    // The window survives a restart.
    let b = b.reopen().await;
    assert_eq!(b.store.compacted_revision(), 8);
    assert!(matches!(b.store.watch("/", rev(5)), Err(StorageError::Compacted { .. })));
}

async fn data_revisions_and_history_survive_a_restart<B: Backend>() {
    let b = Opened::<B>::open(HistoryWindow::default());
    b.store.commit(vec![put("/r/a", "1")]).await.unwrap();
    b.store.commit(vec![put("/r/b", "1")]).await.unwrap();
    b.store.commit(vec![Op::delete("/r/a", rev(1))]).await.unwrap();
    let b = b.reopen().await;
    let s = &b.store;
    assert_eq!(s.current_revision(), 3);
    assert!(s.get("/r/a").is_none());
    assert_eq!(s.get("/r/b").unwrap().mod_revision, 2);
    let mut rx = s.watch("/r/", rev(0)).unwrap();
    assert_eq!(next_revisions(&mut rx, 3).await, vec![1, 2, 3]);
    let old = s.range("/r/", None, ReadAt::Revision(rev(1)), 0, &mut all).unwrap();
    assert_eq!(keys_of(&old), ["/r/a=1"]);
    let c = s.commit(vec![put("/r/c", "1")]).await.unwrap();
    assert_eq!(c.revision, 4, "revisions never go backwards across restarts");
}

/// Concurrent commits are written in groups: one insert per commit when
/// each adds one entry, one batch when one adds two. Either way, after a
/// restart every commit is there at the revision it was given, and the
/// history replays every revision once, in order.
async fn grouped_commits_survive_a_restart_whole_and_in_order<B: Backend>() {
    let b = Opened::<B>::open(HistoryWindow::default());
    let commits = (0..96).map(|i| {
        let store = b.store.clone();
        tokio::spawn(async move {
            let mut ops = vec![put(&format!("/g/{i:03}"), &i.to_string())];
            if i % 32 == 31 {
                ops.push(put(&format!("/g/{i:03}-pair"), "pair"));
            }
            (i, store.commit(ops).await.unwrap().revision.get())
        })
    });
    let mut given = Vec::new();
    for commit in commits.collect::<Vec<_>>() {
        given.push(commit.await.unwrap());
    }
    let b = b.reopen().await;
    let s = &b.store;
    assert_eq!(s.current_revision(), 96);
    for (i, revision) in &given {
        assert_eq!(s.get(&format!("/g/{i:03}")).unwrap().mod_revision, *revision, "/g/{i:03}");
        if i % 32 == 31 {
            assert_eq!(s.get(&format!("/g/{i:03}-pair")).unwrap().mod_revision, *revision, "/g/{i:03}-pair");
        }
    }
    let mut rx = s.watch("/g/", rev(0)).unwrap();
    let mut replayed = next_revisions(&mut rx, 99).await;
    replayed.dedup();
    assert_eq!(replayed, (1..=96).collect::<Vec<_>>());
}

async fn writes_after_close_are_refused<B: Backend>() {
    let b = Opened::<B>::open(HistoryWindow::default());
    b.store.close().await;
    let err = b.store.commit(vec![put("/x", "1")]).await.unwrap_err();
    assert!(matches!(err, StorageError::Unavailable(_)));
}

async fn current_values_outlive_compaction_and_restart<B: Backend>() {
    let b = Opened::<B>::open(tiny_window());
    let s = &b.store;
    s.commit(vec![put("/keep", "old-but-current")]).await.unwrap();
    s.commit(vec![put("/gone", "1")]).await.unwrap();
    for i in 0..10 {
        s.commit(vec![put("/churn", &i.to_string())]).await.unwrap();
    }
    assert_eq!(s.compact().await.unwrap(), 10);
    // Superseding and deleting values kept below the compacted revision.
    s.commit(vec![Op::delete("/gone", rev(2))]).await.unwrap();
    s.commit(vec![put("/keep", "new")]).await.unwrap();
    s.commit(vec![put("/keep", "newer")]).await.unwrap();
    for i in 0..5 {
        s.commit(vec![put("/churn", &format!("x{i}"))]).await.unwrap();
    }
    s.compact().await.unwrap();
    let b = b.reopen().await;
    let s = &b.store;
    assert_eq!(&*s.get("/keep").unwrap().value, b"newer");
    assert!(s.get("/gone").is_none(), "a deleted key must not come back");
    assert_eq!(&*s.get("/churn").unwrap().value, b"x4");
    let all_keys = s.range("/", None, ReadAt::Latest, 0, &mut all).unwrap();
    assert_eq!(all_keys.items.len(), 2);
    assert_eq!(s.current_revision(), 20);
    // And once more after another compaction and restart.
    s.compact().await.unwrap();
    let b = b.reopen().await;
    assert!(b.store.get("/gone").is_none());
    assert_eq!(&*b.store.get("/keep").unwrap().value, b"newer");
}

async fn an_idle_watch_is_told_its_progress<B: Backend>() {
    let b = Opened::<B>::open(HistoryWindow::default());
    let s = &b.store;
    let mut rx = s.watch("/mine/", rev(0)).unwrap();
    s.commit(vec![put("/other/a", "1")]).await.unwrap();
    s.commit(vec![put("/other/b", "1")]).await.unwrap();
    let reached = loop {
        match tokio::time::timeout(Duration::from_secs(5), rx.next()).await.unwrap().unwrap().unwrap() {
            WatchMessage::Progress(rev) if rev == 2 => break rev,
            WatchMessage::Progress(_) => continue,
            WatchMessage::Events(batch) => panic!("no event under /mine/ was written: {batch:?}"),
        }
    };
    assert_eq!(reached, 2);
}

async fn a_check_ties_a_commit_to_another_keys_revision<B: Backend>() {
    let b = Opened::<B>::open(HistoryWindow::default());
    let s = &b.store;
    s.commit(vec![put("/def", "v1")]).await.unwrap();
    let ok = s.commit(vec![Op::check("/def", rev(1)), put("/obj/a", "1")]).await.unwrap();
    assert_eq!(ok.revision, 2);
    assert_eq!(s.get("/def").unwrap().mod_revision, 1, "a check writes nothing");
    s.commit(vec![put("/def", "v2")]).await.unwrap();
    let err = s.commit(vec![Op::check("/def", rev(1)), put("/obj/b", "1")]).await.unwrap_err();
    assert!(matches!(err, StorageError::PreconditionFailed { index: 0, .. }));
    assert!(s.get("/obj/b").is_none());
}

/// A watcher that falls behind holds no more than its buffer and never
/// holds up writers or other watchers; it catches up from the log instead
/// of being cut off, so it still sees every revision, once, in order.
async fn a_watcher_that_falls_behind_catches_up_from_the_log_without_stalling_writers<B: Backend>() {
    // A small buffer (32 KiB: some hundreds of these events) so the stalled
    // watcher is cut off more than once.
    let watch_buffer = 32 << 10;
    let b = Opened::<B>::open_with(Settings {
        window: HistoryWindow::default(),
        compaction_interval: Duration::from_secs(3600),
        watch_buffer: Some(watch_buffer),
    });
    let s = &b.store;
    let mut stalled = s.watch("/slow/", rev(0)).unwrap();
    let mut healthy = s.watch("/slow/", rev(0)).unwrap();
    let total = 3000;
    let writers = (0..8).map(|w| {
        let s = s.clone();
        tokio::spawn(async move {
            for i in (w..total).step_by(8) {
                s.commit(vec![put(&format!("/slow/{i}"), "x")]).await.unwrap();
            }
        })
    });
    let done = tokio::time::timeout(Duration::from_secs(60), async {
        // The healthy watcher keeps up while the writers run.
        let reader = async {
            let mut seen = 0;
            while seen < total {
                if let Some(batch) = next_batch(&mut healthy).await {
                    seen += batch.len();
                }
            }
        };
        let writing = futures::future::join_all(writers);
        tokio::join!(reader, writing)
    })
    .await;
    assert!(done.is_ok(), "writers and the healthy watcher were not held up by the stalled one");
    let mut revisions = Vec::new();
    while revisions.len() < total {
        match tokio::time::timeout(Duration::from_secs(10), stalled.next()).await.unwrap() {
            Some(Ok(WatchMessage::Events(batch))) => revisions.extend(batch.iter().map(|e| e.revision().get())),
            Some(Ok(WatchMessage::Progress(_))) => {}
            other => panic!("the stalled watcher ended after {} events: {other:?}", revisions.len()),
        }
    }
    assert_eq!(revisions, (1..=total as i64).collect::<Vec<_>>(), "every revision once, in order");
    assert_eq!(s.get("/slow/0").map(|kv| kv.mod_revision.get() > 0), Some(true), "the store still serves");
}

/// Every revision the store hands out (a range's, a commit's answer) is safe
/// to watch from at once: the watch then delivers exactly the revisions after
/// it, however the commits were grouped and published.
async fn every_revision_handed_out_is_safe_to_watch_from_under_concurrent_writes<B: Backend>() {
    let b = Opened::<B>::open(HistoryWindow::default());
    let s = &b.store;
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writers: Vec<_> = (0..16)
        .map(|w| {
            let (s, stop) = (s.clone(), stop.clone());
            tokio::spawn(async move {
                let mut n = 0u64;
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    n += 1;
                    let answer = s.commit(vec![put(&format!("/w/{w}"), &n.to_string())]).await.unwrap();
                    if n.is_multiple_of(4) {
                        // A write's answer: watch from it at once.
                        let mut rx = s.watch("/w/", answer.revision).unwrap();
                        let next = next_revisions(&mut rx, 1).await[0];
                        assert_eq!(next, answer.revision.get() + 1, "watch from a write's answer {}", answer.revision);
                    }
                }
            })
        })
        .collect();
    let mut misses = Vec::new();
    for _ in 0..300 {
        let at = s.range("/w/", None, ReadAt::Latest, 0, &mut all).unwrap().revision.get();
        let mut rx = s.watch("/w/", rev(at)).unwrap();
        let seen = next_revisions(&mut rx, 4).await;
        if seen[..4] != [at + 1, at + 2, at + 3, at + 4] {
            misses.push((at, seen));
        }
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    // Writes go on until every writer is done, so that a writer's last watch
    // has a next revision to see.
    let tail = async {
        for n in 0.. {
            s.commit(vec![put("/w/tail", &n.to_string())]).await.unwrap();
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    };
    tokio::select! {
        done = futures::future::join_all(writers) => done.into_iter().for_each(|w| w.unwrap()),
        () = tail => {}
    }
    assert!(misses.is_empty(), "{} of 300 watches from a range's revision missed some: {misses:?}", misses.len());
}

/// Every contract test, as a `#[tokio::test]` over `$backend`.
macro_rules! contract {
    ($backend:ty) => {
        #[tokio::test]
        async fn revisions_grow_and_preconditions_guard_writes() {
            super::revisions_grow_and_preconditions_guard_writes::<$backend>().await
        }
        #[tokio::test]
        async fn an_identical_write_consumes_no_revision() {
            super::an_identical_write_consumes_no_revision::<$backend>().await
        }
        #[tokio::test]
        async fn a_failed_operation_applies_nothing_of_its_commit() {
            super::a_failed_operation_applies_nothing_of_its_commit::<$backend>().await
        }
        #[tokio::test]
        async fn concurrent_commits_each_get_a_distinct_revision() {
            super::concurrent_commits_each_get_a_distinct_revision::<$backend>().await
        }
        #[tokio::test]
        async fn ranges_read_one_revision_and_page() {
            super::ranges_read_one_revision_and_page::<$backend>().await
        }
        #[tokio::test]
        async fn watch_replays_history_then_goes_live_without_gaps_or_duplicates() {
            super::watch_replays_history_then_goes_live_without_gaps_or_duplicates::<$backend>().await
        }
        #[tokio::test]
        async fn history_outside_the_window_is_compacted_and_reported() {
            super::history_outside_the_window_is_compacted_and_reported::<$backend>().await
        }
        #[tokio::test]
        async fn data_revisions_and_history_survive_a_restart() {
            super::data_revisions_and_history_survive_a_restart::<$backend>().await
        }
        #[tokio::test]
        async fn writes_after_close_are_refused() {
            super::writes_after_close_are_refused::<$backend>().await
        }
        #[tokio::test]
        async fn current_values_outlive_compaction_and_restart() {
            super::current_values_outlive_compaction_and_restart::<$backend>().await
        }
        #[tokio::test]
        async fn an_idle_watch_is_told_its_progress() {
            super::an_idle_watch_is_told_its_progress::<$backend>().await
        }
        #[tokio::test]
        async fn a_check_ties_a_commit_to_another_keys_revision() {
            super::a_check_ties_a_commit_to_another_keys_revision::<$backend>().await
        }
        #[tokio::test]
        async fn a_watcher_that_falls_behind_catches_up_from_the_log_without_stalling_writers() {
            super::a_watcher_that_falls_behind_catches_up_from_the_log_without_stalling_writers::<$backend>().await
        }
        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn grouped_commits_survive_a_restart_whole_and_in_order() {
            super::grouped_commits_survive_a_restart_whole_and_in_order::<$backend>().await
        }
        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn every_revision_handed_out_is_safe_to_watch_from_under_concurrent_writes() {
            super::every_revision_handed_out_is_safe_to_watch_from_under_concurrent_writes::<$backend>().await
        }
    };
}

/// One module of contract tests per backend.
macro_rules! backends {
    ($($name:ident => $backend:ident),+ $(,)?) => {
        $(mod $name {
            contract!(super::$backend);
        })+
    };
}

backends! {
    sled => Sled,
}
