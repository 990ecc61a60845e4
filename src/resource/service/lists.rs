//! Lists of a resource: a page read and selected at the storage version
//! where the watched version converts, then converted in one call.

use serde_json::Value;

use super::selectors::Selectors;
use super::Resources;
use crate::apimachinery::list::{self, ListPage};
use crate::apimachinery::options::ListOptions;
use crate::error::Result;
use crate::resource::served::Served;
use crate::resource::stored;
use crate::resource::strategy::{self, Ref};
use crate::storage::KeyValue;
use crate::watch::stream;

impl Resources {
    /// Lists objects of a resource in a namespace, or in all of them. At a
    /// version that converts, the page is read and selected at the storage
    /// version (as Kubernetes filters in storage), then converted in one
    /// call; a field selector on the version's selectable fields selects
    /// after the conversion, since each version declares its own paths (the
    /// page may then hold fewer items than its limit, as Kubernetes allows).
    pub async fn list(&self, r: &Ref, options: &ListOptions) -> Result<ListPage> {
        let served = self.served_collection(r)?;
        let selectors = Selectors::parse(&served, &r.version, &options.label_selector, &options.field_selector)?;
        if !served.converts(&r.version) {
            return self.list_at(&served, r, &r.version, options, selectors.map(Selectors::into_matches)).await;
        }
        let (before, after) = match selectors {
            Some(selectors) if selectors.needs_object() => (None, Some(selectors)),
            other => (other.map(Selectors::into_matches), None),
        };
        let mut page = self.list_at(&served, r, &served.storage_version, options, before).await?;
        page.items = stored::convert_read(&served, &r.version, std::mem::take(&mut page.items), true).await?;
        if let Some(after) = after {
            page.items.retain(|obj| after.matches(obj));
        }
        Ok(page)
    }

    /// A page read at `version`, which needs no converter call, selected by
    /// `matches`.
    pub(super) async fn list_at(
        &self,
        served: &Served,
        r: &Ref,
        version: &str,
        options: &ListOptions,
        matches: Option<stream::Matches>,
    ) -> Result<ListPage> {
        let decode = |kv: &KeyValue| strategy::from_stored(served, version, kv);
        let matches = matches.as_ref().map(|m| m.as_ref() as &(dyn Fn(&Value) -> bool + Sync));
        list::list(self.store.as_ref(), &Self::collection_prefix(served, r), options, &decode, matches).await
    }
}
