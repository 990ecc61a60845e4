//! Reads: one object (`get`, a `Found` in the form its read made it) and
//! pages as JSON bytes (`list_json`): each object is rendered from its
//! stored bytes (`stored::render`), never built as a value when its mark
//! allows, and selectors read only the head of each stored object.

use std::ops::Range;
use std::sync::Arc;

use bytes::Bytes;

use super::{Resources, Selectors};
use crate::apimachinery::list::{self, ListPage};
use crate::apimachinery::options::{ListOptions, ResourceVersion};
use crate::error::Result;
use crate::resource::served::Served;
use crate::resource::stored::{self, Head};
use crate::resource::Ref;
use crate::storage::{KeyValue, Revision};

impl Selectors {
    /// Whether the head matches; only for selectors that do not need the
    /// object (`needs_object`).
    fn matches_head(&self, head: &Head) -> bool {
        self.labels.matches(&head.labels)
            && self.fields.matches(|f| match f {
                "metadata.name" => head.name.clone(),
                "metadata.namespace" => head.namespace.clone(),
                _ => String::new(),
            })
    }
}

/// One object as a read made it; each transport takes the form it sends
/// (the JSON as it is, or the object parsed from it).
#[derive(Debug, Clone, PartialEq)]
pub enum Found {
    Json(Vec<u8>),
    Value(serde_json::Value),
}

impl Found {
    /// The object's compact JSON.
    pub fn into_json(self) -> Vec<u8> {
        match self {
            Found::Json(json) => json,
            Found::Value(value) => serde_json::to_vec(&value).expect("JSON values serialize"),
        }
    }

    /// The object.
    pub fn into_value(self) -> Result<serde_json::Value> {
        match self {
            Found::Json(json) => serde_json::from_slice(&json)
                .map_err(|e| crate::error::Error::internal(format!("a rendered object is not JSON: {e}"))),
            Found::Value(value) => Ok(value),
        }
    }
}

impl Resources {
    /// Reads one object at the request version, as of a state not older
    /// than `resource_version` ("" or "0": the latest), waiting briefly for
    /// a revision not yet reached: its JSON rendered from the stored bytes,
    /// or at a version that converts, the converted object.
    pub async fn get(&self, r: &Ref, resource_version: ResourceVersion) -> Result<Found> {
        if let Some(rv) = resource_version.revision() {
            list::wait_for_revision(self.store.as_ref(), rv).await?;
        }
        let served = self.served_object(r)?;
        let kv = self.load(&served, r)?;
        if served.converts(&r.version) {
            return Ok(Found::Value(stored::read(&served, &r.version, &kv).await?));
        }
        Ok(Found::Json(stored::render(&served, &r.version, &kv)?))
    }

    /// `list`, each item as the JSON of the object. At a version that
    /// converts, the page is `list`'s, serialised.
    pub async fn list_json(&self, r: &Ref, options: &ListOptions) -> Result<ListPage<Bytes>> {
        let page = self.list_json_lazy(r, options).await?;
        Ok(ListPage {
            items: page.items.into_rendered()?,
            revision: page.revision,
            continue_token: page.continue_token,
            remaining: page.remaining,
        })
    }

    /// `list_json`, its items rendered when they are taken
    /// (`JsonItems::render`), so that a transport can send the first
    /// while the rest render. At a version that converts, the page is
    /// converted first, in one call.
    pub async fn list_json_lazy(&self, r: &Ref, options: &ListOptions) -> Result<JsonPage> {
        let served = self.served_collection(r)?;
        let selectors = Selectors::parse(&served, &r.version, &options.label_selector, &options.field_selector)?;
        let converts = served.converts(&r.version);
        if converts && selectors.as_ref().is_some_and(Selectors::needs_object) {
            // A selectable field is read at the request version: `list`
            // converts the page, then selects.
            let page = self.list(r, options).await?;
            let items =
                page.items.iter().map(|obj| serde_json::to_vec(obj).expect("JSON values serialize").into()).collect();
            return Ok(JsonPage {
                items: JsonItems::new(&served, &r.version, Pending::Rendered(items)),
                revision: page.revision,
                continue_token: page.continue_token,
                remaining: page.remaining,
            });
        }
        // Labels, name and namespace select by the head of the stored
        // bytes, as `list` selects them; a selectable field (at a version
        // that does not convert) by the object as read.
        let keep = |kv: &KeyValue| Ok(kv.clone());
        let select = selectors.map(|selectors| {
            let (served, version) = (&*served, r.version.as_str());
            move |kv: &KeyValue| -> Result<Option<KeyValue>> {
                let matched = match stored::head(&kv.value).filter(|_| !selectors.needs_object()) {
                    Some(head) => selectors.matches_head(&head),
                    None if converts => selectors.matches(&stored::at_storage(served, kv)?),
                    None => selectors.matches(&stored::from_stored(served, version, kv)?),
                };
                Ok(matched.then(|| kv.clone()))
            }
        });
        let select = select.as_ref().map(|s| s as list::Select<'_, KeyValue>);
        let prefix = Self::collection_prefix(&served, r);
        let page = list::list_selected(self.store.as_ref(), &prefix, options, &keep, select).await?;
        let pending = if converts {
            // The page converts in one call from the stored bytes.
            Pending::Rendered(stored::render_page(&served, &r.version, page.items).await?)
        } else {
            Pending::Stored(page.items)
        };
        Ok(JsonPage {
            items: JsonItems::new(&served, &r.version, pending),
            revision: page.revision,
            continue_token: page.continue_token,
            remaining: page.remaining,
        })
    }
}

/// A page of `list_json_lazy`.
pub struct JsonPage {
    pub items: JsonItems,
    pub revision: Revision,
    /// Empty when this is the last page.
    pub continue_token: String,
    /// Items left after this page, when known.
    pub remaining: Option<i64>,
}

/// The items of a `JsonPage`, as JSON when taken.
pub struct JsonItems {
    served: Arc<Served>,
    version: String,
    /// `served.api_version(version)`, made once for the page.
    api_version: String,
    pending: Pending,
}

enum Pending {
    /// At a version that does not convert: rendered from the stored bytes
    /// when taken.
    Stored(Vec<KeyValue>),
    /// At a version that converts: the page converted in one call (shared
    /// with the converted-object cache).
    Rendered(Vec<Bytes>),
}

impl JsonItems {
    fn new(served: &Arc<Served>, version: &str, pending: Pending) -> Self {
        let api_version = served.api_version(version);
        Self { served: served.clone(), version: version.to_string(), api_version, pending }
    }

    pub fn len(&self) -> usize {
        match &self.pending {
            Pending::Stored(kvs) => kvs.len(),
            Pending::Rendered(items) => items.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The items in `range` as the list's `items` array holds them there:
    /// each item's JSON, with a comma before each but the page's first.
    pub fn render(&self, range: Range<usize>) -> Result<Vec<u8>> {
        let mut out = Vec::with_capacity(range.clone().map(|i| self.size_of(i)).sum());
        for i in range {
            if i > 0 {
                out.push(b',');
            }
            match &self.pending {
                Pending::Stored(kvs) => self.render_stored(&kvs[i], &mut out)?,
                Pending::Rendered(items) => out.extend_from_slice(&items[i]),
            }
        }
        Ok(out)
    }

    /// About how many bytes item `i` renders to, with its comma.
    fn size_of(&self, i: usize) -> usize {
        match &self.pending {
            Pending::Stored(kvs) => self.stored_size(&kvs[i]),
            Pending::Rendered(items) => items[i].len() + 1,
        }
    }

    /// About how many bytes a stored item renders to: its stored JSON with
    /// the apiVersion and resourceVersion rewritten.
    fn stored_size(&self, kv: &KeyValue) -> usize {
        kv.value.len() + self.api_version.len() + 32
    }

    fn render_stored(&self, kv: &KeyValue, out: &mut Vec<u8>) -> Result<()> {
        stored::render_into(&self.served, &self.version, &self.api_version, kv, out)
    }

    /// Every item's JSON, a long page rendered on every core.
    pub fn into_rendered(self) -> Result<Vec<Bytes>> {
        match self.pending {
            Pending::Rendered(items) => Ok(items),
            Pending::Stored(ref kvs) => list::decode_all(kvs, &|kv| {
                let mut out = Vec::with_capacity(self.stored_size(kv));
                self.render_stored(kv, &mut out)?;
                Ok(out.into())
            }),
        }
    }
}
