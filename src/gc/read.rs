//! What the collector reads of a stored object: the members of its metadata
//! that a node is made of, each parsed as it is, with everything else
//! (`spec`, `status`, `managedFields`, labels, the other annotations)
//! skipped by the parser instead of built. The collector follows every
//! write, so this parse is on the path of every create and update; for
//! most objects (no owners, no finalizers, not being deleted) it ends
//! there, without making the node the graph would not keep.

use std::fmt;

use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::{Map, Value};

use super::graph::{Node, WAITING_FOR};
use crate::storage::KeyValue;

/// The node of a stored object, when it is one (`Node::from_object` of its
/// metadata's members that a node reads).
pub fn node_of(kv: &KeyValue) -> Option<Node> {
    Node::from_object(&kv.key, &metadata(kv)?.into_object(), kv.mod_revision)
}

/// `node_of`, when the graph keeps the node (`Node::kept`).
pub fn kept_node_of(kv: &KeyValue) -> Option<Node> {
    let metadata = metadata(kv).filter(Metadata::may_be_kept)?;
    Node::from_object(&kv.key, &metadata.into_object(), kv.mod_revision).filter(Node::kept)
}

fn metadata(kv: &KeyValue) -> Option<Metadata> {
    let (json, _) = crate::resource::stored::split_mark(&kv.value);
    serde_json::from_slice::<Stored>(json).ok()?.metadata
}

#[derive(Deserialize)]
struct Stored {
    #[serde(default)]
    metadata: Option<Metadata>,
}

/// The members `Node::from_object` reads; a missing one is null, which it
/// reads as missing.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Metadata {
    #[serde(default)]
    uid: Value,
    #[serde(default)]
    name: Value,
    #[serde(default)]
    namespace: Value,
    #[serde(default)]
    owner_references: Value,
    #[serde(default)]
    deletion_timestamp: Value,
    #[serde(default)]
    finalizers: Value,
    #[serde(default)]
    annotations: Note,
}

impl Metadata {
    /// False when the node would not be kept: no owner reference that is an
    /// object, no finalizer that is a string, no deletionTimestamp.
    fn may_be_kept(&self) -> bool {
        let any =
            |value: &Value, what: fn(&Value) -> bool| value.as_array().is_some_and(|items| items.iter().any(what));
        any(&self.owner_references, Value::is_object)
            || any(&self.finalizers, Value::is_string)
            || !self.deletion_timestamp.is_null()
    }

    /// `{"metadata": {...}}` with the members read, as `Node::from_object`
    /// takes an object.
    fn into_object(self) -> Value {
        let mut metadata = Map::new();
        let members = [
            ("uid", self.uid),
            ("name", self.name),
            ("namespace", self.namespace),
            ("ownerReferences", self.owner_references),
            ("deletionTimestamp", self.deletion_timestamp),
            ("finalizers", self.finalizers),
        ];
        for (name, value) in members {
            if !value.is_null() {
                metadata.insert(name.to_string(), value);
            }
        }
        if let Some(note) = self.annotations.0 {
            metadata.insert("annotations".to_string(), serde_json::json!({ WAITING_FOR: note }));
        }
        Value::Object(std::iter::once(("metadata".to_string(), Value::Object(metadata))).collect())
    }
}

/// Of the annotations, only the collector's own note (`WAITING_FOR`), as
/// it is; the others are skipped. Annotations that are not an object read
/// as none, as a pointer into them would.
#[derive(Default)]
struct Note(Option<Value>);

impl<'de> Deserialize<'de> for Note {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct NoteVisitor;
        impl<'de> Visitor<'de> for NoteVisitor {
            type Value = Note;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("annotations")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Note, A::Error> {
                let mut note = None;
                while let Some(IsNote(is_note)) = map.next_key()? {
                    if is_note {
                        note = Some(map.next_value::<Value>()?);
                    } else {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
                Ok(Note(note))
            }
            fn visit_unit<E>(self) -> Result<Note, E> {
                Ok(Note(None))
            }
            fn visit_bool<E>(self, _: bool) -> Result<Note, E> {
                Ok(Note(None))
            }
            fn visit_i64<E>(self, _: i64) -> Result<Note, E> {
                Ok(Note(None))
            }
            fn visit_u64<E>(self, _: u64) -> Result<Note, E> {
                Ok(Note(None))
            }
            fn visit_f64<E>(self, _: f64) -> Result<Note, E> {
                Ok(Note(None))
            }
            fn visit_str<E>(self, _: &str) -> Result<Note, E> {
                Ok(Note(None))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Note, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Note(None))
            }
        }
        deserializer.deserialize_any(NoteVisitor)
    }
}

/// Whether an annotation's key is `WAITING_FOR`, read without copying it.
struct IsNote(bool);

impl<'de> Deserialize<'de> for IsNote {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl Visitor<'_> for KeyVisitor {
            type Value = IsNote;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_str<E>(self, key: &str) -> Result<IsNote, E> {
                Ok(IsNote(key == WAITING_FOR))
            }
        }
        deserializer.deserialize_str(KeyVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::Revision;
    use serde_json::json;

    fn stored(obj: &Value, marked: bool) -> KeyValue {
        let mut value = serde_json::to_vec(obj).unwrap();
        if marked {
            // A mark as stored: a newline, then 32 whitespace symbols.
            value.push(b'\n');
            value.extend(b" \t\r\n".repeat(8));
        }
        KeyValue {
            key: "/registry/example.com/widgets/ns/w".into(),
            value: value.into(),
            create_revision: Revision::new(1),
            mod_revision: Revision::new(9),
        }
    }

    /// Every object gives the node that `Node::from_object` gives of the
    /// whole object parsed, however its metadata's members are shaped, and
    /// the graph keeps it exactly when it keeps that node.
    #[test]
    fn a_node_is_what_the_whole_object_gives() {
        let owner = json!({"apiVersion": "example.com/v1", "kind": "Widget", "name": "o", "uid": "u1",
                           "controller": true, "blockOwnerDeletion": true});
        let objects = [
            json!({"metadata": {"uid": "a", "name": "w", "namespace": "ns", "ownerReferences": [owner, 3],
                                "finalizers": ["foregroundDeletion", 5], "deletionTimestamp": "2026-01-01T00:00:00Z",
                                "annotations": {"x": {"deep": [1]}, WAITING_FOR: "2 dependents", "y": "z"},
                                "managedFields": [{"manager": "m", "fieldsV1": {"f:spec": {}}}],
                                "labels": {"a": "b"}},
                   "spec": {"metadata": {"uid": "not this one"}}}),
            json!({"metadata": {"uid": "a", "name": "w", "deletionTimestamp": null, "finalizers": "no",
                                "ownerReferences": {"not": "a list"}, "annotations": {WAITING_FOR: 4}}}),
            json!({"metadata": {"uid": "a", "annotations": null}}),
            json!({"metadata": {"uid": "c", "finalizers": [5, "f"]}}),
            json!({"metadata": {"uid": "d", "ownerReferences": [3, {"uid": "o"}]}}),
            json!({"metadata": {"uid": "e", "deletionTimestamp": 0}}),
            json!({"metadata": {"uid": "f", "ownerReferences": [3], "finalizers": [5], "deletionTimestamp": null}}),
            json!({"metadata": {"uid": "a", "annotations": ["x"], "name": 3}}),
            json!({"metadata": {"uid": "a", "annotations": "x"}}),
            json!({"metadata": {"uid": "", "finalizers": ["f"]}}),
            json!({"metadata": {"uid": 12, "finalizers": ["f"]}}),
            json!({"metadata": {"name": "no uid", "finalizers": ["f"]}}),
            json!({"metadata": null}),
            json!({"metadata": "text"}),
            json!({"spec": {}}),
            json!({"kind": "Widget", "metadata": {"uid": "b", "name": "w\u{e9}\"q", "namespace": "ns"}}),
        ];
        let (mut nodes, mut kept) = (0, 0);
        for obj in &objects {
            let whole = Node::from_object("/registry/example.com/widgets/ns/w", obj, Revision::new(9));
            nodes += usize::from(whole.is_some());
            let whole_kept = whole.clone().filter(Node::kept);
            kept += usize::from(whole_kept.is_some());
            for marked in [false, true] {
                assert_eq!(node_of(&stored(obj, marked)), whole, "{obj}");
                assert_eq!(kept_node_of(&stored(obj, marked)), whole_kept, "{obj}");
            }
        }
        assert_eq!((nodes, kept), (10, 4), "the objects with a uid, and those kept");
    }
}
