//! Unit tests of the conversion webhook client: requests, answers checked as Kubernetes checks them, failures.

use super::*;
use serde_json::json;

fn object() -> Value {
    json!({"apiVersion": "example.com/v1", "kind": "Widget",
           "metadata": {"name": "a", "namespace": "n", "uid": "u", "resourceVersion": "7",
                        "labels": {"x": "1"}, "generation": 2},
           "spec": {"hostPort": "h:1"}})
}

#[test]
fn metadata_is_restored_but_for_labels_and_annotations() {
    let converted = json!({"apiVersion": "example.com/v2", "kind": "Widget",
        "metadata": {"name": "a", "namespace": "n", "uid": "u", "generation": 9,
                     "labels": {"y": "2"}, "annotations": {"note": "kept"}},
        "spec": {"host": "h", "port": 1}});
    check_converted(&object(), &converted, "example.com/v2").unwrap();
    let restored = restore_object_meta(&object(), converted).unwrap();
    assert_eq!(restored["metadata"]["generation"], 2, "the webhook cannot change other metadata");
    assert_eq!(restored["metadata"]["resourceVersion"], "7");
    assert_eq!(restored["metadata"]["labels"], json!({"y": "2"}));
    assert_eq!(restored["metadata"]["annotations"], json!({"note": "kept"}));
    assert_eq!(restored["spec"], json!({"host": "h", "port": 1}));
}

#[test]
fn identity_changes_are_refused_in_kubernetes_words() {
    let mut renamed = object();
    renamed["apiVersion"] = json!("example.com/v2");
    renamed["metadata"]["name"] = json!("b");
    assert_eq!(check_converted(&object(), &renamed, "example.com/v2").unwrap_err(), "must have the same name: a != b");
    assert_eq!(
        check_converted(&object(), &object(), "example.com/v2").unwrap_err(),
        "invalid groupVersion (expected example.com/v2, received example.com/v1)"
    );
    let mut kind = object();
    kind["apiVersion"] = json!("example.com/v2");
    kind["kind"] = json!("Gadget");
    assert_eq!(
        check_converted(&object(), &kind, "example.com/v2").unwrap_err(),
        "invalid kind (expected Widget, received Gadget)"
    );
    let mut bad_label = object();
    bad_label["metadata"]["labels"] = json!({"x": 1});
    assert_eq!(
        restore_object_meta(&object(), bad_label).unwrap_err(),
        "metadata.labels[x] must be a string, but is int64 in converted object"
    );
    let mut no_meta = object();
    no_meta.as_object_mut().unwrap().remove("metadata");
    assert_eq!(restore_object_meta(&object(), no_meta).unwrap_err(), "missing metadata in converted object");
}

#[test]
fn a_service_resolves_to_its_cluster_address() {
    let config: k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::WebhookClientConfig =
        serde_json::from_value(json!({"service": {"name": "conv", "namespace": "sys", "path": "/convert"}})).unwrap();
    assert_eq!(url_of(&config).unwrap(), "https://conv.sys.svc:443/convert");
    let config = serde_json::from_value(json!({"service": {"name": "c", "namespace": "s", "port": 8443}})).unwrap();
    assert_eq!(url_of(&config).unwrap(), "https://c.s.svc:8443");
}

/// What the Value path and the byte path answer for `converted`, a
/// response to `object()`: the restored object, or the error.
fn both(converted: &Value) -> (std::result::Result<Value, String>, std::result::Result<Value, String>) {
    let desired = "example.com/v2";
    let value =
        check_converted(&object(), converted, desired).and_then(|()| restore_object_meta(&object(), converted.clone()));
    let original_bytes = serde_json::to_vec(&object()).unwrap();
    let original: raw::Members = serde_json::from_slice(&original_bytes).unwrap();
    let text = serde_json::to_string(converted).unwrap();
    let answered: &RawValue = serde_json::from_str(&text).unwrap();
    let two_steps = raw::check_converted(&original, answered, desired)
        .map_err(raw::Refused::Object)
        .and_then(|()| raw::restore_object_meta(&original, answered).map_err(raw::Refused::Metadata))
        .map(|b| serde_json::from_slice::<Value>(&b).unwrap());
    // The two in one pass, as the webhook's byte path calls them: the
    // same answer, the same refusal of the same kind.
    let at_once = raw::check_and_restore(&raw::Original::of(&original), answered, desired)
        .map(|b| serde_json::from_slice::<Value>(&b).unwrap());
    assert_eq!(at_once, two_steps, "{converted}");
    let bytes = two_steps.map_err(|refused| match refused {
        raw::Refused::Object(cause) | raw::Refused::Metadata(cause) => cause,
    });
    (value, bytes)
}

#[test]
fn the_byte_path_checks_and_restores_as_the_value_path() {
    let base = || {
        let mut c = object();
        c["apiVersion"] = json!("example.com/v2");
        c["spec"] = json!({"host": "h", "port": 1});
        c
    };
    let changed = |f: &dyn Fn(&mut Value)| {
        let mut c = base();
        f(&mut c);
        c
    };
    let cases = [
        base(),
        // Labels and annotations are the webhook's to change.
        changed(&|c| {
            c["metadata"]["labels"] = json!({"y": "2"});
            c["metadata"]["annotations"] = json!({"note": "kept"});
        }),
        changed(&|c| drop(c["metadata"].as_object_mut().unwrap().shift_remove("labels"))),
        changed(&|c| c["metadata"]["labels"] = Value::Null),
        // Other metadata is restored to the original's.
        changed(&|c| {
            c["metadata"]["generation"] = json!(9);
            c["metadata"]["resourceVersion"] = json!("1");
            c["metadata"]["finalizers"] = json!(["f"]);
        }),
        // Refused, in Kubernetes' words.
        changed(&|c| c["metadata"]["name"] = json!("b")),
        changed(&|c| c["metadata"]["uid"] = json!("v")),
        changed(&|c| c["kind"] = json!("Gadget")),
        object(),
        changed(&|c| c["metadata"]["labels"] = json!({"x": "not valid!"})),
        changed(&|c| c["metadata"]["labels"] = json!({"bad key!": "v", "x": "-"})),
        changed(&|c| c["metadata"]["annotations"] = json!({"a": 1})),
        changed(&|c| c["metadata"]["labels"] = json!(["x"])),
        changed(&|c| c["metadata"] = json!("m")),
        changed(&|c| drop(c.as_object_mut().unwrap().shift_remove("metadata"))),
        json!([1]),
    ];
    for case in &cases {
        let (value, bytes) = both(case);
        assert_eq!(value, bytes, "{case}");
    }
    assert_eq!(
        both(&cases[5]).1.unwrap_err(),
        "must have the same name: a != b",
        "a change of other metadata is refused with Kubernetes' message"
    );
    assert_eq!(both(&cases[1]).1.unwrap()["metadata"]["labels"], json!({"y": "2"}));
}
