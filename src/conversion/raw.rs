//! The Webhook strategy over JSON bytes: a review built by splicing each
//! object's JSON (no value per object), its response read with each
//! converted object left as bytes (`RawValue`), and only what Kubernetes'
//! `webhook_converter.go` checks read from them (apiVersion, kind, the
//! identity, metadata changed only in labels and annotations), through
//! borrowed views. The answer is each converted object with the original's
//! metadata but for labels and annotations, as `restore_object_meta` gives
//! it (JSON-equal to the `Value` path's).

use std::borrow::Cow;
use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

use crate::apimachinery::dns;

/// A key of a JSON object, borrowed unless it has escapes.
pub struct Key<'a>(pub Cow<'a, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v.to_string())))
            }
        }
        deserializer.deserialize_str(KeyVisitor)
    }
}

/// The members of a JSON object in order, their values unparsed.
pub struct Members<'a>(pub Vec<(Cow<'a, str>, &'a RawValue)>);

impl<'de> Deserialize<'de> for Members<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct MembersVisitor;
        impl<'de> Visitor<'de> for MembersVisitor {
            type Value = Members<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Members<'de>, A::Error> {
                Members::visit(map)
            }
        }
        deserializer.deserialize_map(MembersVisitor)
    }
}

impl<'de> Members<'de> {
    fn visit<A: MapAccess<'de>>(mut map: A) -> Result<Self, A::Error> {
        let mut members = Vec::with_capacity(map.size_hint().unwrap_or(8));
        while let Some(key) = map.next_key::<Key<'de>>()? {
            members.push((key.0, map.next_value::<&'de RawValue>()?));
        }
        Ok(Members(members))
    }
}

impl<'a> Members<'a> {
    /// The members of `raw`, None when it is not an object.
    pub fn of(raw: &'a RawValue) -> Option<Self> {
        Self::of_json(raw.get())
    }

    /// The members of the JSON value `text`, None when it is not an object.
    pub fn of_json(text: &'a str) -> Option<Self> {
        if !text.starts_with('{') {
            return None;
        }
        serde_json::from_str(text).ok()
    }

    /// The member `name` (the last, as a parsed map keeps it).
    pub fn get(&self, name: &str) -> Option<&'a RawValue> {
        self.0.iter().rev().find(|(k, _)| k == name).map(|(_, v)| *v)
    }

    /// The string member `name`, "" when it is missing or not a string.
    pub fn str(&self, name: &str) -> Cow<'a, str> {
        self.get(name).and_then(string).unwrap_or(Cow::Borrowed(""))
    }
}

/// The string `raw` holds, when it holds one.
pub fn string(raw: &RawValue) -> Option<Cow<'_, str>> {
    string_json(raw.get())
}

/// The string the JSON value `text` holds, when it holds one.
pub fn string_json(text: &str) -> Option<Cow<'_, str>> {
    if !text.starts_with('"') {
        return None;
    }
    serde_json::from_str::<Cow<'_, str>>(text).ok()
}

/// What the checks of a converted object read of its original: the
/// original's `kind` and its metadata's members.
pub struct Original<'a> {
    pub kind: Cow<'a, str>,
    pub meta: Members<'a>,
}

impl<'a> Original<'a> {
    /// What the checks read of the object whose members are `members`.
    pub fn of(members: &Members<'a>) -> Self {
        let meta = members.get("metadata").and_then(Members::of).unwrap_or_else(|| Members(Vec::new()));
        Self { kind: members.str("kind"), meta }
    }

    /// The same, from the JSON of the object's (last) `kind` and `metadata`
    /// members, found where the object was written (None when it has none).
    pub fn from_parts(kind: Option<&'a str>, metadata: Option<&'a str>) -> Self {
        Self {
            kind: kind.and_then(string_json).unwrap_or(Cow::Borrowed("")),
            meta: metadata.and_then(Members::of_json).unwrap_or_else(|| Members(Vec::new())),
        }
    }
}

/// A JSON value's type as Go's `%T` shows its decoded form.
pub fn type_name(raw: &RawValue) -> &'static str {
    match raw.get().as_bytes().first() {
        Some(b'n') => "<nil>",
        Some(b't' | b'f') => "bool",
        Some(b'"') => "string",
        Some(b'[') => "[]interface {}",
        Some(b'{') => "map[string]interface {}",
        _ => "int64",
    }
}

/// Why a converted object was refused: its identity (Kubernetes' "invalid
/// converted object") or its metadata ("invalid metadata").
#[derive(Debug, PartialEq)]
pub enum Refused {
    Object(String),
    Metadata(String),
}

/// `check_converted` then `restore_object_meta` of one converted object,
/// reading the converted object and each metadata once (the answer is
/// most of a webhook list's bytes, and each read of it scans it whole).
pub fn check_and_restore(original: &Original<'_>, converted: &RawValue, desired: &str) -> Result<Vec<u8>, Refused> {
    check_and_restore_json(original, converted.get(), desired)
}

/// A converted object as an answer is read: an object's members (read
/// with the answer, in the same pass), or anything else.
pub enum Converted<'a> {
    Object(Members<'a>),
    Other,
}

impl<'de> Deserialize<'de> for Converted<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ConvertedVisitor;
        impl<'de> Visitor<'de> for ConvertedVisitor {
            type Value = Converted<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Converted<'de>, A::Error> {
                Members::visit(map).map(Converted::Object)
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Converted<'de>, A::Error> {
                while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
                Ok(Converted::Other)
            }
            fn visit_bool<E>(self, _: bool) -> Result<Converted<'de>, E> {
                Ok(Converted::Other)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Converted<'de>, E> {
                Ok(Converted::Other)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Converted<'de>, E> {
                Ok(Converted::Other)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Converted<'de>, E> {
                Ok(Converted::Other)
            }
            fn visit_str<E>(self, _: &str) -> Result<Converted<'de>, E> {
                Ok(Converted::Other)
            }
            fn visit_unit<E>(self) -> Result<Converted<'de>, E> {
                Ok(Converted::Other)
            }
        }
        deserializer.deserialize_any(ConvertedVisitor)
    }
}

/// `check_and_restore` of the JSON value `converted` (JSON as serde_json
/// read it: not checked again).
pub fn check_and_restore_json(original: &Original<'_>, converted: &str, desired: &str) -> Result<Vec<u8>, Refused> {
    match Members::of_json(converted) {
        Some(members) => check_and_restore_converted(original, &Converted::Object(members), desired),
        None => check_and_restore_converted(original, &Converted::Other, desired),
    }
}

/// `check_and_restore` of a converted object read with its answer.
pub fn check_and_restore_converted(
    original: &Original<'_>,
    converted: &Converted<'_>,
    desired: &str,
) -> Result<Vec<u8>, Refused> {
    let Converted::Object(converted) = converted else {
        return Err(Refused::Object("converted object is not a JSON object".into()));
    };
    let converted_meta_raw = converted.get("metadata");
    let converted_meta = converted_meta_raw.and_then(Members::of);
    check_identity(original, converted, converted_meta.as_ref(), desired).map_err(Refused::Object)?;
    let response = match (converted_meta_raw, converted_meta) {
        (None, _) => return Err(Refused::Metadata("missing metadata in converted object".into())),
        (Some(raw), None) => {
            let cause = format!("invalid metadata of type {} in converted object", type_name(raw));
            return Err(Refused::Metadata(cause));
        }
        (Some(_), Some(meta)) => meta,
    };
    restore(&original.meta, converted, &response).map_err(Refused::Metadata)
}

/// `check_converted` over bytes: the converted object's apiVersion, kind
/// and identity against the original's (the first half of
/// `check_and_restore`, apart, for the tests that hold it to the `Value`
/// path's).
#[cfg(test)]
pub fn check_converted(original: &Members<'_>, converted: &RawValue, desired: &str) -> Result<(), String> {
    let Some(converted) = Members::of(converted) else {
        return Err("converted object is not a JSON object".into());
    };
    let converted_meta = converted.get("metadata").and_then(Members::of);
    check_identity(&Original::of(original), &converted, converted_meta.as_ref(), desired)
}

/// The checks of `check_converted`, over the objects and their metadata
/// already read.
fn check_identity(
    original: &Original<'_>,
    converted: &Members<'_>,
    converted_meta: Option<&Members<'_>>,
    desired: &str,
) -> Result<(), String> {
    let got = converted.str("apiVersion");
    if got != desired {
        return Err(format!("invalid groupVersion (expected {desired}, received {got})"));
    }
    let (expected, got) = (&*original.kind, converted.str("kind"));
    if expected != got {
        return Err(format!("invalid kind (expected {expected}, received {got})"));
    }
    let empty = Members(Vec::new());
    let converted_meta = converted_meta.unwrap_or(&empty);
    for (key, word) in [("name", "name"), ("namespace", "namespace"), ("uid", "UID")] {
        let (e, a) = (original.meta.str(key), converted_meta.str(key));
        if e != a {
            return Err(format!("must have the same {word}: {e} != {a}"));
        }
    }
    Ok(())
}

/// A string map's members, decoded, in order.
type StringMap<'a> = Vec<(Cow<'a, str>, Cow<'a, str>)>;

/// The string map `raw` holds (labels, annotations), or the error of its
/// first member that is not a string, in Kubernetes' words.
fn string_map<'a>(raw: &'a RawValue, field: &str) -> Result<StringMap<'a>, String> {
    let Some(members) = Members::of(raw) else {
        return Err(format!("invalid metadata.{field} of type {} in converted object", type_name(raw)));
    };
    members
        .0
        .into_iter()
        .map(|(key, value)| match string(value) {
            Some(text) => Ok((key, text)),
            None => Err(format!(
                "metadata.{field}[{key}] must be a string, but is {} in converted object",
                type_name(value)
            )),
        })
        .collect()
}

/// `restore_object_meta` over bytes: the converted object (checked by
/// `check_converted`) written with the original's metadata, but for labels
/// and annotations, which are the converted object's (checked when they
/// changed). The second half of `check_and_restore`, apart, for tests.
#[cfg(test)]
pub fn restore_object_meta(original: &Members<'_>, converted: &RawValue) -> Result<Vec<u8>, String> {
    let converted = Members::of(converted).ok_or("converted object is not a JSON object")?;
    let response = match converted.get("metadata") {
        None => return Err("missing metadata in converted object".into()),
        Some(raw) => Members::of(raw)
            .ok_or_else(|| format!("invalid metadata of type {} in converted object", type_name(raw)))?,
    };
    restore(&Original::of(original).meta, &converted, &response)
}

/// `restore_object_meta` over the objects and metadata already read:
/// `original_meta` the original's metadata, `response` the converted
/// object's.
fn restore(original_meta: &Members<'_>, converted: &Members<'_>, response: &Members<'_>) -> Result<Vec<u8>, String> {
    let mut restored: Vec<(Cow<'_, str>, Cow<'_, str>)> =
        original_meta.0.iter().map(|(k, v)| (Cow::Borrowed(&**k), Cow::Borrowed(v.get()))).collect();
    for field in ["labels", "annotations"] {
        let theirs_raw = match response.get(field) {
            None => None,
            Some(raw) if raw.get() == "null" => None,
            Some(raw) => Some(raw),
        };
        let Some(theirs_raw) = theirs_raw else {
            restored.retain(|(k, _)| k != field);
            continue;
        };
        let theirs = string_map(theirs_raw, field)?;
        let ours_raw = restored.iter().rev().find(|(k, _)| k == field).map(|(_, v)| v.clone());
        let ours: Vec<(Cow<'_, str>, Cow<'_, str>)> = match ours_raw.as_deref() {
            Some(text) if text.starts_with('{') => serde_json::from_str::<Members>(text)
                .map(|m| m.0.into_iter().filter_map(|(k, v)| Some((k, string(v)?))).collect())
                .unwrap_or_default(),
            _ => Vec::new(),
        };
        let mut changed = ours.len() != theirs.len();
        for (key, value) in &theirs {
            changed |= ours.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v) != Some(value);
        }
        if changed {
            let mut problems = Vec::new();
            let path = if field == "labels" { "metadata.labels" } else { "metadata.annotation" };
            for (key, value) in &theirs {
                for problem in dns::qualified_name(key) {
                    problems.push(format!("{path}: Invalid value: {key:?}: {problem}"));
                }
                if field == "labels" {
                    for problem in dns::label_value(value) {
                        problems.push(format!("{path}: Invalid value: {value:?}: {problem}"));
                    }
                }
            }
            match problems.len() {
                0 => {}
                1 => return Err(problems.remove(0)),
                _ => return Err(format!("[{}]", problems.join(", "))),
            }
        }
        let text = Cow::Borrowed(theirs_raw.get());
        match restored.iter_mut().find(|(k, _)| k == field) {
            Some(slot) => slot.1 = text,
            None => restored.push((Cow::Borrowed(field), text)),
        }
    }
    let mut out = Vec::with_capacity(converted.0.iter().map(|(_, v)| v.get().len() + 16).sum::<usize>() + 64);
    out.push(b'{');
    for (i, (key, value)) in converted.0.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_key(&mut out, key);
        if key == "metadata" {
            out.push(b'{');
            for (j, (key, value)) in restored.iter().enumerate() {
                if j > 0 {
                    out.push(b',');
                }
                write_key(&mut out, key);
                out.extend_from_slice(value.as_bytes());
            }
            out.push(b'}');
        } else {
            out.extend_from_slice(value.get().as_bytes());
        }
    }
    out.push(b'}');
    Ok(out)
}

fn write_key(out: &mut Vec<u8>, key: &str) {
    serde_json::to_writer(&mut *out, key).expect("strings serialize");
    out.push(b':');
}
