//! The stored form of a custom resource, and reads rendered from it without
//! building the object: a stored object whose bytes carry the mark of the
//! storage schema it was written under is already pruned and defaulted by
//! that schema, so its JSON is spliced into answers with only `apiVersion`
//! and `resourceVersion` rewritten.
//!
//! The mark is JSON whitespace after the object (a newline and 32 spaces,
//! tabs, carriage returns and newlines, two bits each, holding a 64-bit
//! fingerprint of the storage version's schema), so the bytes stay plain
//! JSON to every reader, and objects stored without it (by older versions,
//! or not already pruned and defaulted) are read as before.

use std::ops::Range;

use serde_json::value::RawValue;
use serde_json::Value;

use self::mark::append_mark;
pub use self::mark::split_mark;
use super::served::Served;
use crate::apimachinery::meta;
use crate::error::{Error, Result};
use crate::storage::{KeyValue, Revision};

/// What a read of stored bytes shows beyond them: the storage version's
/// schema as it is now prunes and defaults the object (so fields a schema
/// change dropped disappear and defaults it added appear, until the next
/// write persists both).
fn prune_and_default(served: &Served, obj: &mut Value) -> bool {
    match served.storage_schema() {
        Some(schema) => {
            let pruned = crate::schema::prune_changed(obj, schema);
            crate::schema::apply_defaults(obj, schema) || pruned
        }
        None => false,
    }
}

/// An object about to be stored: its bytes, and what a read of them shows.
pub struct Storing {
    /// The stored bytes: the JSON, and the mark when it applies.
    bytes: Vec<u8>,
    json_len: usize,
    /// The object as read at the storage version, without resourceVersion.
    read: Value,
}

impl Storing {
    /// The stored form of `obj`: its storage apiVersion, no resourceVersion,
    /// marked when the storage schema as it is now leaves it unchanged.
    pub fn new(served: &Served, obj: &Value) -> Self {
        Self::from_value(served, obj.clone())
    }

    /// `new`, over an object the caller no longer needs (one copy fewer).
    pub fn from_value(served: &Served, obj: Value) -> Self {
        let mut stored = obj;
        meta::strip_resource_version(&mut stored);
        stored["apiVersion"] = Value::String(served.api_version(&served.storage_version));
        let mut bytes = serde_json::to_vec(&stored).expect("JSON values serialize");
        let json_len = bytes.len();
        // What a read shows, made in place now the bytes are written: the
        // bytes are marked when it is what they hold.
        let mut read = stored;
        if !prune_and_default(served, &mut read) {
            append_mark(&mut bytes, served.storage_mark);
        }
        Self { bytes, json_len, read }
    }

    /// The JSON, without the mark (what the size limit applies to), until
    /// the bytes are taken.
    pub fn json(&self) -> &[u8] {
        &self.bytes[..self.json_len]
    }

    /// Takes the bytes to store over `current` (none for a create): `current`'s
    /// own when they hold the same JSON, so a write that changes nothing
    /// stays a write that changes nothing whatever mark either carries.
    pub fn take_bytes(&mut self, current: Option<&KeyValue>) -> Vec<u8> {
        match current {
            Some(current) if split_mark(&current.value).0 == self.json() => current.value.to_vec(),
            _ => std::mem::take(&mut self.bytes),
        }
    }

    /// What a read at `version` (one that needs no converter call) of what
    /// was stored at `revision` shows, as `from_stored` would parse it from
    /// the stored bytes: what `read_at` answers, checked by the tests.
    #[cfg(test)]
    pub fn into_object(self, served: &Served, version: &str, revision: Revision) -> Value {
        let mut obj = self.read;
        obj["apiVersion"] = Value::String(served.api_version(version));
        at_read_version(served, version, &mut obj);
        meta::set_resource_version(&mut obj, revision);
        obj
    }

    /// What a read at `version` of this object will show once stored,
    /// without its resourceVersion (set it from the commit): converted from
    /// the storage version when `version` needs it, before anything is
    /// committed, so a failed conversion writes nothing. Takes the read:
    /// asked once, after which only the bytes are left.
    pub async fn take_read_at(&mut self, served: &Served, version: &str) -> Result<Value> {
        let mut obj = std::mem::take(&mut self.read);
        obj["apiVersion"] = Value::String(served.api_version(&served.storage_version));
        Ok(convert_read(served, version, vec![obj], false).await?.remove(0))
    }
}

/// What a read at `version` shows beyond the object converted to it: that
/// version's schema prunes and defaults what the converter (a webhook, or
/// declared rules) gave. Nothing for a plain version: strategy `None` reads
/// as Kubernetes does, defaulted by the storage version's schema only.
fn at_read_version(served: &Served, version: &str, obj: &mut Value) {
    if served.plain(version) {
        return;
    }
    if let Some(schema) = served.schema(version) {
        crate::schema::prune(obj, schema);
        crate::schema::apply_defaults(obj, schema);
    }
}

/// A stored object as a client sees it at `version`, with its
/// resourceVersion, for a version that needs no converter call
/// (`Served::converts` is false: the storage version, or strategy `None`).
/// The storage version's defaults apply on read, so a default added later
/// shows at once (and is stored at the next write); then, at another
/// version, only `apiVersion` changes.
pub fn from_stored(served: &Served, version: &str, kv: &KeyValue) -> Result<Value> {
    debug_assert!(!served.converts(version), "a read at {version} converts: use `read`");
    let mut obj: Value = serde_json::from_slice(split_mark(&kv.value).0)
        .map_err(|e| Error::internal(format!("stored object {} is corrupt: {e}", kv.key)))?;
    prune_and_default(served, &mut obj);
    obj["apiVersion"] = Value::String(served.api_version(version));
    at_read_version(served, version, &mut obj);
    meta::set_resource_version(&mut obj, kv.mod_revision);
    Ok(obj)
}

/// A stored object as read at the storage version.
pub fn at_storage(served: &Served, kv: &KeyValue) -> Result<Value> {
    from_stored(served, &served.storage_version, kv)
}

/// A stored object as a client sees it at `version`: `from_stored`, or
/// read at the storage version and converted.
pub async fn read(served: &Served, version: &str, kv: &KeyValue) -> Result<Value> {
    if !served.converts(version) {
        return from_stored(served, version, kv);
    }
    let obj = at_storage(served, kv)?;
    Ok(convert_read(served, version, vec![obj], false).await?.remove(0))
}

/// Objects as read at the storage version, as a client sees them at
/// `version`: converted (all in one converter call; `list` names a list's
/// kind in errors), then pruned and defaulted by `version`'s schema.
pub async fn convert_read(served: &Served, version: &str, objects: Vec<Value>, list: bool) -> Result<Vec<Value>> {
    if version == served.storage_version || objects.is_empty() {
        return Ok(objects);
    }
    let mut out = if list {
        served.converter.convert_list(objects, version, &served.list_kind).await?
    } else {
        served.converter.convert(objects, version).await?
    };
    for obj in &mut out {
        at_read_version(served, version, obj);
    }
    Ok(out)
}

/// An object written at `version` (decoded, defaulted and validated at its
/// schema) converted to the storage version, as it is about to be stored.
/// Strategy `None` leaves it for `Storing` to relabel.
pub async fn to_storage(served: &Served, version: &str, obj: Value) -> Result<Value> {
    if !served.converts(version) {
        return Ok(obj);
    }
    Ok(served.converter.convert(vec![obj], &served.storage_version).await?.remove(0))
}

/// A stored object as `from_stored` shows it, as JSON: spliced from the
/// stored bytes when they carry the storage schema's current mark and the
/// version is plain, else parsed, pruned, defaulted and serialised.
pub fn render(served: &Served, version: &str, kv: &KeyValue) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    render_into(served, version, &served.api_version(version), kv, &mut out)?;
    Ok(out)
}

/// `render` appended to `out`, `api_version` being
/// `served.api_version(version)` (made once for a page); on an error
/// nothing is appended.
pub fn render_into(served: &Served, version: &str, api_version: &str, kv: &KeyValue, out: &mut Vec<u8>) -> Result<()> {
    if splice_at(served, version, api_version, kv, out) {
        return Ok(());
    }
    let obj = from_stored(served, version, kv)?;
    serde_json::to_writer(&mut *out, &obj).expect("JSON values serialize");
    Ok(())
}

/// `render` when it splices the stored bytes (marked with the storage
/// schema's current mark, read at a plain version), else None: what a
/// write answers as its object's JSON without serialising it again.
pub fn spliced(served: &Served, version: &str, kv: &KeyValue) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    splice_at(served, version, &served.api_version(version), kv, &mut out).then_some(out)
}

/// Appends `render`'s answer to `out` when it is the stored bytes spliced;
/// whether it was (nothing is appended when not).
fn splice_at(served: &Served, version: &str, api_version: &str, kv: &KeyValue, out: &mut Vec<u8>) -> bool {
    let (json, mark) = split_mark(&kv.value);
    mark == Some(served.storage_mark)
        && served.plain(version)
        && splice_into(json, api_version, kv.mod_revision, out).is_some()
}

/// The compact JSON `json` (as serde_json writes a value: no whitespace,
/// no duplicate members, the store's own bytes, checked when written) with
/// the top-level `apiVersion` replaced and `metadata.resourceVersion` set,
/// in the order `from_stored` leaves them: byte for byte what serialising
/// its result gives. None when the object lacks either member. (Reads
/// splice into their own buffers with `splice_into`; the tests read this.)
#[cfg(test)]
fn splice(json: &[u8], api_version: &str, revision: Revision) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(json.len() + api_version.len() + 48);
    splice_into(json, api_version, revision, &mut out)?;
    Some(out)
}

/// Where `splice_into` wrote an object's `kind` and `metadata` values,
/// from the start of the object.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Written {
    pub kind: Option<Range<usize>>,
    pub metadata: Range<usize>,
}

/// `splice` appended to `out`, and where the object's kind and metadata
/// are in what it wrote. Everything but the two values it sets is copied
/// as it is, and nothing after the last of `apiVersion`, `kind` and
/// `metadata` is parsed. None (nothing written) when the object lacks
/// `apiVersion` or `metadata`.
pub fn splice_into(json: &[u8], api_version: &str, revision: Revision, out: &mut Vec<u8>) -> Option<Written> {
    let spans = scan::spans(json).or_else(|| serde_spans(json));
    let Some(Spans { api_version: Some(api), kind, metadata: Some(metadata) }) = spans else { return None };
    let meta = &json[metadata.clone()];
    if meta.first() != Some(&b'{') {
        return None;
    }
    // The members are read only when they may hold a resourceVersion.
    let rv_span = if may_hold_resource_version(meta) {
        let members: Members = serde_json::from_slice(meta).ok()?;
        members.0.iter().find(|(key, _)| key.0 == "resourceVersion").map(|(_, value)| {
            let at = metadata.start + (value.get().as_ptr() as usize - meta.as_ptr() as usize);
            at..at + value.get().len()
        })
    } else {
        None
    };
    // The metadata's resourceVersion replaced, or appended as its last member.
    let mut rv_bytes = Vec::with_capacity(40);
    let rv_at = match rv_span {
        Some(span) => {
            write_resource_version_json(revision, &mut rv_bytes);
            span
        }
        None => {
            if meta != b"{}" {
                rv_bytes.push(b',');
            }
            write_resource_version_member(revision, &mut rv_bytes);
            metadata.end - 1..metadata.end - 1
        }
    };
    let api_bytes = serde_json::to_vec(api_version).expect("strings serialize");
    let mut edits = [(api, api_bytes), (rv_at, rv_bytes)];
    edits.sort_by_key(|(span, _)| span.start);
    // Where a position of `json` lands in what is written: moved by every
    // edit that ends at or before it.
    let moved = |at: usize| {
        edits
            .iter()
            .filter(|(span, _)| span.end <= at)
            .fold(at as isize, |at, (span, bytes)| at + bytes.len() as isize - span.len() as isize) as usize
    };
    let written = Written {
        kind: kind.map(|kind| moved(kind.start)..moved(kind.end)),
        metadata: moved(metadata.start)..moved(metadata.end),
    };
    out.reserve(json.len() + edits.iter().map(|(_, b)| b.len()).sum::<usize>());
    let mut copied = 0;
    for (span, bytes) in &edits {
        out.extend_from_slice(&json[copied..span.start]);
        out.extend_from_slice(bytes);
        copied = span.end;
    }
    out.extend_from_slice(&json[copied..]);
    Some(written)
}

/// A resourceVersion as JSON, appended to `out`: the revision's digits as
/// a string (digits need no escaping). Every spliced read writes one, so
/// it is written by `itoa`, not through a formatter and two strings.
fn write_resource_version_json(revision: Revision, out: &mut Vec<u8>) {
    let mut digits = itoa::Buffer::new();
    out.push(b'"');
    out.extend_from_slice(digits.format(revision.get()).as_bytes());
    out.push(b'"');
}

/// The member `resourceVersion` as JSON, for appending to a metadata's
/// members.
fn resource_version_member(revision: Revision) -> Vec<u8> {
    let mut member = Vec::with_capacity(40);
    write_resource_version_member(revision, &mut member);
    member
}

/// `resource_version_member`, appended to `out`.
fn write_resource_version_member(revision: Revision, out: &mut Vec<u8>) {
    out.extend_from_slice(br#""resourceVersion":"#);
    write_resource_version_json(revision, out);
}

/// Whether the compact JSON of an object (a stored object's metadata) may
/// have a member `resourceVersion`: compact JSON writes such a key, at any
/// depth, as the bytes `"resourceVersion":`, so where they are absent there
/// is none (a match elsewhere, inside a key, only costs a read of the
/// members). Stored objects hold none (`Storing` strips it).
fn may_hold_resource_version(json: &[u8]) -> bool {
    memchr::memmem::find(json, br#""resourceVersion":"#).is_some()
}

/// What label and field selectors read of an object: its name, namespace
/// and string labels.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Head {
    pub name: String,
    pub namespace: String,
    pub labels: std::collections::BTreeMap<String, String>,
}

#[derive(serde::Deserialize)]
struct HeadDoc<'a> {
    #[serde(borrow, default)]
    metadata: Option<MetaDoc<'a>>,
}

#[derive(serde::Deserialize)]
struct MetaDoc<'a> {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    namespace: Option<String>,
    #[serde(borrow, default)]
    labels: Option<&'a RawValue>,
}

/// The head of stored bytes, reading nothing else, as `meta::meta_str` and
/// `meta::labels` read it from the object a read shows (reads never change
/// them: no default applies under `metadata`, and pruning there drops only
/// nulls and unknown fields). None when it is not that simple (a name that
/// is not a string, say): then parse the object.
pub fn head(value: &[u8]) -> Option<Head> {
    let doc: HeadDoc = serde_json::from_slice(split_mark(value).0).ok()?;
    let Some(meta) = doc.metadata else { return Some(Head::default()) };
    let labels = match meta.labels {
        None => Default::default(),
        Some(raw) if raw.get() == "null" => Default::default(),
        Some(raw) => {
            let all: serde_json::Map<String, Value> = serde_json::from_str(raw.get()).ok()?;
            all.into_iter().filter_map(|(k, v)| v.as_str().map(|v| (k, v.to_string()))).collect()
        }
    };
    Some(Head { name: meta.name.unwrap_or_default(), namespace: meta.namespace.unwrap_or_default(), labels })
}

/// The `apiVersion` stored bytes record (the version an object was stored
/// at), read without parsing the rest into values.
pub fn api_version(value: &[u8]) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Doc {
        #[serde(rename = "apiVersion")]
        api_version: Option<String>,
    }
    serde_json::from_slice::<Doc>(split_mark(value).0).ok()?.api_version
}

mod cache;
mod convert;
pub mod mark;
mod scan;
mod spans;
pub use cache::Converted;
pub use convert::render_page;
use spans::{serde_spans, Members, Spans};

#[cfg(test)]
mod tests;
