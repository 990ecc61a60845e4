//! Watches of custom resources: selection at the stored or the watched
//! version, conversion once per change for every watcher, and the end of a
//! watch when its definition changes.

use std::sync::Arc;

use super::selectors::Selectors;
use super::Resources;
use crate::apimachinery::options::WatchOptions;
use crate::error::Result;
use crate::resource::served::{Catalog, Served};
use crate::resource::stored;
use crate::resource::strategy::{self, Ref};
use crate::storage::{keys, Storage};
use crate::watch::stream::{self, WatchSpec, WatchStream};

impl Resources {
    /// Follows every definition change with one storage watch for the whole
    /// service, so resource watches end when their definition changes. The
    /// server runs it for as long as it serves; without it, resource
    /// watches end only by their timeouts.
    pub async fn track_definitions(&self) {
        let Ok(mut changes) = self.store.watch(&keys::definitions_prefix(), self.store.current_revision()) else {
            return;
        };
        let stop = stream::until_stopped(self.stopped.clone());
        tokio::pin!(stop);
        loop {
            tokio::select! {
                message = futures::StreamExt::next(&mut changes) => match message {
                    Some(Ok(crate::storage::WatchMessage::Events(events))) => {
                        // A change is watchable before it is readable: wait
                        // until reads see it, or a watch that re-reads its
                        // definition on this notice finds it unchanged and
                        // is never ended (upstream's TestChangeCRD, 1 run in 4).
                        if let Some(last) = events.last() {
                            self.store.wait_for_revision(last.revision(), std::time::Duration::from_secs(3)).await;
                        }
                        self.definitions.send_modify(|g| *g += 1)
                    }
                    Some(Ok(crate::storage::WatchMessage::Progress(_))) => {}
                    Some(Err(err)) => {
                        tracing::warn!(error = %err, "definition tracking ended; resource watches will end");
                        return;
                    }
                    None => return,
                },
                _ = &mut stop => return,
            }
        }
    }

    /// Watches objects of a resource. The stream ends cleanly when the
    /// definition's spec or accepted names change, so clients re-list.
    pub async fn watch(&self, r: &Ref, options: WatchOptions) -> Result<WatchStream> {
        let served = self.served_collection(r)?;
        let selectors = Selectors::parse(&served, &r.version, &options.label_selector, &options.field_selector)?;
        // A version that converts watches at the storage version, each
        // event converted as it is delivered; its selectors see the stored
        // state, old and new, unless they read the version's selectable
        // fields: then the stream converts old and new state first and
        // selects at the watched version, as that version's watch cache
        // does in Kubernetes.
        let converts = served.converts(&r.version);
        let select_converted = converts && selectors.as_ref().is_some_and(Selectors::needs_object);
        let matches = selectors.map(Selectors::into_matches);
        let decode_version = if converts { &served.storage_version } else { &r.version };
        let version: Arc<str> = Arc::from(decode_version.as_str());
        let decode_served = served.clone();
        let renders = self.renders.clone();
        let (api_version, kind) = (served.api_version(&r.version), served.kind.clone());
        let labels = (served.group.clone(), r.version.clone(), served.kind.clone());
        let spec = WatchSpec {
            prefix: Self::collection_prefix(&served, r),
            options,
            decode: Arc::new(move |kv| {
                renders.get_or_render(kv, &version, || strategy::from_stored(&decode_served, &version, kv))
            }),
            matches,
            bookmark: Arc::new(move |rev, end| crate::apimachinery::bookmark::bookmark(&api_version, &kind, rev, end)),
            bookmark_interval: self.watch_defaults.bookmark_interval,
            default_timeout: self.watch_defaults.timeout(),
            stopped: self.stopped.clone(),
            ends: Some(Box::pin(definition_changed(
                self.store.clone(),
                self.catalog.clone(),
                served.clone(),
                self.definitions.subscribe(),
            ))),
        };
        let convert: crate::watch::convert::Convert = {
            let (served, version) = (served.clone(), r.version.clone());
            Arc::new(move |obj| {
                let (served, version) = (served.clone(), version.clone());
                Box::pin(async move { Ok(stored::convert_read(&served, &version, vec![obj], false).await?.remove(0)) })
            })
        };
        let events = if select_converted {
            let via = crate::watch::convert::Via::new(self.conversions.clone(), &r.version, convert);
            stream::start_converted(self.store.clone(), spec, via).await?
        } else if converts {
            let events = stream::start(self.store.clone(), spec).await?;
            crate::watch::convert::converted(events, self.conversions.clone(), &r.version, convert)
        } else {
            stream::start(self.store.clone(), spec).await?
        };
        Ok(crate::watch::metered::metered(events, &labels.0, &labels.1, &labels.2))
    }
}

/// Resolves when the definition behind `served` is deleted or its spec or
/// accepted names change. `changes` must be subscribed before the check
/// below, so a change in between is not missed.
async fn definition_changed(
    store: Arc<dyn Storage>,
    catalog: Arc<Catalog>,
    served: Arc<Served>,
    mut changes: tokio::sync::watch::Receiver<u64>,
) {
    loop {
        match catalog.resolve_any(store.as_ref(), &served.group, &served.plural) {
            Some(now) if now.shape == served.shape => {}
            _ => return,
        }
        if changes.changed().await.is_err() {
            return;
        }
    }
}
