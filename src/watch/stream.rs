//! Watch streams in Kubernetes terms, over a storage watch: initial ADDED
//! events, the initial-events-end bookmark, ADDED/MODIFIED/DELETED as the
//! watch's selectors see each change (an object that stops matching is
//! DELETED, one that starts matching is ADDED), periodic bookmarks at a
//! revision that is safe to resume from, and a server-side timeout.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::sync::mpsc;

use crate::error::{Error, Result};
use crate::resource::meta;
use crate::resource::options::WatchOptions;
use crate::storage::{Event, KeyValue, ReadAt, Revision, Storage, StorageError, WatchMessage};

/// Events buffered between a watch task and its transport.
const OUT_BUFFER: usize = 64;

/// The kind of a watch event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventType {
    Added,
    Modified,
    Deleted,
    Bookmark,
}

/// One event for a client.
#[derive(Debug, Clone, PartialEq)]
pub struct WatchEvent {
    pub kind: EventType,
    pub object: Value,
}

/// Turns a stored key-value into the object a client sees (with its
/// resourceVersion set).
pub type Decode = Arc<dyn Fn(&KeyValue) -> Result<Value> + Send + Sync>;
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

impl Default for WatchDefaults {
    fn default() -> Self {
        Self { bookmark_interval: Duration::from_secs(60), min_timeout: Duration::from_secs(30 * 60) }
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

/// The stream of a running watch; ends with an error item when the watch
/// can not go on, without one on timeout or shutdown.
pub type WatchStream = mpsc::Receiver<Result<WatchEvent>>;

fn expired(err: StorageError) -> Error {
    err.into()
}

/// Starts a watch. A resourceVersion older than the history window fails at
/// once with `Expired`.
pub async fn start(store: Arc<dyn Storage>, spec: WatchSpec) -> Result<WatchStream> {
    let requested = meta::parse_resource_version(&spec.options.resource_version)?;
    let send_initial = match spec.options.send_initial_events {
        Some(explicit) => explicit,
        None => matches!(requested, None | Some(0)),
    };
    let mut initial = Vec::new();
    let from = if send_initial {
        if let Some(rv) = requested.filter(|rv| *rv > 0) {
            crate::resource::list::wait_for_revision(store.as_ref(), rv).await?;
        }
        let matches = spec.matches.clone();
        let decode = spec.decode.clone();
        let failure = std::sync::Mutex::new(None);
        let filter = |kv: &KeyValue| match (&matches, decode(kv)) {
            (_, Err(err)) => {
                failure.lock().expect("failure lock").get_or_insert(err);
                false
            }
            (None, Ok(_)) => true,
            (Some(m), Ok(obj)) => m(&obj),
        };
        let range = store.range(&spec.prefix, None, ReadAt::Latest, 0, &filter).map_err(expired)?;
        if let Some(err) = failure.into_inner().expect("failure lock") {
            return Err(err);
        }
        for kv in &range.items {
            initial.push(WatchEvent { kind: EventType::Added, object: (spec.decode)(kv)? });
        }
        if spec.options.send_initial_events == Some(true) {
            initial.push(WatchEvent { kind: EventType::Bookmark, object: (spec.bookmark)(range.revision, true) });
        }
        range.revision
    } else {
        requested.unwrap_or_else(|| store.current_revision())
    };
    let changes = store.watch(&spec.prefix, from).map_err(expired)?;
    let (tx, rx) = mpsc::channel(OUT_BUFFER);
    tokio::spawn(run(spec, initial, from, changes, tx));
    Ok(rx)
}

/// Translates one storage event as the watch's selectors see it.
fn translate(spec: &WatchSpec, event: &Event) -> Result<Option<WatchEvent>> {
    let matches = |obj: &Value| spec.matches.as_ref().is_none_or(|m| m(obj));
    match event {
        Event::Put { current, previous } => {
            let now = (spec.decode)(current)?;
            let was = match (previous, &spec.matches) {
                (None, _) => false,
                (Some(_), None) => true,
                (Some(prev), Some(m)) => m(&(spec.decode)(prev)?),
            };
            let kind = match (was, matches(&now)) {
                (true, true) => EventType::Modified,
                (false, true) => EventType::Added,
                (true, false) => EventType::Deleted,
                (false, false) => return Ok(None),
            };
            Ok(Some(WatchEvent { kind, object: now }))
        }
        Event::Delete { previous, revision } => {
            let mut last = (spec.decode)(previous)?;
            if !matches(&last) {
                return Ok(None);
            }
            meta::set_resource_version(&mut last, *revision);
            Ok(Some(WatchEvent { kind: EventType::Deleted, object: last }))
        }
    }
}

async fn run(
    mut spec: WatchSpec,
    initial: Vec<WatchEvent>,
    from: Revision,
    mut changes: crate::storage::WatchReceiver,
    tx: mpsc::Sender<Result<WatchEvent>>,
) {
    for event in initial {
        if tx.send(Ok(event)).await.is_err() {
            return;
        }
    }
    let timeout = tokio::time::sleep(spec.options.timeout.unwrap_or(spec.default_timeout));
    tokio::pin!(timeout);
    let mut bookmarks = tokio::time::interval(spec.bookmark_interval);
    bookmarks.tick().await;
    let (mut reached, mut bookmarked) = (from, from);
    let stopped = until_stopped(spec.stopped.clone());
    tokio::pin!(stopped);
    let mut ends = spec.ends.take().unwrap_or_else(|| Box::pin(std::future::pending()));
    loop {
        tokio::select! {
            message = changes.recv() => match message {
                Some(Ok(WatchMessage::Events(batch))) => {
                    for event in batch.iter() {
                        reached = event.revision();
                        match translate(&spec, event) {
                            Ok(Some(out)) => {
                                if tx.send(Ok(out)).await.is_err() {
                                    return;
                                }
                            }
                            Ok(None) => {}
                            Err(err) => {
                                let _ = tx.send(Err(err)).await;
                                return;
                            }
                        }
                    }
                }
                Some(Ok(WatchMessage::Progress(revision))) => reached = reached.max(revision),
                Some(Err(err)) => {
                    let _ = tx.send(Err(err.into())).await;
                    return;
                }
                None => return,
            },
            _ = bookmarks.tick(), if spec.options.allow_bookmarks => {
                if reached > bookmarked {
                    bookmarked = reached;
                    let event = WatchEvent { kind: EventType::Bookmark, object: (spec.bookmark)(reached, false) };
                    if tx.send(Ok(event)).await.is_err() {
                        return;
                    }
                }
            }
            _ = &mut timeout => {
                if spec.options.allow_bookmarks {
                    let event = WatchEvent { kind: EventType::Bookmark, object: (spec.bookmark)(reached, false) };
                    let _ = tx.send(Ok(event)).await;
                }
                return;
            }
            _ = &mut stopped => return,
            _ = &mut ends => return,
            _ = tx.closed() => return,
        }
    }
}

/// Resolves once the server shuts down.
pub async fn until_stopped(mut stopped: tokio::sync::watch::Receiver<bool>) {
    let _ = stopped.wait_for(|s| *s).await.map(|_| ());
}
