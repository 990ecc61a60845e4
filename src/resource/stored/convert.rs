//! Pages read at a version that converts, rendered as JSON from the stored
//! bytes: under the Declarative strategy each object marked with the
//! storage schema's current mark converts over its bytes
//! (`declarative::Node`: parsed only along the rules' paths, every other
//! member copied as it is), and when the read version's schema would
//! neither prune nor default what the engine gives (decided once per
//! definition revision), the result is written out as it is. Anything
//! else takes the `Value` path (read at the storage version, converted,
//! pruned and defaulted at the read version, serialised), which answers
//! the same bytes. A large page is split over the machine's cores; each
//! part finds its route once, computes a CEL rule once per distinct input
//! (`declarative::Memo`), and keeps each declarative conversion in a cache
//! bounded by its bytes (`cache.rs`), whose buffer a page listed again
//! shares.

use std::sync::Arc;

use bytes::Bytes;
use serde_json::Value;

use super::{at_read_version, at_storage, convert_read, split_mark, Served};
use crate::conversion::declarative::{Declarative, Memo, Node, Route};
use crate::conversion::page::{self, Objects, Parts};
use crate::conversion::Strategy;
use crate::error::{Error, Result};
use crate::storage::KeyValue;

/// The objects of a page, stored as `kvs`, as a client sees them at
/// `version` (one that converts: `Served::converts`), each as JSON: what
/// serialising `convert_read` of their reads at the storage version gives.
pub async fn render_page(served: &Arc<Served>, version: &str, kvs: Vec<KeyValue>) -> Result<Vec<Bytes>> {
    if let Strategy::Webhook(_) = served.converter.strategy() {
        return Ok(webhook_page(served, version, kvs).await?.into_iter().map(Bytes::from).collect());
    }
    let Strategy::Declarative(_) = served.converter.strategy() else {
        let objects = kvs.iter().map(|kv| at_storage(served, kv)).collect::<Result<Vec<Value>>>()?;
        let converted = convert_read(served, version, objects, true).await?;
        return Ok(converted
            .iter()
            .map(|obj| serde_json::to_vec(obj).expect("JSON values serialize").into())
            .collect());
    };
    let parts = page::parts_for(kvs.len());
    if parts < 2 {
        return declarative_chunk(served, version, &kvs);
    }
    let (served, version) = (served.clone(), version.to_string());
    let chunks = page::split(kvs, parts, move |_, chunk: Vec<KeyValue>| declarative_chunk(&served, &version, &chunk));
    Ok(chunks.await?.into_iter().flatten().collect())
}

/// A page through a webhook: each object's JSON at the storage version
/// (spliced from its bytes when marked) written into one review, noting
/// where its kind and metadata are for the checks of its answer, the
/// converted objects kept as bytes; then pruned and defaulted at `version`
/// only when its schema would change them (`read_pass`). A large page is
/// written, and its answer checked, on every core.
async fn webhook_page(served: &Arc<Served>, version: &str, kvs: Vec<KeyValue>) -> Result<Vec<Vec<u8>>> {
    let Strategy::Webhook(hook) = served.converter.strategy() else { unreachable!("called for the Webhook strategy") };
    if kvs.is_empty() {
        return Ok(Vec::new());
    }
    let parts = page::parts_for(kvs.len());
    let objects = originals(served, kvs, parts).await?;
    // As `Converter::convert_list` names a list's input.
    let what = format!("{}, Kind={}", served.api_version(&served.storage_version), served.list_kind);
    let converted = hook.convert_objects(objects, &served.api_version(version), &what).await?;
    if !read_pass(served, version) {
        return Ok(converted);
    }
    converted
        .iter()
        .map(|bytes| {
            let mut obj: Value = serde_json::from_slice(bytes)
                .map_err(|e| Error::internal(format!("a converted object is not JSON: {e}")))?;
            at_read_version(served, version, &mut obj);
            Ok(serde_json::to_vec(&obj).expect("JSON values serialize"))
        })
        .collect()
}

/// The objects of a page as a review carries them: each as `render` gives
/// it at the storage version, in `parts` chunks.
async fn originals(served: &Arc<Served>, kvs: Vec<KeyValue>, parts: usize) -> Result<Objects> {
    let served = served.clone();
    let chunks = page::split(kvs, parts, move |_, chunk: Vec<KeyValue>| {
        let size = chunk.iter().map(|kv| kv.value.len() + 32).sum();
        let mut objects = Objects::with_capacity(size, chunk.len());
        let api_version = served.api_version(&served.storage_version);
        for kv in &chunk {
            objects.push(|out| original(&served, &api_version, kv, out))?;
        }
        Ok(objects)
    })
    .await?;
    let mut chunks = chunks.into_iter();
    let mut objects = chunks.next().unwrap_or_default();
    for chunk in chunks {
        objects.append(chunk);
    }
    Ok(objects)
}

/// Writes `kv` at the storage version (`api_version`) to `out`, as
/// `render` gives it; where its kind and metadata are when spliced.
fn original(served: &Served, api_version: &str, kv: &KeyValue, out: &mut Vec<u8>) -> Result<Option<Parts>> {
    let (json, mark) = split_mark(&kv.value);
    if mark == Some(served.storage_mark) && served.plain(&served.storage_version) {
        if let Some(written) = super::splice_into(json, api_version, kv.mod_revision, out) {
            return Ok(Some(Parts { kind: written.kind, metadata: Some(written.metadata) }));
        }
    }
    out.extend_from_slice(&super::render(served, &served.storage_version, kv)?);
    Ok(None)
}

/// Whether pruning and defaulting at `version` can change what a webhook
/// answered (once checked and its metadata restored): unless the version's
/// schema keeps every unknown field at the root, types none, and defaults
/// nothing (the restored metadata is the stored object's, already pruned,
/// with string labels and annotations).
fn read_pass(served: &Served, version: &str) -> bool {
    if served.plain(version) {
        return false;
    }
    served.schema(version).is_some_and(|schema| {
        schema.has_defaults
            || !schema.preserve_unknown_fields
            || !schema.properties.is_empty()
            || matches!(schema.additional, crate::schema::Additional::Schema(_))
            || schema.items.is_some()
    })
}

fn declarative_chunk(served: &Served, version: &str, kvs: &[KeyValue]) -> Result<Vec<Bytes>> {
    let Strategy::Declarative(rules) = served.converter.strategy() else {
        unreachable!("called for the Declarative strategy")
    };
    let route = if rules.needs_read_pass(version) { None } else { fast_route(served, rules, version) };
    let mut memo = Memo::default();
    let cache = super::Converted::global();
    let cached = cache.get_page(kvs, rules.id(), version);
    let mut fresh = Vec::new();
    let page = kvs
        .iter()
        .zip(cached)
        .enumerate()
        .map(|(i, (kv, cached))| {
            if let Some(json) = cached {
                return Ok(json);
            }
            fresh.push(i);
            match route.as_ref().and_then(|route| declarative_bytes(served, rules, route, kv, &mut memo)) {
                Some(bytes) => Ok(kept(bytes)),
                None => {
                    let mut obj = rules.convert(at_storage(served, kv)?, version)?;
                    at_read_version(served, version, &mut obj);
                    Ok(kept(serde_json::to_vec(&obj).expect("JSON values serialize")))
                }
            }
        })
        .collect::<Result<Vec<Bytes>>>()?;
    cache.put_page(fresh.into_iter().map(|i| (&kvs[i], page[i].clone())), rules.id(), version);
    Ok(page)
}

/// `out` as the cache keeps it: the buffer itself, trimmed first when more
/// than an eighth of it is spare (the cache counts an entry by its length,
/// so what it holds stays within an eighth of its budget).
fn kept(mut out: Vec<u8>) -> Bytes {
    if out.capacity() - out.len() > out.len() / 8 {
        out.shrink_to_fit();
    }
    Bytes::from(out)
}

/// The route of the fast path from the storage version to `version`,
/// found once a page part: None when there is nothing to convert (or no
/// way there), which the `Value` path then answers.
fn fast_route(served: &Served, rules: &Declarative, version: &str) -> Option<Route> {
    rules.route_between(&served.group, &served.storage_version, version).filter(|route| !route.is_empty())
}

/// The fast path: the object converted over its bytes, or None when it
/// does not apply (unmarked bytes, no apiVersion or metadata, a
/// round-trip annotation, anything set aside, a failing rule). The CEL
/// rules' outcomes are kept in `memo` for the rest of the page.
fn declarative_bytes<'a>(
    served: &Served,
    rules: &'a Declarative,
    route: &Route,
    kv: &'a KeyValue,
    memo: &mut Memo<'a>,
) -> Option<Vec<u8>> {
    let (json, mark) = split_mark(&kv.value);
    if mark != Some(served.storage_mark) {
        return None;
    }
    let json = std::str::from_utf8(json).ok()?;
    let mut obj = rules.shape().parse(json)?;
    let members = obj.members()?;
    if !members.iter().any(|(k, _)| k == "apiVersion") {
        return None;
    }
    // As `from_stored` reads it: metadata.resourceVersion, in place or at
    // the end. The apiVersion, which `from_stored` sets to the storage
    // version's, is set in place by the route's last step (no rule reads it).
    let metadata = members.iter_mut().find(|(k, _)| k == "metadata").map(|(_, v)| v)?;
    // Metadata that no rule reaches into is left as its bytes, and the
    // resourceVersion written at their end, as `splice_into` does, when
    // they cannot hold one already (stored objects do not).
    let unparsed = match metadata {
        Node::Raw(raw) if !super::may_hold_resource_version(raw.as_bytes()) => Some(*raw),
        _ => None,
    };
    if unparsed.is_none() {
        Node::insert(metadata.members()?, "resourceVersion", Node::Value(Value::String(kv.mod_revision.to_string())));
    }
    rules.convert_routed(&mut obj, route, memo)?;
    let mut out = Vec::with_capacity(json.len() + 64);
    match unparsed {
        Some(raw) => {
            let tail = super::resource_version_member(kv.mod_revision);
            obj.write_appending("metadata", raw, &tail, &mut out).then_some(())?;
        }
        None => obj.write(&mut out),
    }
    Some(out)
}

#[cfg(test)]
#[path = "convert_tests.rs"]
mod tests;
