//! Watch events at a version that converts: the stream runs at the storage
//! version (its selectors see the stored state, old and new, as Kubernetes'
//! watch cache does) and each event's object is converted as it is
//! delivered. Watchers of one change share its storage rendering, so they
//! share its conversion too: the first converts, the others wait for it
//! (`ConvertCache`), and a thousand watchers of a change cost one call.
//!
//! A watch whose selectors read fields a version declares
//! (`selectableFields`) selects at the watched version instead: the stream
//! converts each object, old and new, through the same cache before its
//! selectors see it (`Via`, `stream::start_converted`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use futures::StreamExt;
use serde_json::Value;

use super::render::{EventType, Object, Rendered, WatchStream};
use crate::error::Result;

/// Converts an object (as rendered at the storage version) to the watched
/// version.
pub type Convert = Arc<dyn Fn(Value) -> BoxFuture<'static, Result<Value>> + Send + Sync>;

type Slot = Arc<tokio::sync::OnceCell<Result<Object>>>;

/// A rendering's address and the version it is converted to.
type Key = (usize, Arc<str>);

/// Conversions of shared renderings, keyed by the rendering's address and
/// the version (each entry keeps its rendering alive, so an address is not
/// reused while cached). Emptied when it fills.
#[derive(Default)]
pub struct ConvertCache {
    entries: Mutex<HashMap<Key, (Object, Slot)>>,
}

/// Conversions a cache holds before it starts over.
const CONVERT_CACHE_ENTRIES: usize = 4096;

impl ConvertCache {
    fn slot(&self, object: &Object, version: &Arc<str>) -> Slot {
        let key = (Arc::as_ptr(object) as usize, version.clone());
        let mut entries = self.entries.lock().expect("convert cache lock");
        if entries.len() >= CONVERT_CACHE_ENTRIES && !entries.contains_key(&key) {
            entries.clear();
        }
        entries.entry(key).or_insert_with(|| (object.clone(), Slot::default())).1.clone()
    }
}

/// How a watch's objects reach the watched version: `convert` to
/// `version`, each rendering once for all watchers through `cache`.
#[derive(Clone)]
pub struct Via {
    pub cache: Arc<ConvertCache>,
    pub version: Arc<str>,
    pub convert: Convert,
}

impl Via {
    pub fn new(cache: Arc<ConvertCache>, version: &str, convert: Convert) -> Self {
        Self { cache, version: Arc::from(version), convert }
    }

    /// `object` (a shared storage rendering) at the watched version: the
    /// first watcher to ask converts it, the others share its result.
    pub async fn apply(&self, object: &Object) -> Result<Object> {
        let slot = self.cache.slot(object, &self.version);
        let (source, convert) = (object.value.clone(), self.convert.clone());
        slot.get_or_init(|| async move { convert(source).await.map(Rendered::new) }).await.clone()
    }
}

/// `events` with every object converted by `convert` to `version` (bookmarks
/// pass as they are); a failed conversion ends the watch with its error.
pub fn converted(events: WatchStream, cache: Arc<ConvertCache>, version: &str, convert: Convert) -> WatchStream {
    let via = Via::new(cache, version, convert);
    Box::pin(events.then(move |item| {
        let via = via.clone();
        async move {
            let mut event = item?;
            if event.kind == EventType::Bookmark {
                return Ok(event);
            }
            event.object = via.apply(&event.object).await?;
            Ok(event)
        }
    }))
}
