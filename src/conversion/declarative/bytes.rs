//! The declarative engine over an object's JSON bytes: the same rules as
//! `Declarative::step` on a `Value`, applied to a tree that is parsed only
//! along the rules' paths (every other member stays the bytes it was), then
//! written out. For the common case (a stored object, compact as
//! serde_json writes it, no round-trip annotation, nothing set aside) it
//! answers byte for byte what converting the parsed object and serialising
//! it gives; anything else (an annotation to restore or to write, a failing
//! CEL rule) answers None, and the caller converts the `Value` instead.

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use serde::de::{Deserialize, Deserializer, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::path::RESERVED;
use super::shape::{Members, Node, Shape};
use crate::apimachinery::compact;
use crate::schema::Schema;

/// An array's items, unparsed, as serde's reader finds them.
struct RawItems<'a>(Vec<&'a RawValue>);

impl<'de> Deserialize<'de> for RawItems<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ItemsVisitor;
        impl<'de> Visitor<'de> for ItemsVisitor {
            type Value = RawItems<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON array")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<RawItems<'de>, A::Error> {
                let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(4));
                while let Some(item) = seq.next_element::<&'de RawValue>()? {
                    items.push(item);
                }
                Ok(RawItems(items))
            }
        }
        deserializer.deserialize_seq(ItemsVisitor)
    }
}

/// The object `raw` is, its members unparsed: a shape that descends
/// nowhere (the compact scan, else serde's reader). None when it is not
/// an object.
fn raw_object(raw: &str) -> Option<Node<'_>> {
    Shape::default().parse(raw)
}

/// The items of the array `raw`, unparsed: found by the compact scan, else
/// by serde's reader. None when it is not an array.
fn raw_items(raw: &str) -> Option<Vec<&str>> {
    let mut items = Vec::new();
    let mut spans = true;
    let scanned = compact::items(raw.as_bytes(), |span| match raw.get(span) {
        Some(item) => items.push(item),
        None => spans = false,
    });
    if scanned.is_some() && spans {
        return Some(items);
    }
    Some(serde_json::from_str::<RawItems>(raw).ok()?.0.into_iter().map(RawValue::get).collect())
}

impl<'a> Node<'a> {
    pub fn is_object(&self) -> bool {
        match self {
            Node::Raw(raw) => raw.starts_with('{'),
            Node::Object(_) => true,
            Node::Value(value) => value.is_object(),
            Node::Shared(computed) => computed.value.is_object(),
        }
    }

    /// The members of this node when it is an object, parsed one level.
    pub fn members(&mut self) -> Option<&mut Members<'a>> {
        if let Node::Raw(raw) = *self {
            if raw.starts_with('{') {
                *self = raw_object(raw)?;
            }
        }
        if let Node::Shared(computed) = self {
            if computed.value.is_object() {
                *self = Node::Value(computed.value.clone());
            }
        }
        if let Node::Value(Value::Object(map)) = self {
            let map = std::mem::take(map);
            *self = Node::Object(map.into_iter().map(|(k, v)| (Cow::Owned(k), Node::Value(v))).collect());
        }
        match self {
            Node::Object(members) => Some(members),
            _ => None,
        }
    }

    /// The members of this node, made an empty object first when it is
    /// not one (as `FieldPath::set` replaces a parent that is not).
    fn members_or_new(&mut self) -> &mut Members<'a> {
        if !self.is_object() {
            *self = Node::Object(Vec::new());
        }
        self.members().expect("made an object")
    }

    /// The member `name`, inserted (as null) at the end when missing (its
    /// name borrowed, as a rule's path lives as long as the page).
    fn entry<'m>(members: &'m mut Members<'a>, name: &'a str) -> &'m mut Node<'a> {
        let at = match members.iter().position(|(k, _)| k == name) {
            Some(at) => at,
            None => {
                members.push((Cow::Borrowed(name), Node::Value(Value::Null)));
                members.len() - 1
            }
        };
        &mut members[at].1
    }

    /// Sets the member `name`: in place when it is there, else at the end.
    pub fn insert(members: &mut Members<'a>, name: &'a str, node: Node<'a>) {
        *Self::entry(members, name) = node;
    }

    /// The value, parsed whole: None when raw bytes in it are not JSON
    /// (the compact scan finds values, it does not check them).
    pub fn into_value(self) -> Option<Value> {
        Some(match self {
            Node::Raw(raw) => serde_json::from_str(raw).ok()?,
            Node::Object(members) => Value::Object(
                members
                    .into_iter()
                    .map(|(k, v)| Some((k.into_owned(), v.into_value()?)))
                    .collect::<Option<Map<_, _>>>()?,
            ),
            Node::Value(value) => value,
            Node::Shared(computed) => Arc::try_unwrap(computed).map_or_else(|c| c.value.clone(), |c| c.value),
        })
    }

    /// The node's compact JSON, as serde_json writes the value.
    pub fn write(&self, out: &mut Vec<u8>) {
        match self {
            Node::Raw(raw) => out.extend_from_slice(raw.as_bytes()),
            Node::Value(value) => serde_json::to_writer(&mut *out, value).expect("JSON values serialize"),
            Node::Shared(computed) => out.extend_from_slice(computed.json.as_bytes()),
            Node::Object(members) => write_object(members, out, |_, node, out| node.write(out)),
        }
    }

    /// `write` of this object with `tail` (members' JSON) written after the
    /// last member of its member `name`, which must still be `raw`, an
    /// object's bytes as read. False, with nothing written, otherwise.
    pub fn write_appending(&self, name: &str, raw: &str, tail: &[u8], out: &mut Vec<u8>) -> bool {
        let Node::Object(members) = self else { return false };
        let unchanged = |node: &Node| matches!(node, Node::Raw(r) if std::ptr::eq(*r, raw));
        let Some(json) = raw.strip_suffix('}') else { return false };
        if !json.starts_with('{') || !members.iter().any(|(key, node)| key == name && unchanged(node)) {
            return false;
        }
        write_object(members, out, |key, node, out| {
            if key == name && unchanged(node) {
                out.extend_from_slice(json.as_bytes());
                if json.len() > 1 {
                    out.push(b',');
                }
                out.extend_from_slice(tail);
                out.push(b'}');
            } else {
                node.write(out);
            }
        });
        true
    }
}

/// An object's members written as JSON, each value by `value`.
fn write_object<'a>(members: &Members<'a>, out: &mut Vec<u8>, mut value: impl FnMut(&str, &Node<'a>, &mut Vec<u8>)) {
    out.push(b'{');
    for (i, (key, node)) in members.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        super::shape::write_key(key, out);
        out.push(b':');
        value(key, node, out);
    }
    out.push(b'}');
}

/// The node at `segments`, parsing the objects on the way.
pub fn get<'n, 'a>(node: &'n mut Node<'a>, segments: &[impl AsRef<str>]) -> Option<&'n mut Node<'a>> {
    segments
        .iter()
        .try_fold(node, |at, s| at.members()?.iter_mut().find(|(k, _)| k.as_ref() == s.as_ref()).map(|(_, v)| v))
}

/// `FieldPath::take`: removes the node at `segments` and the parents left
/// empty.
pub fn take<'a>(node: &mut Node<'a>, segments: &[String]) -> Option<Node<'a>> {
    let members = node.members()?;
    match segments {
        [last] => {
            let at = members.iter().position(|(k, _)| k == last)?;
            Some(members.remove(at).1)
        }
        [first, rest @ ..] => {
            let at = members.iter().position(|(k, _)| k == first)?;
            let taken = take(&mut members[at].1, rest)?;
            if matches!(&members[at].1, Node::Object(m) if m.is_empty()) {
                members.remove(at);
            }
            Some(taken)
        }
        [] => None,
    }
}

/// `FieldPath::remove`: removes the node at `segments`, leaving its parents.
pub fn remove<'a>(node: &mut Node<'a>, segments: &[String]) -> Option<Node<'a>> {
    let (last, parents) = segments.split_last()?;
    let members = get(node, parents)?.members()?;
    let at = members.iter().position(|(k, _)| k == last)?;
    Some(members.remove(at).1)
}

/// `FieldPath::parent_exists`.
pub fn parent_exists(node: &mut Node<'_>, segments: &[String]) -> bool {
    get(node, &segments[..segments.len() - 1]).is_some_and(|parent| parent.is_object())
}

/// `FieldPath::set`: creates the parents missing, replaces a parent that is
/// not an object.
pub fn set<'a>(node: &mut Node<'a>, segments: &'a [String], new: Node<'a>) {
    let (last, parents) = segments.split_last().expect("paths have a segment");
    let mut at = node;
    for segment in parents {
        at = Node::entry(at.members_or_new(), segment);
    }
    Node::insert(at.members_or_new(), last, new);
}

/// Whether `stash::set_aside` would set nothing aside of `node` under
/// `schema`: every field is one the schema holds.
pub fn holds(node: &Node<'_>, schema: &Schema, resource: bool) -> bool {
    match node {
        Node::Raw(raw) => match raw.as_bytes().first() {
            Some(b'{') => raw_object(raw).is_some_and(|object| holds(&object, schema, resource)),
            Some(b'[') => match schema.items.as_deref() {
                Some(sub) => raw_items(raw).is_some_and(|items| {
                    items.into_iter().all(|item| holds(&Node::Raw(item), sub, sub.embedded_resource))
                }),
                None => true,
            },
            _ => true,
        },
        Node::Object(members) => members
            .iter()
            .all(|(name, item)| holds_member(name, schema, resource, |sub| holds(item, sub, sub.embedded_resource))),
        Node::Value(value) => holds_value(value, schema, resource),
        Node::Shared(computed) => holds_value(&computed.value, schema, resource),
    }
}

fn holds_member(name: &str, schema: &Schema, resource: bool, below: impl FnOnce(&Schema) -> bool) -> bool {
    if resource && RESERVED.contains(&name) {
        return true;
    }
    match schema.entry(name) {
        Some(sub) => below(sub),
        None => schema.preserve_unknown_fields,
    }
}

fn holds_value(value: &Value, schema: &Schema, resource: bool) -> bool {
    match value {
        Value::Object(map) => map.iter().all(|(name, item)| {
            holds_member(name, schema, resource, |sub| holds_value(item, sub, sub.embedded_resource))
        }),
        Value::Array(items) => match schema.items.as_deref() {
            Some(sub) => items.iter().all(|item| holds_value(item, sub, sub.embedded_resource)),
            None => true,
        },
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::conversion::declarative::shape::Computed;

    /// A tail is written at the end of a member's bytes only while the
    /// member is those bytes, as read.
    #[test]
    fn a_tail_is_appended_to_an_unchanged_raw_member_only() {
        let json = r#"{"a":{"x":1},"e":{},"b":2}"#;
        let parsed = super::super::shape::Shape::default().parse(json).unwrap();
        fn raw<'a>(node: &Node<'a>, name: &str) -> &'a str {
            match node {
                Node::Object(members) => match members.iter().find(|(k, _)| k == name).map(|(_, v)| v) {
                    Some(Node::Raw(raw)) => raw,
                    _ => panic!("{name} is raw"),
                },
                _ => panic!("an object"),
            }
        }
        let (a, e, b) = (raw(&parsed, "a"), raw(&parsed, "e"), raw(&parsed, "b"));
        let mut out = Vec::new();
        assert!(parsed.write_appending("a", a, br#""t":1"#, &mut out));
        assert_eq!(String::from_utf8(out).unwrap(), r#"{"a":{"x":1,"t":1},"e":{},"b":2}"#);
        let mut out = Vec::new();
        assert!(parsed.write_appending("e", e, br#""t":1"#, &mut out));
        assert_eq!(String::from_utf8(out).unwrap(), r#"{"a":{"x":1},"e":{"t":1},"b":2}"#);
        // Not an object; another member's bytes; a member changed since.
        let mut out = Vec::new();
        assert!(!parsed.write_appending("b", b, br#""t":1"#, &mut out));
        assert!(!parsed.write_appending("e", a, br#""t":1"#, &mut out));
        let mut changed = parsed;
        let Node::Object(members) = &mut changed else { unreachable!() };
        members[0].1 = Node::Value(json!({"x": 1}));
        assert!(!changed.write_appending("a", a, br#""t":1"#, &mut out));
        assert!(out.is_empty(), "nothing is written when it is refused");
    }

    /// A shared value is read back as the value computed, not parsed from
    /// its JSON: serde_json's parser (without `float_roundtrip`) can read
    /// a printed double back one unit off, and the `Value` path never
    /// reads a computed value back at all.
    #[test]
    fn a_shared_value_reads_back_as_computed() {
        let double = Value::from(1.0 / 1.1);
        let printed = double.to_string();
        assert_ne!(serde_json::from_str::<Value>(&printed).unwrap(), double, "a double parsing does not give back");
        let node = Node::Shared(Computed::new(double.clone()));
        let mut out = Vec::new();
        node.write(&mut out);
        assert_eq!(out, printed.as_bytes());
        assert_eq!(node.into_value(), Some(double.clone()));
        let mut object = Node::Shared(Computed::new(json!({"a": double.clone()})));
        assert!(object.is_object());
        let members = object.members().expect("an object");
        assert_eq!(std::mem::replace(&mut members[0].1, Node::Value(Value::Null)).into_value(), Some(double));
    }
}
