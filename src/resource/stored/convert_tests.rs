//! The byte paths of a converting page against the `Value` path: the same
//! bytes (declarative) for every case the fast path takes and every case
//! it hands back.

use std::sync::Arc;

use serde_json::{json, Value};

use super::*;
use crate::resource::stored::Storing;
use crate::storage::Revision;

/// Widgets v1 and v2 under the Declarative strategy (v1 -> v2: a rename, a
/// move to another parent, a default and a CEL rule each way), stored at
/// `storage`; `v2_default` gives v2's schema a default of its own.
fn served(storage: &str, v2_default: bool) -> Arc<Served> {
    let (int, string) = (json!({"type": "integer"}), json!({"type": "string"}));
    let schema = |spec: Value| json!({"openAPIV3Schema": {"type": "object", "properties": {"spec": {"type": "object", "properties": spec}}}});
    let mut region = string.clone();
    if v2_default {
        region["default"] = json!("eu");
    }
    let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced",
                 "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
                 "conversion": {"strategy": "Declarative"},
                 "versions": [
            {"name": "v1", "served": true, "storage": storage == "v1",
             "schema": schema(json!({"hostPort": string, "replicas": int, "data": string, "legacy": string})),
             "conversion": {"declarative": {"v2": {"rules": [
                 {"rename": {"from": ".spec.hostPort", "to": ".spec.endpoint"}},
                 {"rename": {"from": ".spec.replicas", "to": ".spec.scaling.replicas"}},
                 {"default": {"path": ".spec.tier", "value": "gold"}},
                 {"cel": {"from": ".spec.data", "to": ".spec.payload",
                          "forward": "'b:' + self", "backward": "self.substring(2)"}}]}}}},
            {"name": "v2", "served": true, "storage": storage == "v2",
             "schema": schema(json!({"endpoint": string, "tier": string, "payload": string, "region": region,
                                     "scaling": {"type": "object", "properties": {"replicas": int}}}))}]},
        "status": {"acceptedNames": {"plural": "widgets", "kind": "Widget"},
                   "conditions": [{"type": "Established", "status": "True",
                                   "lastTransitionTime": "2026-01-01T00:00:00Z"}]}});
    Arc::new(Served::from_definition(&serde_json::from_value(crd).unwrap(), Revision::new(1)).unwrap())
}

/// `obj` stored as a write leaves it (marked), at revision `at`.
fn stored(served: &Served, obj: &Value, at: i64) -> KeyValue {
    let mut storing = Storing::new(served, obj);
    KeyValue {
        key: format!("/registry/example.com/widgets/ns/w{at}").into(),
        value: storing.take_bytes(None).into(),
        create_revision: Revision::new(at),
        mod_revision: Revision::new(at),
    }
}

/// What the `Value` path answers for a page.
async fn slow(served: &Served, version: &str, kvs: &[KeyValue]) -> Result<Vec<Vec<u8>>> {
    let objects = kvs.iter().map(|kv| at_storage(served, kv)).collect::<Result<Vec<_>>>()?;
    let out = convert_read(served, version, objects, true).await?;
    Ok(out.iter().map(|o| serde_json::to_vec(o).unwrap()).collect())
}

fn meta(name: &str) -> Value {
    json!({"name": name, "namespace": "ns", "uid": "u", "labels": {"app": "x"}, "generation": 1})
}

fn v1_objects() -> Vec<Value> {
    let w = |name: &str, spec: Value| json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": meta(name), "spec": spec});
    vec![
        w("all", json!({"hostPort": "h:1", "replicas": 2, "data": "ünï \"q\" \\"})),
        w("none", json!({})),
        w("some", json!({"replicas": 0})),
        json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": meta("nospec")}),
        // What v2 cannot hold is set aside in the annotation: the Value path.
        w("legacy", json!({"hostPort": "h:1", "legacy": "kept"})),
        // A record of an earlier conversion from v2 is restored: the Value path.
        json!({"apiVersion": "example.com/v1", "kind": "Widget",
               "metadata": {"name": "annotated", "annotations": {"conversion.crdstore.io/v2": "{\"fields\":{\"/spec/tier\":\"silver\"}}", "other": "a"}},
               "spec": {"data": "d"}}),
        // Empty metadata: the resourceVersion is its only member.
        json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {}, "spec": {"replicas": 1}}),
        // Metadata bytes that name the annotations' prefix outside an
        // annotation: the Value path, which finds none to restore.
        json!({"apiVersion": "example.com/v1", "kind": "Widget",
               "metadata": {"name": "label", "labels": {"note": "conversion.crdstore.io/v2"}}, "spec": {"data": "d"}}),
    ]
}

#[tokio::test]
async fn declarative_pages_answer_the_value_paths_bytes() {
    for v2_default in [false, true] {
        let served = served("v1", v2_default);
        let kvs: Vec<KeyValue> =
            v1_objects().iter().enumerate().map(|(i, o)| stored(&served, o, i as i64 + 10)).collect();
        let fast = render_page(&served, "v2", kvs.clone()).await.unwrap();
        let expected = slow(&served, "v2", &kvs).await.unwrap();
        for (got, want) in fast.iter().zip(&expected) {
            assert_eq!(String::from_utf8_lossy(got), String::from_utf8_lossy(want));
        }
        assert_eq!(fast.len(), expected.len());
        if v2_default {
            let first: Value = serde_json::from_slice(&fast[0]).unwrap();
            assert_eq!(first["spec"]["region"], "eu", "v2's default applies on read");
        }
    }
    // Which objects took the byte path: those with nothing to set aside
    // or restore, and only while v2's schema neither defaults nor prunes.
    let open = served("v1", false);
    let Strategy::Declarative(rules) = open.converter.strategy() else { panic!("declarative") };
    let route = fast_route(&open, rules, "v2").unwrap();
    let kvs: Vec<KeyValue> = v1_objects().iter().map(|o| stored(&open, o, 5)).collect();
    let mut memo = Memo::default();
    let taken: Vec<bool> =
        kvs.iter().map(|kv| declarative_bytes(&open, rules, &route, kv, &mut memo).is_some()).collect();
    assert_eq!(taken, [true, true, true, true, false, false, true, false]);
    assert!(!rules.needs_read_pass("v2") && served_needs(&served("v1", true)));
}

/// Metadata bytes that may hold a resourceVersion (no stored object's do)
/// are read into members, and the one found is replaced in place; the
/// others take it at their end, unread.
#[tokio::test]
async fn a_resource_version_in_the_stored_metadata_is_replaced_where_it_is() {
    let served = served("v1", false);
    let Strategy::Declarative(rules) = served.converter.strategy() else { panic!("declarative") };
    let route = fast_route(&served, rules, "v2").unwrap();
    let with = |metadata: Value, at: i64| {
        let obj =
            json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": metadata, "spec": {"replicas": 2}});
        let kv = stored(&served, &obj, at);
        // The stored JSON with the metadata's first member written before
        // the rest, and the mark kept.
        let (json, mark) = split_mark(&kv.value);
        let text = String::from_utf8(json.to_vec()).unwrap();
        let first = obj["metadata"].as_object().unwrap().iter().next().map(|(k, v)| format!("{}:{v},", json!(k)));
        let text = match first {
            Some(first) if first.starts_with("\"resourceVersion\"") => {
                text.replacen("\"metadata\":{", &format!("\"metadata\":{{{first}"), 1)
            }
            _ => text,
        };
        let mut bytes = text.into_bytes();
        crate::resource::stored::append_mark(&mut bytes, mark.expect("marked"));
        KeyValue { value: bytes.into(), ..kv }
    };
    let kvs = [
        with(json!({"resourceVersion": "3", "name": "held"}), 21),
        with(json!({"name": "deep", "labels": {"resourceVersion": "5"}}), 22),
        with(json!({"name": "plain", "labels": {"a": "b"}}), 23),
    ];
    assert!(String::from_utf8_lossy(&kvs[0].value).contains(r#""metadata":{"resourceVersion":"3","name":"held""#));
    let fast = render_page(&served, "v2", kvs.to_vec()).await.unwrap();
    let expected = slow(&served, "v2", &kvs).await.unwrap();
    for (got, want) in fast.iter().zip(&expected) {
        assert_eq!(String::from_utf8_lossy(got), String::from_utf8_lossy(want));
    }
    assert!(String::from_utf8_lossy(&fast[0]).contains(r#""metadata":{"resourceVersion":"21","name":"held"}"#));
    let mut memo = Memo::default();
    assert!(
        kvs.iter().all(|kv| declarative_bytes(&served, rules, &route, kv, &mut memo).is_some()),
        "all take the byte path"
    );
}

fn served_needs(served: &Served) -> bool {
    let Strategy::Declarative(rules) = served.converter.strategy() else { panic!("declarative") };
    rules.needs_read_pass("v2")
}

#[tokio::test]
async fn declarative_pages_walk_rules_backwards_and_fail_as_the_value_path() {
    let served = served("v2", false);
    let w = |name: &str, spec: Value| json!({"apiVersion": "example.com/v2", "kind": "Widget", "metadata": meta(name), "spec": spec});
    let objects = [
        w("back", json!({"endpoint": "h:1", "scaling": {"replicas": 3, "x": 1}, "tier": "gold", "payload": "b:data"})),
        w("moved", json!({"scaling": {"replicas": 3}, "tier": "silver"})),
        w("empty", json!({"scaling": {}})),
    ];
    let kvs: Vec<KeyValue> = objects.iter().enumerate().map(|(i, o)| stored(&served, o, i as i64 + 1)).collect();
    assert_eq!(render_page(&served, "v1", kvs.clone()).await.unwrap(), slow(&served, "v1", &kvs).await.unwrap());
    // A CEL rule that fails fails the page with the Value path's error.
    let bad = stored(&served, &w("bad", json!({"payload": "x"})), 9);
    let fast = render_page(&served, "v1", vec![kvs[0].clone(), bad.clone()]).await.unwrap_err();
    let expected = slow(&served, "v1", &[kvs[0].clone(), bad]).await.unwrap_err();
    assert_eq!(fast.message, expected.message);
}

#[tokio::test]
async fn a_large_page_is_split_and_keeps_its_order() {
    let first = served("v1", false);
    let kvs: Vec<KeyValue> = (0..crate::conversion::page::PARALLEL_FROM as i64 * 2 + 7)
        .map(|i| {
            let obj = json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": meta(&format!("w{i}")),
                             "spec": {"hostPort": format!("h:{i}"), "replicas": i}});
            stored(&first, &obj, i + 1)
        })
        .collect();
    let expected = slow(&first, "v2", &kvs).await.unwrap();
    assert_eq!(render_page(&first, "v2", kvs.clone()).await.unwrap(), expected, "cold");
    assert_eq!(render_page(&first, "v2", kvs.clone()).await.unwrap(), expected, "from the cache");
    // Another compilation of the same definition (another store in this
    // process, say) shares no entry.
    let other = served("v1", false);
    let Strategy::Declarative(rules) = other.converter.strategy() else { panic!("declarative") };
    assert!(super::super::Converted::global().get(&kvs[0], rules.id(), "v2").is_none());
}

/// A webhook page's originals, written in chunks on every core, are what
/// `render` gives at the storage version, in the page's order, each with
/// the parts a read of it finds; an unmarked or corrupt object takes
/// `render`'s path and answers its error.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_webhook_pages_originals_are_rendered_in_order_however_split() {
    let served = served("v1", false);
    let mut kvs: Vec<KeyValue> =
        v1_objects().iter().enumerate().map(|(i, o)| stored(&served, o, i as i64 + 10)).collect();
    // Unmarked bytes (stored under another schema), read through values.
    let mut unmarked = kvs[0].clone();
    unmarked.value = serde_json::to_vec(&v1_objects()[0]).unwrap().into();
    kvs.push(unmarked);
    let expected: Vec<Vec<u8>> =
        kvs.iter().map(|kv| super::super::render(&served, &served.storage_version, kv).unwrap()).collect();
    for parts in [1, 2, 3, 7] {
        let objects = originals(&served, kvs.clone(), parts).await.unwrap();
        // The review's objects and their parts as a read of each finds them.
        let (review, found) = objects.into_review(Vec::new(), b"");
        let again = originals(&served, kvs.clone(), parts).await.unwrap();
        assert_eq!(again.each(), expected.iter().map(|b| &b[..]).collect::<Vec<_>>(), "{parts} parts");
        let mut at = 0;
        for (object, parts) in expected.iter().zip(&found) {
            let read = Parts::find(object);
            let shift = |r: &Option<std::ops::Range<usize>>| r.clone().map(|r| r.start - at..r.end - at);
            assert_eq!((shift(&parts.kind), shift(&parts.metadata)), (read.kind, read.metadata));
            at += object.len() + 1;
        }
        assert_eq!(review.len(), at - 1);
    }
    let mut corrupt = kvs[1].clone();
    corrupt.value = b"{not json".to_vec().into();
    let page = vec![kvs[0].clone(), corrupt.clone(), kvs[2].clone()];
    let err = originals(&served, page.clone(), 3).await.unwrap_err();
    let expected = super::super::render(&served, &served.storage_version, &corrupt).unwrap_err();
    assert_eq!(err.message, expected.message);
}

/// Objects of a page that share a CEL rule's input share its outcome
/// (`Memo`): the same bytes as the `Value` path, for an input whose round
/// trip is exact (converted over the bytes) and one whose is not (set
/// aside in the annotation, by the `Value` path), each met several times.
#[tokio::test]
async fn objects_that_share_a_rules_input_convert_as_the_value_path() {
    let served = served("v2", false);
    let w = |name: &str, payload: &str| {
        json!({"apiVersion": "example.com/v2", "kind": "Widget", "metadata": meta(name),
               "spec": {"payload": payload, "tier": "gold"}})
    };
    let objects = [w("a", "b:same"), w("b", "zzlossy"), w("c", "b:same"), w("d", "zzlossy"), w("e", "b:same")];
    let kvs: Vec<KeyValue> = objects.iter().enumerate().map(|(i, o)| stored(&served, o, i as i64 + 1)).collect();
    let fast = render_page(&served, "v1", kvs.clone()).await.unwrap();
    assert_eq!(fast, slow(&served, "v1", &kvs).await.unwrap());
    let read: Vec<Value> = fast.iter().map(|b| serde_json::from_slice(b).unwrap()).collect();
    assert_eq!(read[2]["spec"]["data"], "same");
    assert_eq!(read[3]["spec"]["data"], "lossy");
    assert!(read[3]["metadata"]["annotations"]["conversion.crdstore.io/v2"].is_string(), "{}", read[3]);
    let Strategy::Declarative(rules) = served.converter.strategy() else { panic!("declarative") };
    let route = fast_route(&served, rules, "v1").unwrap();
    let mut memo = Memo::default();
    let taken: Vec<bool> =
        kvs.iter().map(|kv| declarative_bytes(&served, rules, &route, kv, &mut memo).is_some()).collect();
    assert_eq!(taken, [true, false, true, false, true], "a lossy outcome is kept as such");
}
