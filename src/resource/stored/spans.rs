//! Where a stored object's top-level `apiVersion`, `kind` and `metadata`
//! values sit (`Spans`), as serde's reader finds them: members read only
//! until all three are found, keys borrowed unless escaped. The splice's
//! fallback where the structural scan (`scan.rs`) cannot tell.

use std::borrow::Cow;
use std::fmt;
use std::ops::Range;

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

/// A key of a JSON object, borrowed unless it has escapes.
pub(super) struct Key<'a>(pub(super) Cow<'a, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> std::result::Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> std::result::Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v.to_string())))
            }
        }
        deserializer.deserialize_str(KeyVisitor)
    }
}

/// The members of a JSON object in order, their values unparsed.
pub(super) struct Members<'a>(pub(super) Vec<(Key<'a>, &'a RawValue)>);

impl<'de> Deserialize<'de> for Members<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        struct MembersVisitor;
        impl<'de> Visitor<'de> for MembersVisitor {
            type Value = Members<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<Members<'de>, A::Error> {
                let mut members = Vec::with_capacity(map.size_hint().unwrap_or(8));
                while let Some(key) = map.next_key::<Key<'de>>()? {
                    members.push((key, map.next_value::<&'de RawValue>()?));
                }
                Ok(Members(members))
            }
        }
        deserializer.deserialize_map(MembersVisitor)
    }
}

/// Where the members `splice` reads sit in a stored object's JSON.
#[derive(Debug, Default, Clone, PartialEq)]
pub(super) struct Spans {
    pub(super) api_version: Option<Range<usize>>,
    pub(super) kind: Option<Range<usize>>,
    pub(super) metadata: Option<Range<usize>>,
}

impl Spans {
    /// Whether all three members are found.
    pub(super) fn complete(&self) -> bool {
        self.api_version.is_some() && self.kind.is_some() && self.metadata.is_some()
    }
}

/// Finds the top-level `apiVersion`, `kind` and `metadata` of `json`,
/// reading its members only until all three are found: what follows (the
/// spec and status, nearly all of an object) is not scanned.
struct SpansVisitor<'s> {
    base: usize,
    found: &'s std::cell::Cell<Option<Spans>>,
}

/// The error that ends the scan once all three members are found.
const FOUND: &str = "the members are found";

impl<'de> Visitor<'de> for SpansVisitor<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<(), A::Error> {
        let mut spans = Spans::default();
        while let Some(key) = map.next_key::<Key<'de>>()? {
            let value = map.next_value::<&'de RawValue>()?.get();
            let at = value.as_ptr() as usize - self.base;
            let slot = match &*key.0 {
                "apiVersion" => &mut spans.api_version,
                "kind" => &mut spans.kind,
                "metadata" => &mut spans.metadata,
                _ => continue,
            };
            slot.get_or_insert(at..at + value.len());
            if spans.complete() {
                self.found.set(Some(spans));
                return Err(serde::de::Error::custom(FOUND));
            }
        }
        self.found.set(Some(spans));
        Ok(())
    }
}

/// The spans of `json`'s top-level members as serde's reader finds them
/// (`scan::spans` answers the same faster, when it can tell); None when it
/// is not an object.
pub(super) fn serde_spans(json: &[u8]) -> Option<Spans> {
    let found = std::cell::Cell::new(None);
    // Ends in the FOUND error once all are found: the spans are set then,
    // and on reaching the end of the object; any other error leaves none.
    let _ = (&mut serde_json::Deserializer::from_slice(json))
        .deserialize_map(SpansVisitor { base: json.as_ptr() as usize, found: &found });
    found.take()
}
