//! Reads answered as JSON bytes (`get_json`, `list_json`), for transports
//! that send JSON: each object is rendered from its stored bytes
//! (`stored::render`), never built as a value when its mark allows, and
//! selectors read only the head of each stored object.

use serde_json::Value;

use super::{Resources, Selectors};
use crate::apimachinery::list::{self, ListPage};
use crate::apimachinery::options::{ListOptions, ResourceVersion};
use crate::error::Result;
use crate::resource::stored::{self, Head};
use crate::resource::Ref;
use crate::storage::KeyValue;

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

impl Resources {
    /// `get`, as the JSON of the object.
    pub async fn get_json(&self, r: &Ref) -> Result<Vec<u8>> {
        let served = self.served_object(r)?;
        let kv = self.load(&served, r)?;
        if served.converts(&r.version) {
            let obj = stored::read(&served, &r.version, &kv).await?;
            return Ok(serde_json::to_vec(&obj).expect("JSON values serialize"));
        }
        stored::render(&served, &r.version, &kv)
    }

    /// `get_at_least`, as the JSON of the object.
    pub async fn get_json_at_least(&self, r: &Ref, resource_version: ResourceVersion) -> Result<Vec<u8>> {
        if let Some(rv) = resource_version.revision() {
            list::wait_for_revision(self.store.as_ref(), rv).await?;
        }
        self.get_json(r).await
    }

    /// `list`, each item as the JSON of the object. At a version that
    /// converts, the page is `list`'s, serialised.
    pub async fn list_json(&self, r: &Ref, options: &ListOptions) -> Result<ListPage<Vec<u8>>> {
        let served = self.served_collection(r)?;
        if served.converts(&r.version) {
            let selectors = Selectors::parse(&served, &r.version, &options.label_selector, &options.field_selector)?;
            if selectors.as_ref().is_some_and(Selectors::needs_object) {
                // A selectable field is read at the request version: `list`
                // converts the page, then selects.
                let page = self.list(r, options).await?;
                let items =
                    page.items.iter().map(|obj| serde_json::to_vec(obj).expect("JSON values serialize")).collect();
                return Ok(ListPage {
                    items,
                    revision: page.revision,
                    continue_token: page.continue_token,
                    remaining: page.remaining,
                });
            }
            // Labels, name and namespace select at the storage version, as
            // `list` selects them, then the page converts in one call from
            // the stored bytes.
            let keep = |kv: &KeyValue| Ok(kv.clone());
            let select = selectors.map(|selectors| {
                let served = &*served;
                move |kv: &KeyValue| -> Result<Option<KeyValue>> {
                    let matched = match stored::head(&kv.value) {
                        Some(head) => selectors.matches_head(&head),
                        None => selectors.matches(&stored::at_storage(served, kv)?),
                    };
                    Ok(matched.then(|| kv.clone()))
                }
            });
            let select = select.as_ref().map(|s| s as list::Select<'_, KeyValue>);
            let prefix = Self::collection_prefix(&served, r);
            let page = list::list_selected(self.store.as_ref(), &prefix, options, &keep, select).await?;
            let items = stored::render_page(&served, &r.version, page.items).await?;
            return Ok(ListPage {
                items,
                revision: page.revision,
                continue_token: page.continue_token,
                remaining: page.remaining,
            });
        }
        let served = &*served;
        let selectors = Selectors::parse(served, &r.version, &options.label_selector, &options.field_selector)?;
        let render = |kv: &KeyValue| stored::render(served, &r.version, kv);
        let select = selectors.map(|selectors| {
            // The head answers selectors on labels, name and namespace; a
            // selectable field needs the object as read.
            let by_head = !selectors.needs_object();
            move |kv: &KeyValue| -> Result<Option<Vec<u8>>> {
                match stored::head(&kv.value).filter(|_| by_head) {
                    Some(head) if selectors.matches_head(&head) => render(kv).map(Some),
                    Some(_) => Ok(None),
                    None => {
                        let obj: Value = stored::from_stored(served, &r.version, kv)?;
                        Ok(selectors.matches(&obj).then(|| serde_json::to_vec(&obj).expect("JSON values serialize")))
                    }
                }
            }
        });
        let select = select.as_ref().map(|s| s as list::Select<'_, Vec<u8>>);
        list::list_selected(self.store.as_ref(), &Self::collection_prefix(served, r), options, &render, select).await
    }
}
