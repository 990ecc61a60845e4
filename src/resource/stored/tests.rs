//! The stored form: marks, rendering from stored bytes against the full
//! parse, the reply of a write, and the heads selectors read.

use serde_json::{json, Value};

use super::mark::fingerprint;
use super::*;
use crate::storage::Revision;

/// A definition serving `v1` (storage) and `v2`, whose storage schema is
/// `schema`.
fn served(schema: Value) -> Served {
    let version = |name: &str, storage: bool| json!({"name": name, "served": true, "storage": storage, "schema": {"openAPIV3Schema": schema.clone()}});
    let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced",
                 "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
                 "versions": [version("v1", true), version("v2", false)]},
        "status": {"acceptedNames": {"plural": "widgets", "kind": "Widget"},
                   "conditions": [{"type": "Established", "status": "True",
                                   "lastTransitionTime": "2026-01-01T00:00:00Z"}]}});
    Served::from_definition(&serde_json::from_value(crd).unwrap(), Revision::new(1)).unwrap()
}

fn schema(with_default: bool) -> Value {
    let mut replicas = json!({"type": "integer"});
    if with_default {
        replicas["default"] = json!(3);
    }
    json!({"type": "object", "properties": {
        "spec": {"type": "object", "properties": {"replicas": replicas, "data": {"type": "string"},
                 "weird \"key\"\n": {"type": "number"}, "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}}})
}

fn kv(value: Vec<u8>, revision: i64) -> KeyValue {
    KeyValue {
        key: "/registry/example.com/widgets/ns/w".into(),
        value: value.into(),
        create_revision: Revision::new(revision),
        mod_revision: Revision::new(revision),
    }
}

fn objects() -> Vec<Value> {
    vec![
        json!({"apiVersion": "example.com/v1", "kind": "Widget",
               "metadata": {"name": "w", "namespace": "ns", "uid": "u", "labels": {"a": "b", "é\"": "x"}, "generation": 1},
               "spec": {"replicas": 2, "data": "ünïcødé \u{1} \"quoted\" \\ /", "weird \"key\"\n": 1.5e300,
                        "free": {"z": [1, -0.0, 1e-7, 18446744073709551615u64, -9223372036854775808i64, null, true]}}}),
        json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {}, "spec": {"replicas": 1}}),
        json!({"metadata": {"name": "w", "resourceVersion": "7"}, "kind": "Widget", "apiVersion": "example.com/v1",
               "spec": {"replicas": 0}}),
        // The spec before both members, resourceVersion not last.
        json!({"spec": {"replicas": 3, "data": "{\"apiVersion\":\"x\",\"metadata\":{}}"}, "apiVersion": "example.com/v1",
               "metadata": {"resourceVersion": "3", "name": "x"}, "kind": "Widget"}),
        // resourceVersion only deeper, as a key and inside strings: the
        // metadata's own is appended.
        json!({"apiVersion": "example.com/v1", "kind": "Widget",
               "metadata": {"name": "d", "labels": {"resourceVersion": "5"},
                            "annotations": {"last": "{\"metadata\":{\"resourceVersion\":\"4\"}}",
                                            "quoted": "\"resourceVersion\":"}}}),
    ]
}

#[test]
fn marks_round_trip_and_plain_json_has_none() {
    for mark in [0, 1, u64::MAX, 0x0123_4567_89ab_cdef] {
        let mut bytes = b"{\"a\":1}".to_vec();
        append_mark(&mut bytes, mark);
        assert_eq!(split_mark(&bytes), (&b"{\"a\":1}"[..], Some(mark)));
        let parsed: Value = serde_json::from_slice(&bytes).expect("a mark is JSON whitespace");
        assert_eq!(parsed, json!({"a": 1}));
    }
    for plain in [&b"{\"a\":1}"[..], b"{}", b"", b"{\"a\":\"                                  \"}"] {
        assert_eq!(split_mark(plain), (plain, None));
    }
    assert_ne!(fingerprint(Some("{}")), fingerprint(None));
    assert_ne!(fingerprint(Some("{\"a\":1}")), fingerprint(Some("{\"a\":2}")));
}

#[test]
fn rendering_from_marked_bytes_is_byte_for_byte_the_full_parse() {
    let served = served(schema(true));
    for obj in objects() {
        let mut storing = Storing::new(&served, &obj);
        let bytes = storing.take_bytes(None);
        assert_eq!(split_mark(&bytes).1, Some(served.storage_mark), "{obj}");
        let stored = kv(bytes, 42);
        for version in ["v1", "v2"] {
            let full = serde_json::to_vec(&from_stored(&served, version, &stored).unwrap()).unwrap();
            let spliced = splice(split_mark(&stored.value).0, &served.api_version(version), stored.mod_revision);
            assert_eq!(spliced.as_deref(), Some(&full[..]), "{obj} at {version}");
            assert_eq!(render(&served, version, &stored).unwrap(), full);
        }
        let answer = storing.into_object(&served, "v2", Revision::new(42));
        assert_eq!(answer, from_stored(&served, "v2", &stored).unwrap());
        assert_eq!(serde_json::to_vec(&answer).unwrap(), render(&served, "v2", &stored).unwrap());
    }
}

#[test]
fn splicing_says_where_it_wrote_the_kind_and_metadata() {
    for obj in objects() {
        let json = serde_json::to_vec(&obj).unwrap();
        // After something already in the buffer: spans count from the object.
        let mut out = b"[".to_vec();
        let written = splice_into(&json, "example.com/v2", Revision::new(12), &mut out).expect("spliced");
        let object = &out[1..];
        let found = crate::conversion::page::Parts::find(object);
        assert_eq!((written.kind.clone(), Some(written.metadata.clone())), (found.kind, found.metadata), "{obj}");
        let metadata: Value = serde_json::from_slice(&object[written.metadata]).unwrap();
        assert_eq!(metadata["resourceVersion"], "12", "{obj}");
        assert_eq!(&object[written.kind.unwrap()], br#""Widget""#);
    }
}

#[test]
fn splicing_needs_both_members_and_well_formed_json_up_to_them() {
    let revision = Revision::new(9);
    assert_eq!(splice(br#"{"apiVersion":"a/v1","kind":"K"}"#, "a/v2", revision), None);
    assert_eq!(splice(br#"{"metadata":{},"kind":"K"}"#, "a/v2", revision), None);
    assert_eq!(splice(br#"{"spec":{"a":,"apiVersion":"a/v1","metadata":{}}"#, "a/v2", revision), None);
    assert_eq!(splice(br#"[1]"#, "a/v2", revision), None);
    assert_eq!(splice(br#"{"apiVersion":"a/v1","metadata":"{}"}"#, "a/v2", revision), None);
    assert_eq!(splice(br#"{"apiVersion":"a/v1","metadata":["resourceVersion"]}"#, "a/v2", revision), None);
    // What follows both members is copied, not read.
    assert_eq!(
        splice(br#"{"apiVersion":"a/v1","metadata":{"name":"n"},"spec":{"x":1}}"#, "a/v2", revision).as_deref(),
        Some(&br#"{"apiVersion":"a/v2","metadata":{"name":"n","resourceVersion":"9"},"spec":{"x":1}}"#[..])
    );
}

#[test]
fn splicing_replaces_the_metadatas_own_resource_version_only() {
    let revision = Revision::new(9);
    let cases: [(&[u8], &[u8]); 4] = [
        (
            br#"{"apiVersion":"a/v1","metadata":{"resourceVersion":"3","name":"n"}}"#,
            br#"{"apiVersion":"a/v2","metadata":{"resourceVersion":"9","name":"n"}}"#,
        ),
        (
            br#"{"apiVersion":"a/v1","metadata":{"labels":{"resourceVersion":"5"}}}"#,
            br#"{"apiVersion":"a/v2","metadata":{"labels":{"resourceVersion":"5"},"resourceVersion":"9"}}"#,
        ),
        (
            br#"{"apiVersion":"a/v1","metadata":{"annotations":{"a":"\"resourceVersion\":\"5\""}}}"#,
            br#"{"apiVersion":"a/v2","metadata":{"annotations":{"a":"\"resourceVersion\":\"5\""},"resourceVersion":"9"}}"#,
        ),
        (br#"{"apiVersion":"a/v1","metadata":{}}"#, br#"{"apiVersion":"a/v2","metadata":{"resourceVersion":"9"}}"#),
    ];
    for (json, spliced) in cases {
        assert_eq!(splice(json, "a/v2", revision).as_deref(), Some(spliced), "{}", String::from_utf8_lossy(json));
    }
}

#[test]
fn objects_a_read_would_change_are_stored_unmarked_and_read_in_full() {
    let served = served(schema(true));
    // Written at a version whose schema knew `extra` and had no default.
    let obj = json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"},
                     "spec": {"extra": 1}});
    let mut storing = Storing::new(&served, &obj);
    let stored = kv(storing.take_bytes(None), 5);
    assert_eq!(split_mark(&stored.value).1, None);
    let read = from_stored(&served, "v1", &stored).unwrap();
    assert_eq!(read["spec"], json!({"replicas": 3}), "pruned and defaulted on read");
    assert_eq!(render(&served, "v1", &stored).unwrap(), serde_json::to_vec(&read).unwrap());
    assert_eq!(storing.into_object(&served, "v1", Revision::new(5)), read);
    // A default alone, and a null label alone (pruned without a path), are
    // changes a read would make too.
    for (metadata, spec) in
        [(json!({"name": "w"}), json!({})), (json!({"name": "w", "labels": null}), json!({"replicas": 3}))]
    {
        let obj = json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": metadata, "spec": spec});
        let stored = kv(Storing::new(&served, &obj).take_bytes(None), 6);
        assert_eq!(split_mark(&stored.value).1, None, "{obj}");
        let read = from_stored(&served, "v1", &stored).unwrap();
        assert_eq!(render(&served, "v1", &stored).unwrap(), serde_json::to_vec(&read).unwrap());
    }
}

#[test]
fn a_schema_change_since_the_write_is_read_in_full() {
    let before = served(schema(false));
    let after = served(schema(true));
    assert_ne!(before.storage_mark, after.storage_mark);
    let obj = json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": {}});
    let stored = kv(Storing::new(&before, &obj).take_bytes(None), 9);
    let rendered: Value = serde_json::from_slice(&render(&after, "v2", &stored).unwrap()).unwrap();
    assert_eq!(rendered["spec"], json!({"replicas": 3}), "the new default shows");
    assert_eq!(rendered["apiVersion"], "example.com/v2");
    assert_eq!(rendered["metadata"]["resourceVersion"], "9");
    // Bytes an older version stored, with no mark, read as before.
    let old = kv(serde_json::to_vec(&obj).unwrap(), 9);
    assert_eq!(
        render(&after, "v1", &old).unwrap(),
        serde_json::to_vec(&from_stored(&after, "v1", &old).unwrap()).unwrap()
    );
}

#[test]
fn a_write_of_the_same_json_keeps_the_current_bytes() {
    let served = served(schema(true));
    let obj = objects().remove(0);
    let unmarked = kv(
        serde_json::to_vec(&{
            let mut o = obj.clone();
            meta::strip_resource_version(&mut o);
            o
        })
        .unwrap(),
        3,
    );
    let mut storing = Storing::new(&served, &obj);
    assert_eq!(storing.take_bytes(Some(&unmarked)), unmarked.value.to_vec());
    let changed = kv(b"{}".to_vec(), 3);
    let mut storing = Storing::new(&served, &obj);
    assert_eq!(split_mark(&storing.take_bytes(Some(&changed))).1, Some(served.storage_mark));
}

#[test]
fn heads_read_what_selectors_read_from_the_object() {
    let cases = [
        json!({"metadata": {"name": "n", "namespace": "s", "labels": {"a": "1", "b": 2, "c": null}}}),
        json!({"metadata": {"name": "n", "labels": null}}),
        json!({"metadata": null}),
        json!({"kind": "X"}),
        json!({"metadata": {"name": "n\"é", "annotations": {"labels": "x"}, "labels": {}}, "labels": {"z": "z"}}),
    ];
    for obj in cases {
        let head = head(&serde_json::to_vec(&obj).unwrap()).expect("a simple head");
        assert_eq!(head.labels, meta::labels(&obj), "{obj}");
        assert_eq!(head.name, meta::meta_str(&obj, "name"), "{obj}");
        assert_eq!(head.namespace, meta::meta_str(&obj, "namespace"), "{obj}");
    }
    assert_eq!(head(br#"{"metadata": {"name": 5}}"#), None, "parsed in full instead");
    assert_eq!(head(br#"{"metadata": {"labels": "x"}}"#), None);
    assert_eq!(head(b"not json"), None);
}

#[test]
fn the_stored_api_version_is_read_from_the_bytes() {
    assert_eq!(api_version(br#"{"apiVersion":"g/v1","spec":{"a":[1]}}"#).as_deref(), Some("g/v1"));
    assert_eq!(api_version(br#"{"kind":"X"}"#), None);
}
