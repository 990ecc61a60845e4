//! A write's answer as JSON: spliced from the bytes it stored where a read
//! of them would splice them, and then the same bytes that serialising its
//! object gives, and that a get of it answers.

use serde_json::{json, Value};

use crate::apimachinery::options::{WriteOptions, Written};
use crate::apimachinery::patch::PatchType;
use crate::resource::testing::Stack;
use crate::resource::{Endpoint, Ref, Resources};

/// Widgets at v1 (storage) and v2 converting as `conversion` says, with a
/// typed spec whose `tier` defaults, status and scale subresources.
async fn resources(conversion: Value, v1_conversion: Value) -> Stack {
    let spec = json!({"type": "object", "properties": {
        "replicas": {"type": "integer"}, "tier": {"type": "string", "default": "gold"},
        "size": {"type": "integer"}, "bytes": {"type": "integer"}}});
    let schema = json!({"openAPIV3Schema": {"type": "object", "properties": {
        "spec": spec, "status": {"type": "object", "properties": {"replicas": {"type": "integer"}}}}}});
    let subresources = json!({"status": {}, "scale": {
        "specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas"}});
    let mut v1 = json!({"name": "v1", "served": true, "storage": true, "schema": schema, "subresources": subresources});
    if !v1_conversion.is_null() {
        v1["conversion"] = v1_conversion;
    }
    let v2 = json!({"name": "v2", "served": true, "storage": false, "schema": schema, "subresources": subresources});
    let stack = Stack::start();
    stack
        .define(&json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "widgets.example.com"},
            "spec": {"group": "example.com", "scope": "Namespaced", "names": {"plural": "widgets", "kind": "Widget"},
                     "versions": [v1, v2], "conversion": conversion}}))
        .await;
    stack
}

fn widget(version: &str, name: &str) -> Ref {
    Ref::new("example.com", version, "widgets", "default", name)
}

fn body(version: &str, name: &str, spec: Value) -> Vec<u8> {
    serde_json::to_vec(&json!({"apiVersion": format!("example.com/{version}"), "kind": "Widget",
        "metadata": {"name": name, "labels": {"app": "a"}}, "spec": spec}))
    .unwrap()
}

/// `written`'s JSON is what serialising its object gives, byte for byte,
/// and what a get at the same version answers (`read`, when given);
/// whether it was spliced.
async fn answers(resources: &Resources, r: &Ref, written: &Written, read: bool) -> bool {
    let json = written.clone().take_json();
    assert_eq!(
        String::from_utf8_lossy(&json),
        serde_json::to_string(&written.object).unwrap(),
        "the answer's JSON is its object's"
    );
    if read {
        let got = resources.get(r, Default::default()).await.unwrap().into_json();
        assert_eq!(String::from_utf8_lossy(&json), String::from_utf8_lossy(&got), "a get answers the same bytes");
    }
    written.spliced()
}

#[tokio::test]
async fn a_writes_answer_is_the_json_a_read_of_what_it_stored_shows() {
    let stack = resources(json!({"strategy": "None"}), Value::Null).await;
    let resources = &stack.resources;
    let options = WriteOptions::default();
    for version in ["v1", "v2"] {
        let name = format!("w-{version}");
        let r = widget(version, &name);
        let created = resources
            .create(&widget(version, ""), &body(version, &name, json!({"replicas": 1})), &options)
            .await
            .unwrap();
        assert_eq!(created.object["spec"]["tier"], "gold", "defaulted: {}", created.object);
        assert_eq!(created.object["apiVersion"], format!("example.com/{version}"));
        assert!(answers(resources, &r, &created, true).await, "a create at {version} answers its stored bytes");

        let mut object = created.object.clone();
        object["spec"]["size"] = json!(3);
        let updated = resources.update(&r, &serde_json::to_vec(&object).unwrap(), &options).await.unwrap();
        assert_ne!(updated.object["metadata"]["resourceVersion"], created.object["metadata"]["resourceVersion"]);
        assert!(answers(resources, &r, &updated, true).await, "an update at {version}");

        let patch = br#"{"spec":{"bytes":7}}"#;
        let patched = resources.patch(&r, Endpoint::Main, PatchType::Merge, patch, &options).await.unwrap();
        assert_eq!(patched.object["spec"]["bytes"], 7);
        assert!(answers(resources, &r, &patched, true).await, "a patch at {version}");

        let mut object = patched.object.clone();
        object["status"] = json!({"replicas": 1});
        let status = resources.update_status(&r, &serde_json::to_vec(&object).unwrap(), &options).await.unwrap();
        assert_eq!(status.object["status"]["replicas"], 1);
        assert!(answers(resources, &r, &status, true).await, "a status update at {version}");

        // A write whose answer is not the object: the Scale, serialised.
        let scale = json!({"apiVersion": "autoscaling/v1", "kind": "Scale",
            "metadata": {"name": name, "namespace": "default"}, "spec": {"replicas": 4}});
        let scaled = resources.update_scale(&r, &serde_json::to_vec(&scale).unwrap(), &options).await.unwrap();
        assert!(!answers(resources, &r, &scaled, false).await, "a Scale is not the stored object");
        let answered: Value = serde_json::from_slice(&scaled.clone().take_json()).unwrap();
        assert_eq!((answered["kind"].as_str(), answered["spec"]["replicas"].as_i64()), (Some("Scale"), Some(4)));

        // A dry run stores nothing to splice.
        let dry = WriteOptions { dry_run: true, ..WriteOptions::default() };
        let dry_name = format!("dry-{version}");
        let planned = resources.create(&widget(version, ""), &body(version, &dry_name, json!({})), &dry).await.unwrap();
        assert!(!answers(resources, &widget(version, &dry_name), &planned, false).await, "a dry run is serialised");
    }
}

#[tokio::test]
async fn a_converted_answer_is_serialised() {
    let rules = json!({"declarative": {"v2": {"rules": [{"rename": {"from": ".spec.size", "to": ".spec.bytes"}}]}}});
    let stack = resources(json!({"strategy": "Declarative"}), rules).await;
    let resources = &stack.resources;
    let options = WriteOptions::default();
    let r = widget("v2", "w");
    let created = resources.create(&widget("v2", ""), &body("v2", "w", json!({"bytes": 5})), &options).await.unwrap();
    assert_eq!(created.object["spec"]["bytes"], 5, "{}", created.object);
    assert!(!answers(resources, &r, &created, true).await, "converted to v2: not the stored bytes");
    let stored = resources.get(&widget("v1", "w"), Default::default()).await.unwrap().into_value().unwrap();
    assert_eq!(stored["spec"]["size"], 5, "stored at v1: {stored}");
    let mut object = stored.clone();
    object["spec"]["replicas"] = json!(2);
    let updated = resources.update(&widget("v1", "w"), &serde_json::to_vec(&object).unwrap(), &options).await.unwrap();
    assert!(answers(resources, &widget("v1", "w"), &updated, true).await, "at the storage version it is spliced");
}
