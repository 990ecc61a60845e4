//! Watch streams in Kubernetes terms, over a storage watch: initial ADDED
//! events, the initial-events-end bookmark, ADDED/MODIFIED/DELETED as the
//! watch's selectors see each change (an object that stops matching is
//! DELETED, one that starts matching is ADDED), bookmarks at a revision
//! safe to resume from (one after every interval without an event, so that
//! a proxy's idle timeout never cuts the watch), and a server-side timeout.

use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use serde_json::Value;

use super::convert::Via;
pub use super::render::{EventType, Object, Rendered, WatchEvent, WatchStream};
use crate::apimachinery::options::WatchOptions;
use crate::error::{Error, Result};
use crate::storage::{Event, KeyValue, Range, ReadAt, Revision, Storage, StorageError, WatchMessage, WatchReceiver};

/// Turns a stored key-value into the object a client sees (with its
/// resourceVersion set).
pub type Decode = Arc<dyn Fn(&KeyValue) -> Result<Object> + Send + Sync>;
/// Whether an object passes the watch's selectors.
pub type Matches = Arc<dyn Fn(&Value) -> bool + Send + Sync>;
/// Builds the bookmark object for a revision (true: initial-events end).
pub type Bookmark = Arc<dyn Fn(Revision, bool) -> Value + Send + Sync>;

/// Server-wide watch settings.
#[derive(Debug, Clone, Copy)]
pub struct WatchDefaults {
    /// How often a watch that asked for bookmarks gets one.
    pub bookmark_interval: Duration,
    /// A watch without its own timeout ends after between this and twice
    /// this (randomised, as Kubernetes spreads re-lists).
    pub min_timeout: Duration,
}

/// The default `WatchDefaults::bookmark_interval`: below proxies' idle
/// timeouts (nginx's read timeouts, 60 s; Debian's HAProxy's, 50 s).
pub const DEFAULT_BOOKMARK_INTERVAL: Duration = Duration::from_secs(30);

impl Default for WatchDefaults {
    fn default() -> Self {
        Self { bookmark_interval: DEFAULT_BOOKMARK_INTERVAL, min_timeout: Duration::from_secs(30 * 60) }
    }
}

impl WatchDefaults {
    /// A randomised default timeout.
    pub fn timeout(&self) -> Duration {
        let extra = rand::random::<f64>() * self.min_timeout.as_secs_f64();
        self.min_timeout + Duration::from_secs_f64(extra)
    }
}

/// What to watch and how to present it.
pub struct WatchSpec {
    pub prefix: String,
    pub options: WatchOptions,
    pub decode: Decode,
    /// `None`: everything matches (no selectors).
    pub matches: Option<Matches>,
    pub bookmark: Bookmark,
    pub bookmark_interval: Duration,
    pub default_timeout: Duration,
    /// Becomes true when the server shuts down: the watch ends cleanly.
    pub stopped: tokio::sync::watch::Receiver<bool>,
    /// When given, the watch ends cleanly once this resolves (the resource's
    /// definition changed, say).
    pub ends: Option<std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>>>,
}

/// How many objects the initial events of a watch read at a time at most.
const INITIAL_PAGE: usize = 500;
/// And how many bytes of stored objects, about: a page is sized by the
/// largest object seen so far and cut back to this once read, so what an
/// unread watch holds of its initial list is a constant, not the list.
pub const INITIAL_PAGE_BYTES: usize = 4 << 20;

/// How many objects the next page of initial events reads, the largest
/// object so far being `largest` bytes.
fn page_limit(largest: usize) -> usize {
    (INITIAL_PAGE_BYTES / largest.max(1)).clamp(1, INITIAL_PAGE)
}

/// A page of initial events cut back to `INITIAL_PAGE_BYTES` (at least one
/// object: one over it is delivered alone).
fn within_budget(mut page: Range) -> Range {
    let (mut bytes, mut keep) = (0, 0);
    for kv in &page.items {
        let size = kv.key.len() + kv.value.len();
        if keep > 0 && bytes + size > INITIAL_PAGE_BYTES {
            break;
        }
        (bytes, keep) = (bytes + size, keep + 1);
    }
    if keep < page.items.len() {
        page.items.truncate(keep);
        page.more = true;
    }
    page
}

fn expired(err: StorageError) -> Error {
    err.into()
}

/// Starts a watch. A resourceVersion older than the history window fails at
/// once with `Expired`.
pub async fn start(store: Arc<dyn Storage>, spec: WatchSpec) -> Result<WatchStream> {
    start_at(store, spec, None).await
}

/// `start`, with every object (each event's old and new state) converted
/// through `via` before the selectors see it, so they select at the watched
/// version, as Kubernetes' watch cache of that version does. Watchers share
/// each conversion (`Via`'s cache): an event converts once, not once per
/// watcher.
pub async fn start_converted(store: Arc<dyn Storage>, spec: WatchSpec, via: Via) -> Result<WatchStream> {
    start_at(store, spec, Some(via)).await
}

/// What a watch's events are made with: shared, so the stream holds them
/// across its awaits.
struct Lens {
    decode: Decode,
    matches: Option<Matches>,
    via: Option<Via>,
}

/// What a watch's streams read of its spec (shared across their awaits;
/// the spec's `ends` is not shareable).
struct Watched {
    prefix: String,
    options: WatchOptions,
    bookmark: Bookmark,
    bookmark_interval: Duration,
}

/// A stored key-value as the watch shows it: decoded, then converted when
/// the watch converts.
async fn prepare(lens: &Lens, kv: &KeyValue) -> Result<Object> {
    let object = (lens.decode)(kv)?;
    let via = lens.via.as_ref();
    match via {
        Some(via) => via.apply(&object).await,
        None => Ok(object),
    }
}

/// Starts a watch at `spec`, converting through `via` when given: its
/// starting revision, its initial events' first page when it sends them,
/// then the stream of initial events and of changes.
async fn start_at(store: Arc<dyn Storage>, mut spec: WatchSpec, via: Option<Via>) -> Result<WatchStream> {
    let (from, first_page) = starting_point(store.as_ref(), &spec.prefix, &spec.options).await?;
    let changes = store.watch(&spec.prefix, from).map_err(expired)?;
    let timeout = spec.options.timeout.unwrap_or(spec.default_timeout);
    let stopped = until_stopped(spec.stopped.clone());
    let ends = spec.ends.take().unwrap_or_else(|| Box::pin(std::future::pending()));
    let lens = Lens { decode: spec.decode.clone(), matches: spec.matches.clone(), via };
    let watched = Watched {
        prefix: spec.prefix,
        options: spec.options,
        bookmark: spec.bookmark,
        bookmark_interval: spec.bookmark_interval,
    };
    Ok(Box::pin(async_stream::stream! {
        if let Some(page) = first_page {
            let initial = initial_events(store.as_ref(), &watched, &lens, page, from);
            tokio::pin!(initial);
            while let Some(event) = initial.next().await {
                let failed = event.is_err();
                yield event;
                if failed {
                    return;
                }
            }
        }
        let live = changes_from(changes, &watched, &lens, from, timeout, stopped, ends);
        tokio::pin!(live);
        while let Some(event) = live.next().await {
            yield event;
        }
    }))
}

/// The revision a watch starts after, and the first page of its initial
/// events when it sends them (read at the latest revision, which it then
/// starts after). A revision ahead of the store is waited for.
async fn starting_point(
    store: &dyn Storage,
    prefix: &str,
    options: &WatchOptions,
) -> Result<(Revision, Option<Range>)> {
    let requested = options.resource_version.revision();
    let send_initial = match options.send_initial_events {
        Some(explicit) => explicit,
        None => requested.is_none(),
    };
    Ok(if send_initial {
        if let Some(rv) = requested {
            crate::apimachinery::list::wait_for_revision(store, rv).await?;
        }
        // One object now, the rest a page at a time as the client reads:
        // an unread watcher holds a page of the initial list, at most
        // `INITIAL_PAGE_BYTES` of it, never the whole of it.
        let range = store.range(prefix, None, ReadAt::Latest, 1, &mut |_| true).map_err(expired)?;
        (range.revision, Some(range))
    } else {
        let from = match requested {
            Some(rv) => {
                // A revision ahead of the store: wait for it, then answer
                // as Kubernetes does (504, `ResourceVersionTooLarge`).
                crate::apimachinery::list::wait_for_revision(store, rv).await?;
                rv
            }
            None => store.current_revision(),
        };
        (from, None)
    })
}

/// The initial events: ADDED for each object under the prefix at `from`
/// that the selectors pass, a page at a time from `page`, then the
/// initial-events-end bookmark when the client asked for it. Ends at the
/// first error.
fn initial_events<'a>(
    store: &'a dyn Storage,
    spec: &'a Watched,
    lens: &'a Lens,
    mut page: Range,
    from: Revision,
) -> impl futures::Stream<Item = Result<WatchEvent>> + 'a {
    async_stream::stream! {
        let mut largest = 0;
        loop {
            let more = page.more;
            let after = page.items.last().map(|last| last.key.clone());
            // Each object is let go of once delivered.
            for kv in std::mem::take(&mut page.items) {
                largest = largest.max(kv.key.len() + kv.value.len());
                match prepare(lens, &kv).await {
                    Ok(object) if lens.matches.as_ref().is_none_or(|m| m(&object.value)) => {
                        yield Ok(WatchEvent { kind: EventType::Added, object });
                    }
                    Ok(_) => {}
                    Err(err) => {
                        yield Err(err);
                        return;
                    }
                }
            }
            let Some(after) = after.filter(|_| more) else { break };
            let limit = page_limit(largest);
            page = match store.range(&spec.prefix, Some(&after), ReadAt::Revision(from), limit, &mut |_| true) {
                Ok(next) => within_budget(next),
                Err(err) => {
                    yield Err(expired(err));
                    return;
                }
            };
        }
        if spec.options.send_initial_events == Some(true) {
            yield Ok(WatchEvent { kind: EventType::Bookmark, object: Rendered::new((spec.bookmark)(from, true)) });
        }
    }
}

/// The changes after `from` as the watch's selectors see them, with the
/// bookmarks the client asked for, until the timeout, the server's stop, or
/// `ends`. Ends at the first error.
fn changes_from<'a>(
    mut changes: WatchReceiver,
    spec: &'a Watched,
    lens: &'a Lens,
    from: Revision,
    timeout: Duration,
    stopped: impl std::future::Future<Output = ()> + Send + 'a,
    ends: std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>>,
) -> impl futures::Stream<Item = Result<WatchEvent>> + 'a {
    async_stream::stream! {
        let timeout = tokio::time::sleep(timeout);
        tokio::pin!(timeout);
        tokio::pin!(stopped);
        let mut ends = ends;
        // Ticks after an interval without an event: each event resets it.
        let mut bookmarks = tokio::time::interval(spec.bookmark_interval);
        bookmarks.tick().await;
        let (mut reached, mut bookmarked) = (from, from);
        loop {
            tokio::select! {
                message = changes.next() => {
                    let sent = match message {
                        Some(Ok(WatchMessage::Events(batch))) => {
                            let mut sent = false;
                            for event in batch.iter() {
                                reached = event.revision();
                                match translate(lens, event).await {
                                    Ok(Some(out)) => {
                                        sent = true;
                                        bookmarks.reset();
                                        yield Ok(out);
                                    }
                                    Ok(None) => {}
                                    Err(err) => {
                                        yield Err(err);
                                        return;
                                    }
                                }
                            }
                            sent
                        }
                        Some(Ok(WatchMessage::Progress(revision))) => {
                            reached = reached.max(revision);
                            false
                        }
                        Some(Err(err)) => {
                            yield Err(err.into());
                            return;
                        }
                        None => return,
                    };
                    // Changes this watch does not see (filtered out, or past
                    // it: other namespaces): a client that asked for
                    // bookmarks hears how far it got, once per batch or note.
                    if !sent && spec.options.allow_bookmarks && reached > bookmarked {
                        bookmarked = reached;
                        bookmarks.reset();
                        yield Ok(bookmark(spec, reached));
                    }
                }
                // A whole interval without an event: a bookmark, advanced
                // or not, keeps the stream from looking idle.
                _ = bookmarks.tick(), if spec.options.allow_bookmarks => {
                    bookmarked = reached;
                    yield Ok(bookmark(spec, reached));
                }
                _ = &mut timeout => {
                    if spec.options.allow_bookmarks {
                        yield Ok(bookmark(spec, reached));
                    }
                    return;
                }
                _ = &mut stopped => return,
                _ = &mut ends => return,
            }
        }
    }
}

/// A bookmark at `reached`.
fn bookmark(spec: &Watched, reached: Revision) -> WatchEvent {
    WatchEvent { kind: EventType::Bookmark, object: Rendered::new((spec.bookmark)(reached, false)) }
}

/// Translates one storage event as the watch's selectors see it (the old
/// and new state each converted first when the watch converts).
async fn translate(lens: &Lens, event: &Event) -> Result<Option<WatchEvent>> {
    let matches = |obj: &Value| lens.matches.as_ref().is_none_or(|m| m(obj));
    match event {
        Event::Put { current, previous } => {
            let now = prepare(lens, current).await?;
            let was = match (previous, &lens.matches) {
                (None, _) => false,
                (Some(_), None) => true,
                (Some(prev), Some(m)) => m(&prepare(lens, prev).await?.value),
            };
            let kind = match (was, matches(&now.value)) {
                (true, true) => EventType::Modified,
                (false, true) => EventType::Added,
                (true, false) => EventType::Deleted,
                (false, false) => return Ok(None),
            };
            Ok(Some(WatchEvent { kind, object: now }))
        }
        Event::Delete { previous, revision } => {
            // Every watcher of the delete shares one rendering of it (and,
            // when the watch converts, one conversion of that).
            let last = (lens.decode)(previous)?.deleted_at(*revision);
            let last = match &lens.via {
                Some(via) => via.apply(&last).await?,
                None => last,
            };
            if !matches(&last.value) {
                return Ok(None);
            }
            Ok(Some(WatchEvent { kind: EventType::Deleted, object: last }))
        }
    }
}

/// Resolves once the server shuts down.
pub async fn until_stopped(mut stopped: tokio::sync::watch::Receiver<bool>) {
    let _ = stopped.wait_for(|s| *s).await.map(|_| ());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apimachinery::meta;
    use crate::storage::sled::{SledOptions, SledStore};
    use crate::storage::{Mutation, Op, Precondition};
    use crate::watch::render::{Format, RenderCache};
    use bytes::Bytes;

    fn put(key: &str, value: &str) -> Op {
        Op { key: key.into(), precondition: Precondition::None, mutation: Mutation::Put(value.as_bytes().to_vec()) }
    }

    /// Watchers decode through one render cache, as the resource service's do.
    fn spec(renders: &Arc<RenderCache>, stopped: &tokio::sync::watch::Receiver<bool>) -> WatchSpec {
        let (renders, version) = (renders.clone(), Arc::<str>::from("v1"));
        WatchSpec {
            prefix: "/w/".into(),
            options: WatchOptions { send_initial_events: Some(false), ..Default::default() },
            decode: Arc::new(move |kv| {
                renders.get_or_render(kv, &version, || {
                    let mut value: Value = serde_json::from_slice(&kv.value).expect("JSON");
                    meta::set_resource_version(&mut value, kv.mod_revision);
                    Ok(value)
                })
            }),
            matches: None,
            bookmark: Arc::new(|_, _| Value::Null),
            bookmark_interval: Duration::from_secs(3600),
            default_timeout: Duration::from_secs(3600),
            stopped: stopped.clone(),
            ends: None,
        }
    }

    fn kv(key: &str, bytes: usize) -> KeyValue {
        let revision = Revision::new(1);
        KeyValue { key: key.into(), value: vec![b'x'; bytes].into(), create_revision: revision, mod_revision: revision }
    }

    #[test]
    fn a_page_of_initial_events_holds_a_few_mib_whatever_its_objects() {
        let page = |sizes: &[usize]| Range {
            items: sizes.iter().enumerate().map(|(i, n)| kv(&format!("/w/{i}"), *n)).collect(),
            revision: Revision::new(1),
            more: false,
        };
        let cut = within_budget(page(&[1 << 20; 10]));
        assert_eq!((cut.items.len(), cut.more), (3, true), "three 1 MiB objects and a bit fit in 4 MiB");
        let whole = within_budget(page(&[1024; 10]));
        assert_eq!((whole.items.len(), whole.more), (10, false));
        let alone = within_budget(page(&[3 << 20, 3 << 20]));
        assert_eq!((alone.items.len(), alone.more), (1, true), "an object over the budget goes alone");
        assert_eq!(page_limit(0), INITIAL_PAGE);
        assert_eq!(page_limit(1024), INITIAL_PAGE);
        assert_eq!(page_limit(1 << 20), 4);
        assert_eq!(page_limit(3 << 20), 1);
    }

    /// A thousand watchers of an added, a modified and a deleted object get
    /// the same three renderings, and each event is framed once.
    #[tokio::test]
    async fn each_event_is_rendered_and_framed_once_for_every_watcher() {
        let dir = tempfile::tempdir().unwrap();
        let (store, _background) = SledStore::open(dir.path(), SledOptions::default()).unwrap();
        let store: Arc<dyn Storage> = Arc::new(store);
        let (_stop, stopped) = tokio::sync::watch::channel(false);
        let renders = Arc::new(RenderCache::default());
        let mut watchers = Vec::new();
        for _ in 0..1000 {
            watchers.push(start(store.clone(), spec(&renders, &stopped)).await.unwrap());
        }
        store.commit(vec![put("/w/a", r#"{"metadata":{"name":"a"}}"#)]).await.unwrap();
        store.commit(vec![put("/w/a", r#"{"metadata":{"name":"a"},"spec":1}"#)]).await.unwrap();
        store
            .commit(vec![Op { key: "/w/a".into(), precondition: Precondition::None, mutation: Mutation::Delete }])
            .await
            .unwrap();
        let encoded = std::sync::atomic::AtomicUsize::new(0);
        let mut first: Option<Vec<Bytes>> = None;
        for watcher in &mut watchers {
            let mut frames = Vec::new();
            for _ in 0..3 {
                let event = watcher.next().await.unwrap().unwrap();
                frames.push(event.object.frame(Format::JsonLine, event.kind, |o| {
                    encoded.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    Bytes::copy_from_slice(o.json())
                }));
            }
            match &first {
                None => first = Some(frames),
                Some(first) => {
                    for (a, b) in first.iter().zip(&frames) {
                        assert_eq!(a.as_ptr(), b.as_ptr(), "every watcher sends the same bytes");
                    }
                }
            }
        }
        assert_eq!(encoded.into_inner(), 3, "one frame per event, not one per watcher");
        let deleted: Value = serde_json::from_slice(&first.unwrap()[2]).unwrap();
        assert_eq!(deleted["metadata"]["resourceVersion"], "3", "a deletion shows the delete's revision");
    }
}
