//! Watch events at a version that converts: the stream runs at the storage
//! version (its selectors see the stored state, old and new, as Kubernetes'
//! watch cache does) and each event's object is converted as it is
//! delivered. Watchers of one change share its storage rendering, so they
//! share its conversion too: the first converts, the others wait for it
//! (`ConvertCache`), and a thousand watchers of a change cost one call.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use futures::StreamExt;
use serde_json::Value;

use super::render::{Object, Rendered};
use super::stream::{EventType, WatchStream};
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

/// `events` with every object converted by `convert` to `version` (bookmarks
/// pass as they are); a failed conversion ends the watch with its error.
pub fn converted(events: WatchStream, cache: Arc<ConvertCache>, version: &str, convert: Convert) -> WatchStream {
    let version: Arc<str> = Arc::from(version);
    Box::pin(events.then(move |item| {
        let (cache, version, convert) = (cache.clone(), version.clone(), convert.clone());
        async move {
            let mut event = item?;
            if event.kind == EventType::Bookmark {
                return Ok(event);
            }
            let slot = cache.slot(&event.object, &version);
            let source = event.object.value.clone();
            event.object =
                slot.get_or_init(|| async move { convert(source).await.map(Rendered::new) }).await.clone()?;
            Ok(event)
        }
    }))
}
